/**
 * Virtual keys become a view (issue 29), on a store written by the release before migration 0120: migrated to the
 * migration below it, bootstrapped by the domain, holding virtual keys (their provider keys encrypted with the
 * master key, as that release stored them) and configs naming them by slug, by id and as `provider: "@slug"`.
 * The server migrates it on start; then every old id and slug works by the old routes (`/virtual-keys`, Portkey's
 * SDK, `x-portkey-virtual-key`, configs) and the new ones (`/integrations`, `/providers`, `@slug`), fine-tuning
 * calls carry the very keys stored before, and writes through either act on the same records. On PGlite, and on
 * PostgreSQL when TEST_DATABASE_URL is set.
 */
import { migrations, PgliteClient } from "@gateway-control/adapters-sql"
import { Bootstrap, type BootstrapResult, type StorePorts } from "@gateway-control/domain"
import { Effect, Layer, Redacted } from "effect"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { randomBytes, randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import OpenAI from "openai"
import { Portkey } from "portkey-ai"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { layerFromClient, layerPostgresClient, layerSql } from "../../adapters-sql/src/SqlStoreLayer.ts"
import { layerDomain, providerRegistry, type ProviderSettings } from "../src/App.ts"
import { makeSecretCipher } from "../src/NodeCrypto.ts"
import { postgresUrl, query } from "./support/Databases.ts"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import { checkPortkeyAnswer, checkPortkeyIntegrationAnswer } from "./support/PortkeyOpenApi.ts"
import { errorOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const before0120 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0120"))
const at = "2025-06-01T00:00:00.000Z"

interface OldStore {
  boot?: BootstrapResult
  readonly mainId: string
  readonly hostedId: string
}

/**
 * What the release before 0120 held: its migrations, its bootstrap, two virtual keys (`main`, with a note and
 * usage limits; `hosted`, on a custom host) and three configs naming them.
 */
const writeOldStore = (
  providers: ProviderSettings,
  elsewhere: string,
  old: OldStore,
  schema: string | undefined
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (schema !== undefined) {
      // PGlite has one session: this search_path holds for every statement that follows.
      yield* sql.unsafe(`CREATE SCHEMA "${schema}"`)
      yield* sql.unsafe(`SET search_path TO "${schema}"`)
    }
    yield* Migrator.make({})({ loader: Migrator.fromRecord(before0120) })
    const boot = yield* Effect.flatMap(
      Effect.service(Bootstrap),
      (bootstrap) => bootstrap.run({ organisationName: "Old Org", ownerEmail: "owner@example.com" })
    ).pipe(
      Effect.provide(layerDomain(Layer.provide(layerSql, Layer.succeed(SqlClient.SqlClient)(sql)), providers))
    )
    old.boot = boot
    const cipher = makeSecretCipher(providers.masterKey)
    const keys = [
      [old.mainId, "Main", "main", null, "the old key", { credit_limit: 10, periodic_reset: "monthly" }],
      [old.hostedId, "Hosted", "hosted", elsewhere, null, null]
    ] as const
    for (const [id, name, slug, host, note, limits] of keys) {
      yield* sql`INSERT INTO virtual_keys (id, organisation_id, workspace_id, name, slug, provider, masked_key,
                   encrypted_key, custom_host, note, usage_limits, created_at, last_updated_at)
                 VALUES (${id}, ${boot.organisation_id}, ${boot.workspace_id}, ${name}, ${slug}, 'openai',
                   'sk-g****good', ${cipher.encrypt("sk-good")}, ${host}, ${note},
                   ${limits === null ? null : JSON.stringify(limits)}::jsonb, ${at}, ${at})`
    }
    const configs = [
      ["by-slug", { virtual_key: "main" }],
      ["by-id", { virtual_key: old.hostedId }],
      ["by-provider", { provider: "@main" }]
    ] as const
    for (const [slug, config] of configs) {
      const id = randomUUID()
      yield* sql`INSERT INTO configs (id, organisation_id, workspace_id, name, slug, config, masked_api_key,
                   encrypted_api_key, is_default, status, version_id, created_at, last_updated_at)
                 VALUES (${id}, ${boot.organisation_id}, ${boot.workspace_id}, ${slug}, ${slug},
                   ${JSON.stringify(config)}::jsonb, NULL, NULL, 0, 'active', ${`${id}-v1`}, ${at}, ${at})`
      yield* sql`INSERT INTO config_versions (id, config_id, version, name, config, created_at)
                 VALUES (${`${id}-v1`}, ${id}, 1, ${slug}, ${JSON.stringify(config)}::jsonb, ${at})`
    }
  })

const schemaName = () => `before_0120_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`

/** Writes the old store, in a schema of its own when named (PGlite's, on its one session). */
type WriteOld = (schema: string | undefined) => Effect.Effect<void, unknown, SqlClient.SqlClient>

interface UpgradeStore {
  readonly name: string
  /** The store layer: the old store written, then migrated as the server starts; and its cleanup. */
  readonly layer: (write: WriteOld) => {
    readonly layer: Layer.Layer<StorePorts, unknown>
    readonly drop: () => Promise<void>
  }
}

const upgradeStores: ReadonlyArray<UpgradeStore> = [
  {
    name: "PGlite",
    layer: (write) => {
      const snapshot = new Blob([new Uint8Array(readFileSync(inject("pgliteSnapshot")))])
      const client = PgliteClient.layer({ loadDataDir: snapshot })
      const prepared = Layer.provideMerge(Layer.effectDiscard(write(schemaName())), client)
      return { layer: layerFromClient(prepared), drop: () => Promise.resolve() }
    }
  },
  ...(postgresUrl === undefined ? [] : [{
    name: "PostgreSQL",
    layer: (write: WriteOld) => {
      const schema = schemaName()
      const client = Layer.unwrap(Effect.promise(async () => {
        await query(postgresUrl!, `CREATE SCHEMA "${schema}"`)
        return layerPostgresClient({
          url: Redacted.make(postgresUrl!),
          poolSize: 1,
          startupParameters: { search_path: schema }
        })
      }))
      const prepared = Layer.provideMerge(Layer.effectDiscard(write(undefined)), client)
      return {
        layer: layerFromClient(prepared),
        drop: () => query(postgresUrl!, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`).then(() => undefined)
      }
    }
  }])
]

describe.each(upgradeStores)("virtual keys after migration 0120, on $name", (store) => {
  let server: TestServer
  let upstream: FakeProvider
  let elsewhere: FakeProvider
  let workspaceKey: string
  let drop: () => Promise<void> = () => Promise.resolve()
  const old: OldStore = { mainId: randomUUID(), hostedId: randomUUID() }

  const call = async (method: string, path: string, body?: unknown, key?: string) => {
    const response = await server.send(method, path, body, key)
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
  }
  const jobs = (headers: Record<string, string>) =>
    server.request("/v1/fine_tuning/jobs?limit=2", { key: workspaceKey, headers })
  const statusOf = async (headers: Record<string, string>) => {
    const response = await jobs(headers)
    const text = await response.text()
    return { status: response.status, text }
  }

  beforeAll(async () => {
    upstream = await startFakeProvider("upgraded")
    elsewhere = await startFakeProvider("elsewhere")
    const providers: ProviderSettings = {
      registry: providerRegistry({
        providerBaseUrls: [["openai", upstream.baseUrl]],
        upstreamTimeoutMs: 10_000,
        trustedCustomHosts: [elsewhere.host]
      }),
      masterKey: new Uint8Array(randomBytes(32))
    }
    const made = store.layer((schema) => writeOldStore(providers, elsewhere.baseUrl, old, schema))
    drop = made.drop
    server = await startTestServer({
      store: made.layer,
      providers,
      bootstrapped: () => old.boot!
    })
    const key = await call("POST", "/v1/api-keys/workspace/service", {
      name: "upgraded",
      workspace_id: server.workspaceId,
      scopes: [
        "completions.write",
        "virtual_keys.create",
        "virtual_keys.read",
        "virtual_keys.list",
        "virtual_keys.update",
        "virtual_keys.delete",
        "configs.read"
      ]
    })
    expect(key.status, JSON.stringify(key.body)).toBe(201)
    workspaceKey = key.body.key
  })
  afterAll(async () => {
    await server?.close()
    await upstream?.close()
    await elsewhere?.close()
    await drop()
  })

  it("reads every old id and slug by /virtual-keys, Portkey's SDK, /integrations and /providers", async () => {
    const listed = await call("GET", `/v1/virtual-keys?workspace_id=${server.workspaceId}`)
    expect(listed.status).toBe(200)
    checkPortkeyAnswer("get", "/virtual-keys", listed.body)
    // Made at the same instant: ordered by id.
    expect(listed.body.data.map((k: { id: string; slug: string }) => [k.id, k.slug])).toEqual(
      [[old.mainId, "main"], [old.hostedId, "hosted"]].sort(([a], [b]) => a!.localeCompare(b!))
    )
    for (const ref of ["main", old.mainId]) {
      const read = await call("GET", `/v1/virtual-keys/${ref}`, undefined, workspaceKey)
      expect(read.body).toMatchObject({
        id: old.mainId,
        slug: "main",
        name: "Main",
        provider: "openai",
        ai_provider_name: "openai",
        masked_key: "sk-g****good",
        masked_api_key: "sk-g****good",
        custom_host: null,
        note: "the old key",
        usage_limits: { credit_limit: 10, periodic_reset: "monthly" },
        created_at: at,
        status: "active",
        object: "virtual-key"
      })
      checkPortkeyAnswer("get", "/virtual-keys/{slug}", read.body)
    }
    const sdk = new Portkey({ apiKey: workspaceKey, baseURL: `${server.baseUrl}/v1` })
    expect(await sdk.virtualKeys.retrieve({ slug: "hosted" })).toMatchObject({
      id: old.hostedId,
      custom_host: elsewhere.baseUrl
    })
    for (const ref of ["main", old.mainId]) {
      const integration = await call("GET", `/v1/integrations/${ref}`)
      expect(integration.body).toMatchObject({
        id: old.mainId,
        slug: "main",
        ai_provider_id: "openai",
        workspace_id: server.workspaceId,
        masked_key: "sk-g****good",
        status: "active"
      })
      checkPortkeyIntegrationAnswer("get", "/integrations/{slug}", integration.body)
      const provider = await call("GET", `/v1/providers/${ref}`, undefined, workspaceKey)
      expect(provider.body).toMatchObject({ id: old.mainId, slug: "main", integration_id: old.mainId })
      checkPortkeyAnswer("get", "/providers/{slug}", provider.body)
    }
    expect((await call("GET", `/v1/integrations/${old.hostedId}`)).body).toMatchObject({
      slug: "hosted",
      configurations: { custom_host: elsewhere.baseUrl }
    })
  })

  it("every fine-tuning call by an old name carries the key stored before the migration", async () => {
    const upstreamBefore = upstream.requests.length
    const elsewhereBefore = elsewhere.requests.length
    const toUpstream: ReadonlyArray<Record<string, string>> = [
      { "x-portkey-virtual-key": "main" },
      { "x-service-virtual-key": "main" },
      { "x-service-virtual-key": old.mainId },
      { "x-portkey-provider": "@main" },
      { "x-service-provider": "@main" },
      { "x-portkey-config": "by-slug" },
      { "x-service-config": "by-provider" },
      { "x-portkey-config": JSON.stringify({ virtual_key: "main" }) },
      { "x-portkey-config": JSON.stringify({ provider: "@main" }) }
    ]
    const toElsewhere: ReadonlyArray<Record<string, string>> = [
      { "x-portkey-virtual-key": "hosted" },
      { "x-portkey-provider": `@hosted` },
      { "x-portkey-config": "by-id" }
    ]
    for (const headers of [...toUpstream, ...toElsewhere]) {
      const answer = await statusOf(headers)
      expect(answer.status, `${JSON.stringify(headers)}: ${answer.text}`).toBe(200)
      expect(JSON.parse(answer.text).data).toHaveLength(2)
    }
    expect(upstream.requests.slice(upstreamBefore).map((r) => r.authorization)).toEqual(
      toUpstream.map(() => "Bearer sk-good")
    )
    expect(elsewhere.requests.slice(elsewhereBefore).map((r) => r.authorization)).toEqual(
      toElsewhere.map(() => "Bearer sk-good")
    )
    // The OpenAI SDK as an old client sets it up.
    const client = new OpenAI({
      apiKey: "unused",
      baseURL: `${server.baseUrl}/v1`,
      defaultHeaders: { "x-service-api-key": workspaceKey, "x-portkey-virtual-key": "main" },
      maxRetries: 0
    })
    expect((await client.fineTuning.jobs.list({ limit: 3 })).data).toHaveLength(3)
  })

  it("writes through /virtual-keys act on the pair, and writes through the new routes show through the old", async () => {
    // A rotation: the integration's key, as the next call carries.
    const rotated = await call("PUT", "/v1/virtual-keys/main", { key: "sk-rotated-1234" }, workspaceKey)
    expect(rotated.body).toMatchObject({ id: old.mainId, masked_key: "sk-r****1234" })
    checkPortkeyAnswer("put", "/virtual-keys/{slug}", rotated.body)
    expect((await call("GET", `/v1/integrations/${old.mainId}`)).body.masked_key).toBe("sk-r****1234")
    const before = upstream.requests.length
    expect((await statusOf({ "x-portkey-virtual-key": "main" })).status).toBe(401)
    expect(upstream.requests.slice(before).map((r) => r.authorization)).toEqual(["Bearer sk-rotated-1234"])
    // The stored key goes nowhere new without being given again.
    const moved = await server.send("PUT", "/v1/virtual-keys/main", { custom_host: elsewhere.baseUrl }, workspaceKey)
    expect(await errorOf(moved)).toMatchObject({ status: 400, param: "custom_host" })
    // The integration's own route rotates it back; the provider's changes its note.
    const back = await call("PUT", `/v1/integrations/${old.mainId}`, { key: "sk-good" })
    expect(back.status).toBe(200)
    expect(back.body.masked_key).not.toBe("sk-r****1234")
    expect((await call("PUT", "/v1/providers/main", { note: "via providers" }, workspaceKey)).status).toBe(200)
    expect((await call("GET", "/v1/virtual-keys/main", undefined, workspaceKey)).body).toMatchObject({
      masked_key: back.body.masked_key,
      note: "via providers"
    })
    expect((await statusOf({ "x-portkey-virtual-key": "main" })).status).toBe(200)

    // A create makes the pair; a provider may not take its slug; a delete removes both.
    const created = await call(
      "POST",
      "/v1/virtual-keys",
      { name: "Fresh", slug: "fresh", provider: "openai", key: "sk-good" },
      workspaceKey
    )
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    checkPortkeyAnswer("post", "/virtual-keys", created.body)
    const freshId: string = created.body.id
    expect((await call("GET", `/v1/integrations/${freshId}`)).body).toMatchObject({
      slug: "fresh",
      workspace_id: server.workspaceId
    })
    expect((await call("GET", "/v1/providers/fresh", undefined, workspaceKey)).body.integration_id).toBe(freshId)
    expect((await statusOf({ "x-portkey-provider": "@fresh" })).status).toBe(200)
    const clash = await server.send("POST", "/v1/providers", {
      name: "Clash",
      slug: "fresh",
      integration_id: freshId,
      workspace_id: server.workspaceId
    })
    expect(clash.status).toBe(409)
    expect((await server.send("DELETE", `/v1/integrations/${old.mainId}`, undefined)).status).toBe(409)
    const deleted = await call("DELETE", "/v1/virtual-keys/fresh", undefined, workspaceKey)
    expect(deleted.body).toMatchObject({ id: freshId, object: "virtual-key", deleted: true })
    for (const path of [`/v1/integrations/${freshId}`, `/v1/providers/${freshId}`, `/v1/virtual-keys/${freshId}`]) {
      expect((await server.send("GET", path, undefined)).status, path).toBe(404)
    }
    const audit = await call("GET", "/v1/audit-logs?resource_type=virtual_key&page_size=100")
    expect(
      audit.body.records.map((r: { action: string; response_status_code: number }) => r.action).sort()
    ).toEqual(expect.arrayContaining(["create", "delete", "update"]))
  })
})
