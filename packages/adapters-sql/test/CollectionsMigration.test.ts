/**
 * Migration 0029 on a database that already holds prompts and partials: every workspace gets its default
 * collection, and every prompt and partial lands in its workspace's, with its id (and all else) intact.
 */
import { CollectionStore, PartialStore, PromptStore } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "vitest"
import { migrate, migrations } from "../src/Migrations.ts"
import { layerSql } from "../src/SqlStoreLayer.ts"
import { inPgliteSchema, inPostgresSchema } from "./support/EmptySchema.ts"
import { postgresUrl } from "./support/Stores.ts"

const before0029 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0029"))
const WORKSPACES = ["ws-a", "ws-b", "ws-empty"]

const upgradeWithPrompts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Migrator.make({})({ loader: Migrator.fromRecord(before0029) })
  const at = "2025-06-01T00:00:00.000Z"
  yield* sql`INSERT INTO organisations (id, name, created_at, last_updated_at) VALUES ('org', 'Org', ${at}, ${at})`
  for (const ws of WORKSPACES) {
    yield* sql`INSERT INTO workspaces (id, organisation_id, name, slug, description, created_at, last_updated_at)
               VALUES (${ws}, 'org', ${ws}, ${ws}, NULL, ${at}, ${at})`
  }
  for (const ws of ["ws-a", "ws-b"]) {
    for (const n of [1, 2]) {
      yield* sql`INSERT INTO prompts (id, organisation_id, workspace_id, name, slug, published_version, created_at,
                                      last_updated_at)
                 VALUES (${`prompt-${ws}-${n}`}, 'org', ${ws}, 'P', ${`p${n}`}, 1, ${at}, ${at})`
    }
  }
  yield* sql`INSERT INTO prompt_partials (id, organisation_id, workspace_id, name, slug, published_version,
                                          created_at, last_updated_at, description, status)
             VALUES ('partial', 'org', 'ws-a', 'Tone', 'tone', 1, ${at}, ${at}, NULL, 'active')`
  const ran = yield* migrate
  return yield* Effect.gen(function*() {
    const collections = yield* CollectionStore
    const prompts = yield* PromptStore
    const defaults = Object.fromEntries(
      yield* Effect.forEach(
        WORKSPACES,
        (ws) => Effect.map(collections.defaultOf(ws), (found) => [ws, Option.getOrThrow(found)] as const)
      )
    )
    return {
      ran: ran.map(([, name]) => name),
      defaults,
      prompts: (yield* prompts.list("org", null, { limit: 100, offset: 0 })).items,
      partial: Option.getOrThrow(yield* (yield* PartialStore).get("partial")),
      contents: yield* collections.contents(defaults["ws-a"]!.id)
    }
  }).pipe(Effect.provide(layerSql))
})

const expectUpgraded = (result: Effect.Success<typeof upgradeWithPrompts>) => {
  expect(result.ran).toContain("collections")
  for (const ws of WORKSPACES) {
    expect(result.defaults[ws]).toMatchObject({ workspace_id: ws, slug: "default", is_default: true })
  }
  expect(result.prompts.map((p) => [p.id, p.workspace_id, p.collection_id]).sort()).toEqual([
    ["prompt-ws-a-1", "ws-a", result.defaults["ws-a"]!.id],
    ["prompt-ws-a-2", "ws-a", result.defaults["ws-a"]!.id],
    ["prompt-ws-b-1", "ws-b", result.defaults["ws-b"]!.id],
    ["prompt-ws-b-2", "ws-b", result.defaults["ws-b"]!.id]
  ])
  expect(result.partial).toMatchObject({ id: "partial", slug: "tone", collection_id: result.defaults["ws-a"]!.id })
  expect(result.contents).toEqual({ prompts: 2, partials: 1, collections: 0 })
}

describe("migration 0029_collections", () => {
  it("moves every prompt and partial into its workspace's default collection, ids kept, on PGlite", async () => {
    expectUpgraded(await inPgliteSchema("before_0029", upgradeWithPrompts))
  })

  it.runIf(postgresUrl !== undefined)(
    "moves every prompt and partial into its workspace's default collection, ids kept, on PostgreSQL",
    async () => {
      expectUpgraded(await inPostgresSchema(postgresUrl ?? "", "before_0029", upgradeWithPrompts))
    }
  )
})
