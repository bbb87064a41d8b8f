/**
 * Migrations 0009 and 0010 on a database that already holds prompts and partials: every label name a prompt
 * points with becomes a label of the prompt's workspace (the built-in ones stay rows of none), and partials
 * are active with no description.
 */
import { LabelStore, PartialStore } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect } from "vitest"
import { migrate, migrations } from "../src/Migrations.ts"
import { layerSql } from "../src/SqlStoreLayer.ts"
import { upgradeOnEveryStore } from "./support/EmptySchema.ts"

const before0009 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0009"))

const upgradeWithPointers = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Migrator.make({})({ loader: Migrator.fromRecord(before0009) })
  const at = "2025-06-01T00:00:00.000Z"
  yield* sql`INSERT INTO organisations (id, name, created_at, last_updated_at) VALUES ('org', 'Org', ${at}, ${at})`
  for (const ws of ["ws-a", "ws-b"]) {
    yield* sql`INSERT INTO workspaces (id, organisation_id, name, slug, description, created_at, last_updated_at)
               VALUES (${ws}, 'org', ${ws}, ${ws}, NULL, ${at}, ${at})`
    const prompt = `prompt-${ws}`
    yield* sql`INSERT INTO prompts (id, organisation_id, workspace_id, name, slug, published_version, created_at,
                                    last_updated_at)
               VALUES (${prompt}, 'org', ${ws}, 'P', 'p', 1, ${at}, ${at})`
    for (const label of ["production", "canary"]) {
      yield* sql`INSERT INTO prompt_labels (prompt_id, label, version, last_updated_at)
                 VALUES (${prompt}, ${label}, 1, ${at})`
    }
  }
  yield* sql`INSERT INTO prompt_partials (id, organisation_id, workspace_id, name, slug, published_version,
                                          created_at, last_updated_at)
             VALUES ('partial', 'org', 'ws-a', 'Tone', 'tone', 1, ${at}, ${at})`
  const ran = yield* migrate
  return yield* Effect.gen(function*() {
    const labels = yield* LabelStore
    return {
      ran: ran.map(([, name]) => name),
      canary: yield* labels.withName("org", "canary"),
      production: yield* labels.withName("org", "production"),
      partial: Option.getOrThrow(yield* (yield* PartialStore).get("partial"))
    }
  }).pipe(Effect.provide(layerSql))
})

const expectUpgraded = (result: Effect.Success<typeof upgradeWithPointers>) => {
  expect(result.ran.slice(0, 2)).toEqual(["prompt_partial_metadata", "labels"])
  expect(result.canary.map((label) => [label.workspace_id, label.name]).sort()).toEqual([
    ["ws-a", "canary"],
    ["ws-b", "canary"]
  ])
  expect(result.production).toEqual([])
  expect(result.partial).toMatchObject({ slug: "tone", description: null, status: "active" })
}

describe("migrations 0009_prompt_partial_metadata and 0010_labels", () => {
  upgradeOnEveryStore(
    "make labels of the names prompts point with, and partials active",
    "before_0009",
    upgradeWithPointers,
    expectUpgraded
  )
})
