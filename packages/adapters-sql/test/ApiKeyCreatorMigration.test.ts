/**
 * Migration 0007 on a database that already holds keys: they stay readable, with no recorded creator.
 * Runs in an empty schema of its own, migrated to 0006 first, as a store created before 0007 would be.
 */
import { PgClient } from "@effect/sql-pg"
import { ApiKeyStore } from "@gateway-control/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { readFileSync } from "node:fs"
import { describe, expect, inject, it } from "vitest"
import { migrate, migrations } from "../src/Migrations.ts"
import * as PgliteClient from "../src/PgliteClient.ts"
import { layerSql } from "../src/SqlStoreLayer.ts"
import { postgresUrl } from "./support/Stores.ts"

const before0007 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0007"))

const upgradeWithAKey = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Migrator.make({})({ loader: Migrator.fromRecord(before0007) })
  const at = "2025-06-01T00:00:00.000Z"
  yield* sql`INSERT INTO organisations (id, name, created_at, last_updated_at) VALUES ('org', 'Org', ${at}, ${at})`
  yield* sql`INSERT INTO api_keys (id, organisation_id, workspace_id, user_id, type, name, description, scopes,
                                   status, masked_key, digest, created_at, last_updated_at, expires_at)
             VALUES ('old-key', 'org', NULL, NULL, 'organisation-service', 'old', NULL, '["workspaces.list"]'::jsonb,
                     'active', 'gwc_****abcd', 'digest-of-old-key', ${at}, ${at}, NULL)`
  const ran = yield* migrate
  const key = yield* Effect.flatMap(Effect.service(ApiKeyStore), (store) => store.get("old-key")).pipe(
    Effect.provide(layerSql)
  )
  return { ran: ran.map(([, name]) => name), key: Option.getOrThrow(key) }
})

const expectUpgraded = (result: Effect.Success<typeof upgradeWithAKey>) => {
  expect(result.ran[0]).toEqual("api_key_creator")
  expect(result.key).toMatchObject({
    id: "old-key",
    name: "old",
    scopes: ["workspaces.list"],
    created_by_user_id: null,
    created_by_api_key_id: null,
    // And from 0011: no limits, never used or rotated.
    rate_limits: [],
    last_used_at: null,
    rotated_at: null,
    transition_ends_at: null
  })
}

describe("migration 0007_api_key_creator", () => {
  it("keeps keys made before it, with no recorded creator, on PGlite", async () => {
    const snapshot = new Blob([new Uint8Array(readFileSync(inject("pgliteSnapshot")))])
    const result = await Effect.runPromise(
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // PGlite has one session: this search_path holds for every statement that follows.
        yield* sql.unsafe("CREATE SCHEMA before_0007")
        yield* sql.unsafe("SET search_path TO before_0007")
        return yield* upgradeWithAKey
      }).pipe(Effect.provide(PgliteClient.layer({ loadDataDir: snapshot })), Effect.scoped)
    )
    expectUpgraded(result)
  })

  it.runIf(postgresUrl !== undefined)(
    "keeps keys made before it, with no recorded creator, on PostgreSQL",
    async () => {
      const url = Redacted.make(postgresUrl ?? "")
      const schema = `before_0007_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
      const admin = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) =>
        Effect.runPromise(
          effect.pipe(Effect.provide(PgClient.layer({ url, maxConnections: 1 })), Effect.provide(Reactivity.layer))
        )
      await admin(Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => sql.unsafe(`CREATE SCHEMA "${schema}"`)))
      try {
        const inSchema = PgClient.layer({ url, maxConnections: 2, startupParameters: { search_path: schema } })
        const result = await Effect.runPromise(
          upgradeWithAKey.pipe(Effect.provide(Layer.provideMerge(inSchema, Reactivity.layer)))
        )
        expectUpgraded(result)
      } finally {
        await admin(
          Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => sql.unsafe(`DROP SCHEMA "${schema}" CASCADE`))
        )
      }
    }
  )
})
