/**
 * Migration 0120 on a store written by the release before it (migrated to the migration below 0120), holding
 * virtual keys and configs naming them: every key becomes a workspace-level integration holding its provider key
 * (the very ciphertext) and custom host, and the workspace's provider on it, both with the key's id; the provider
 * keeps the slug, name, note and usage limits, and the integration takes the slug where the organisation has it
 * free. Configs are untouched. A key of a provider no integration takes stops the migration, named. The routes
 * over the migrated records are VirtualKeysUpgrade.test.ts's (packages/server).
 */
import { ConfigStore, IntegrationStore, ProviderStore } from "@gateway-control/domain"
import { Effect, Exit, Option } from "effect"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "vitest"
import { migrate, migrations } from "../src/Migrations.ts"
import { layerSql } from "../src/SqlStoreLayer.ts"
import { inPgliteSchema, upgradeOnEveryStore } from "./support/EmptySchema.ts"

const before0120 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0120"))
const at = "2025-06-01T00:00:00.000Z"
const later = "2025-07-01T00:00:00.000Z"

/** The organisation, two workspaces, and an organisation integration already holding the slug `taken`. */
const storeBefore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Migrator.make({})({ loader: Migrator.fromRecord(before0120) })
  yield* sql`INSERT INTO organisations (id, name, created_at, last_updated_at) VALUES ('org', 'Org', ${at}, ${at})`
  for (const ws of ["ws-a", "ws-b"]) {
    yield* sql`INSERT INTO workspaces (id, organisation_id, name, slug, description, created_at, last_updated_at)
               VALUES (${ws}, 'org', ${ws}, ${ws}, NULL, ${at}, ${at})`
  }
  yield* sql`INSERT INTO integrations (id, organisation_id, workspace_id, name, slug, ai_provider_id, description,
               status, masked_key, configurations, encrypted_secrets, secret_mappings,
               global_workspace_access_settings, workspaces, allow_all_models, models, created_at, last_updated_at)
             VALUES ('int-taken', 'org', NULL, 'Taken', 'taken', 'openai', NULL, 'active', 'sk-t****aken',
               '{}'::jsonb, '{"key":"v1:taken"}'::jsonb, '[]'::jsonb, NULL, '[]'::jsonb, true, '[]'::jsonb,
               ${at}, ${at})`
  return sql
})

const insertKey = (
  sql: SqlClient.SqlClient,
  key: {
    readonly id: string
    readonly workspace: string
    readonly slug: string
    readonly provider: string
    readonly customHost: string | null
    readonly note: string | null
    readonly usageLimits: string | null
    readonly createdAt: string
  }
) =>
  sql`INSERT INTO virtual_keys (id, organisation_id, workspace_id, name, slug, provider, masked_key, encrypted_key,
        custom_host, note, usage_limits, created_at, last_updated_at)
      VALUES (${key.id}, 'org', ${key.workspace}, ${`Key ${key.slug}`}, ${key.slug}, ${key.provider},
        ${`sk-****${key.id.slice(-4)}`}, ${`v1:sealed-${key.id}`}, ${key.customHost}, ${key.note},
        ${key.usageLimits}::jsonb, ${key.createdAt}, ${later})`

const upgradeWithKeys = Effect.gen(function*() {
  const sql = yield* storeBefore
  yield* insertKey(sql, {
    id: "vk-a-main",
    workspace: "ws-a",
    slug: "main",
    provider: "openai",
    customHost: null,
    note: "the main key",
    usageLimits: JSON.stringify({ credit_limit: 10, periodic_reset: "monthly", alert_threshold: 8 }),
    createdAt: at
  })
  yield* insertKey(sql, {
    id: "vk-a-taken",
    workspace: "ws-a",
    slug: "taken",
    provider: "together-ai",
    customHost: "https://llm.example.com/v1",
    note: null,
    usageLimits: null,
    createdAt: at
  })
  yield* insertKey(sql, {
    id: "vk-b-main",
    workspace: "ws-b",
    slug: "main",
    provider: "fireworks-ai",
    customHost: null,
    note: null,
    usageLimits: "null",
    createdAt: later
  })
  yield* sql`INSERT INTO configs (id, organisation_id, workspace_id, name, slug, config, masked_api_key,
               encrypted_api_key, is_default, status, version_id, created_at, last_updated_at)
             VALUES ('cfg', 'org', 'ws-a', 'Routed', 'routed', '{"virtual_key":"main"}'::jsonb, NULL, NULL, 0,
               'active', 'cfg-v1', ${at}, ${at})`
  const ran = yield* migrate
  const gone = yield* sql<{ readonly present: boolean }>`SELECT to_regclass('virtual_keys') IS NOT NULL AS present`
  return yield* Effect.gen(function*() {
    const integrations = yield* IntegrationStore
    const providers = yield* ProviderStore
    const ids = ["vk-a-main", "vk-a-taken", "vk-b-main"]
    return {
      ran: ran.map(([, name]) => name),
      tableLeft: gone[0]?.present,
      integrations: yield* Effect.forEach(ids, (id) => Effect.map(integrations.get(id), Option.getOrThrow)),
      providers: yield* Effect.forEach(ids, (id) => Effect.map(providers.get(id), Option.getOrThrow)),
      bySlug: Option.getOrThrow(yield* providers.findBySlug("ws-b", "main")),
      listed: (yield* providers.listVirtualKeys("org", null, { limit: 10, offset: 0 })).items.map((p) => p.id),
      config: Option.getOrThrow(yield* (yield* ConfigStore).findBySlug("ws-a", "routed"))
    }
  }).pipe(Effect.provide(layerSql))
})

const expectUpgraded = (result: Effect.Success<typeof upgradeWithKeys>) => {
  expect(result.ran).toContain("virtual_keys_as_providers")
  expect(result.tableLeft).toBe(false)
  const [aMain, aTaken, bMain] = result.integrations
  // The very ciphertext, under `key`; the masked key, the provider type and the custom host as they were.
  expect(aMain).toMatchObject({
    record: {
      id: "vk-a-main",
      organisation_id: "org",
      workspace_id: "ws-a",
      name: "Key main",
      slug: "main",
      ai_provider_id: "openai",
      status: "active",
      masked_key: "sk-****main",
      configurations: {},
      secret_mappings: [],
      workspaces: [],
      allow_all_models: true,
      created_at: at,
      last_updated_at: later
    },
    encryptedSecrets: { key: "v1:sealed-vk-a-main" }
  })
  // `taken` is an organisation integration's already; the second `main` of the organisation is ws-b's.
  expect(aTaken).toMatchObject({
    record: {
      slug: "taken-vk-a-tak",
      ai_provider_id: "together-ai",
      configurations: { custom_host: "https://llm.example.com/v1" }
    },
    encryptedSecrets: { key: "v1:sealed-vk-a-taken" }
  })
  expect(bMain).toMatchObject({
    record: { slug: "main-vk-b-mai", workspace_id: "ws-b", ai_provider_id: "fireworks-ai" },
    encryptedSecrets: { key: "v1:sealed-vk-b-main" }
  })
  expect(result.providers.map((p) => [p.id, p.integration_id, p.workspace_id, p.slug, p.name])).toEqual([
    ["vk-a-main", "vk-a-main", "ws-a", "main", "Key main"],
    ["vk-a-taken", "vk-a-taken", "ws-a", "taken", "Key taken"],
    ["vk-b-main", "vk-b-main", "ws-b", "main", "Key main"]
  ])
  expect(result.providers[0]).toMatchObject({
    note: "the main key",
    status: "active",
    usage_limits: { credit_limit: 10, periodic_reset: "monthly", alert_threshold: 8 },
    rate_limits: null,
    expires_at: null,
    models: null,
    created_at: at,
    last_updated_at: later
  })
  expect(result.providers[2]).toMatchObject({ note: null, usage_limits: null })
  expect(result.bySlug.id).toBe("vk-b-main")
  expect(result.listed).toEqual(["vk-a-main", "vk-a-taken", "vk-b-main"])
  expect(result.config.record.config).toEqual({ virtual_key: "main" })
}

describe("migration 0120_virtual_keys_as_providers", () => {
  upgradeOnEveryStore(
    "makes every virtual key an integration + provider pair, ids, slugs and stored keys kept",
    "before_0120",
    upgradeWithKeys,
    expectUpgraded
  )

  it("stops, naming the provider, on a key no integration can hold, and changes nothing", async () => {
    const outcome = await inPgliteSchema(
      "before_0120_unknown",
      Effect.gen(function*() {
        const sql = yield* storeBefore
        yield* insertKey(sql, {
          id: "vk-odd",
          workspace: "ws-a",
          slug: "odd",
          provider: "mistral-ai",
          customHost: null,
          note: null,
          usageLimits: null,
          createdAt: at
        })
        const exit = yield* Effect.exit(migrate)
        const left = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM virtual_keys`
        const pairs = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM providers`
        return { exit, left: left[0]?.n, pairs: pairs[0]?.n }
      })
    )
    expect(Exit.isFailure(outcome.exit)).toBe(true)
    expect(JSON.stringify(outcome.exit)).toContain("mistral-ai")
    expect([outcome.left, outcome.pairs]).toEqual([1, 0])
  })
})
