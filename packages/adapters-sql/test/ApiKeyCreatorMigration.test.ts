/**
 * Migrations 0007 and 0011 on a database that already holds keys: they stay readable, with no recorded
 * creator, and a key that could revoke keys may now update them. Runs in an empty schema of its own, migrated
 * to 0006 first, as a store created before 0007 would be.
 */
import { ApiKeyStore } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect } from "vitest"
import { migrate, migrations } from "../src/Migrations.ts"
import { layerSql } from "../src/SqlStoreLayer.ts"
import { upgradeOnEveryStore } from "./support/EmptySchema.ts"

const before0007 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0007"))

const upgradeWithAKey = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Migrator.make({})({ loader: Migrator.fromRecord(before0007) })
  const at = "2025-06-01T00:00:00.000Z"
  yield* sql`INSERT INTO organisations (id, name, created_at, last_updated_at) VALUES ('org', 'Org', ${at}, ${at})`
  yield* sql`INSERT INTO api_keys (id, organisation_id, workspace_id, user_id, type, name, description, scopes,
                                   status, masked_key, digest, created_at, last_updated_at, expires_at)
             VALUES ('old-key', 'org', NULL, NULL, 'organisation-service', 'old', NULL, '["workspaces.list"]'::jsonb,
                     'active', 'gwc_****abcd', 'digest-of-old-key', ${at}, ${at}, NULL),
                    ('old-admin', 'org', NULL, NULL, 'organisation-service', 'admin', NULL,
                     '["api_keys.list","api_keys.delete","workspace_service_api_keys.create"]'::jsonb,
                     'active', 'gwc_****efgh', 'digest-of-old-admin', ${at}, ${at}, NULL)`
  const ran = yield* migrate
  const read = (id: string) =>
    Effect.flatMap(Effect.service(ApiKeyStore), (store) => store.get(id)).pipe(
      Effect.provide(layerSql),
      Effect.map(Option.getOrThrow)
    )
  return { ran: ran.map(([, name]) => name), key: yield* read("old-key"), admin: yield* read("old-admin") }
})

const expectUpgraded = (result: Effect.Success<typeof upgradeWithAKey>) => {
  expect(result.ran[0]).toEqual("api_key_creator")
  expect(result.key).toMatchObject({
    id: "old-key",
    name: "old",
    scopes: ["workspaces.list"],
    created_by_user_id: null,
    created_by_api_key_id: null,
    // And from 0013: no limits, never used or rotated.
    rate_limits: [],
    last_used_at: null,
    rotated_at: null,
    transition_ends_at: null
  })
  // 0011: api_keys.update came later; only a key that may revoke keys gains it. 0013: a key that may create
  // keys of a kind gains the right to rotate them, and no other.
  expect(result.ran).toContain("api_keys_update_scope")
  expect([...result.admin.scopes].sort()).toEqual([
    "api_keys.delete",
    "api_keys.list",
    "api_keys.update",
    "workspace_service_api_keys.create",
    "workspace_service_api_keys.rotate"
  ])
}

describe("migration 0007_api_key_creator", () => {
  upgradeOnEveryStore(
    "keeps keys made before it, with no recorded creator",
    "before_0007",
    upgradeWithAKey,
    expectUpgraded
  )
})
