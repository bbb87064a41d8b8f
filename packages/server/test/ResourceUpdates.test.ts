/**
 * The update routes of API keys, virtual keys and configs (each audited), and slug-or-id addressing of
 * virtual keys, configs and partials in the caller's workspace, or the one `workspace_id` names.
 */
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { providerRegistry } from "../src/App.ts"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

let server: TestServer
let primary: FakeProvider
let custom: FakeProvider
let workspaceKey: string
let otherWorkspaceId: string

const send = (method: string, path: string, body: unknown, key?: string) => server.send(method, path, body, key)
const read = (path: string, key?: string) => server.request(path, { key })

const WORKSPACE_SCOPES = [
  "completions.write",
  "virtual_keys.create",
  "virtual_keys.read",
  "virtual_keys.update",
  "virtual_keys.delete",
  "configs.create",
  "configs.read",
  "configs.update",
  "configs.delete",
  "prompts.create",
  "prompts.read",
  "prompts.update",
  "api_keys.list",
  "api_keys.update",
  "workspace_service_api_keys.create"
]

beforeAll(async () => {
  ;[primary, custom] = await Promise.all([startFakeProvider("primary"), startFakeProvider("custom")])
  server = await startTestServer({
    providers: {
      registry: providerRegistry({
        providerBaseUrls: [["openai", primary.baseUrl]],
        upstreamTimeoutMs: 10_000,
        trustedCustomHosts: [custom.host]
      }),
      masterKey: new Uint8Array(randomBytes(32))
    }
  })
  const created = await jsonOf(
    await send("POST", "/v1/api-keys/workspace/service", {
      name: "workspace",
      workspace_id: server.workspaceId,
      scopes: WORKSPACE_SCOPES
    })
  )
  workspaceKey = created.key
  otherWorkspaceId = (await jsonOf(await send("POST", "/v1/workspaces", { name: "Elsewhere" }))).id
})
afterAll(async () => {
  await server.close()
  await Promise.all([primary.close(), custom.close()])
})

const auditRecord = async (resourceType: string, resourceId: string) => {
  const { records } = await jsonOf(
    await read(`/v1/audit-logs?resource_type=${resourceType}&action=update&page_size=1000`)
  )
  return records.find((r: { resource_id: string }) => r.resource_id === resourceId)
}

describe("PUT /v1/api-keys/{id}", () => {
  const createKey = async (scopes: Array<string>, key?: string) =>
    jsonOf(
      await send("POST", "/v1/api-keys/workspace/service", { name: "k", workspace_id: server.workspaceId, scopes }, key)
    )

  it("changes the name, description, expiry and scopes, at once, and audits the change", async () => {
    const made = await createKey(["prompts.read", "prompts.list"])
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString()
    const response = await send("PUT", `/v1/api-keys/${made.id}`, {
      name: "renamed",
      description: "for the nightly job",
      scopes: ["prompts.read"],
      expires_at: expiresAt
    })
    expect(response.status).toBe(200)
    expect(await jsonOf(response)).toMatchObject({
      id: made.id,
      object: "api-key",
      name: "renamed",
      description: "for the nightly job",
      scopes: ["prompts.read"],
      expires_at: expiresAt
    })
    // The narrowed key may no longer list prompts, without waiting for the key cache.
    const refused = await errorOf(await read(`/v1/prompts?workspace_id=${server.workspaceId}`, made.key))
    expect(refused).toMatchObject({ status: 403, code: "forbidden" })
    expect(await auditRecord("api_key", made.id)).toMatchObject({ response_status_code: 200 })
  })

  it("never gives scopes past the caller's own, as at creation", async () => {
    const made = await createKey(["prompts.read"], workspaceKey)
    const widened = await errorOf(
      await send("PUT", `/v1/api-keys/${made.id}`, { scopes: ["prompts.read", "prompts.delete"] }, workspaceKey)
    )
    expect(widened).toMatchObject({ status: 403, code: "forbidden" })
    expect(widened.message).toContain("prompts.delete")
    const within = await send("PUT", `/v1/api-keys/${made.id}`, { scopes: ["prompts.create"] }, workspaceKey)
    expect((await jsonOf(within)).scopes).toEqual(["prompts.create"])
  })

  it("refuses unknown scopes, a past expiry, another workspace's key and a revoked key", async () => {
    const made = await createKey(["prompts.read"])
    expect(await errorOf(await send("PUT", `/v1/api-keys/${made.id}`, { scopes: ["nope"] }))).toMatchObject({
      status: 400,
      param: "scopes"
    })
    const past = await errorOf(await send("PUT", `/v1/api-keys/${made.id}`, { expires_at: "2001-01-01T00:00:00Z" }))
    expect(past).toMatchObject({ status: 400, param: "expires_at" })
    // An admin key is no workspace key's to see.
    const admin = await jsonOf(
      await send("POST", "/v1/api-keys/organisation/service", { name: "a", scopes: ["prompts.read"] })
    )
    expect((await errorOf(await send("PUT", `/v1/api-keys/${admin.id}`, { name: "x" }, workspaceKey))).status).toBe(404)
    await send("DELETE", `/v1/api-keys/${made.id}`, undefined)
    expect(await errorOf(await send("PUT", `/v1/api-keys/${made.id}`, { name: "again" }))).toMatchObject({
      status: 400
    })
  })
})

describe("virtual keys by id or slug, and their updates", () => {
  const jobs = (headers: Record<string, string>) =>
    server.request("/v1/fine_tuning/jobs", { key: workspaceKey, headers })

  it("reads, updates and deletes by slug in the caller's workspace, or the one workspace_id names", async () => {
    const made = await jsonOf(
      await send("POST", "/v1/virtual-keys", { name: "Rotating", provider: "openai", key: "sk-old" }, workspaceKey)
    )
    expect((await jsonOf(await read(`/v1/virtual-keys/${made.slug}`, workspaceKey))).id).toBe(made.id)
    // An admin key has no workspace of its own: it finds a slug only one of its workspaces has (Slugs.test.ts).
    expect((await jsonOf(await read(`/v1/virtual-keys/${made.slug}`))).id).toBe(made.id)
    expect((await jsonOf(await read(`/v1/virtual-keys/${made.slug}?workspace_id=${server.workspaceId}`))).id).toBe(
      made.id
    )
    expect((await jsonOf(await read(`/v1/virtual-keys/${made.id}`))).id).toBe(made.id)

    expect((await errorOf(await jobs({ "x-service-virtual-key": made.slug }))).status).toBe(401)
    const rotated = await send(
      "PUT",
      `/v1/virtual-keys/${made.slug}`,
      { name: "Rotated", key: "sk-good" },
      workspaceKey
    )
    expect(await jsonOf(rotated)).toMatchObject({ id: made.id, object: "virtual-key", name: "Rotated" })
    expect((await jobs({ "x-service-virtual-key": made.slug })).status).toBe(200)
    const record = await auditRecord("virtual_key", made.id)
    expect(record.request_body).toEqual({ name: "Rotated", key: "[REDACTED]" })

    const gone = await send("DELETE", `/v1/virtual-keys/${made.slug}`, undefined, workspaceKey)
    expect(await jsonOf(gone)).toMatchObject({ id: made.id, deleted: true })
  })

  it("moves a key to a new custom host only with the key in the same request", async () => {
    const made = await jsonOf(
      await send("POST", "/v1/virtual-keys", { name: "Hosted", provider: "openai", key: "sk-good" }, workspaceKey)
    )
    const path = `/v1/virtual-keys/${made.slug}`
    const alone = await errorOf(await send("PUT", path, { custom_host: custom.baseUrl }, workspaceKey))
    expect(alone).toMatchObject({ status: 400, param: "custom_host" })
    const shape = await errorOf(await send("PUT", path, { custom_host: "ftp://x", key: "sk-good" }, workspaceKey))
    expect(shape).toMatchObject({ status: 400, param: "custom_host" })
    const moved = await send("PUT", path, { custom_host: custom.baseUrl, key: "sk-good" }, workspaceKey)
    expect((await jsonOf(moved)).custom_host).toBe(custom.baseUrl)
    const listed = await jsonOf(await jobs({ "x-service-virtual-key": made.slug }))
    expect(listed.data[0].id).toBe("ftjob-custom-000")
    // Back to the provider's base URL: the stored key may go there, where it was first stored for.
    const back = await send("PUT", path, { custom_host: null, key: "sk-good" }, workspaceKey)
    expect((await jsonOf(back)).custom_host).toBeNull()
  })

  it("hides another workspace's key, named by slug or by id, as another organisation's", async () => {
    const theirs = await jsonOf(
      await send("POST", "/v1/virtual-keys", {
        name: "Theirs",
        provider: "openai",
        key: "sk-x",
        workspace_id: otherWorkspaceId
      })
    )
    for (const path of [`/v1/virtual-keys/${theirs.id}`, `/v1/virtual-keys/theirs?workspace_id=${otherWorkspaceId}`]) {
      expect(await errorOf(await read(path, workspaceKey))).toMatchObject({ status: 404, code: "not_found" })
      expect((await errorOf(await send("PUT", path, { name: "mine" }, workspaceKey))).status).toBe(404)
    }
  })
})

describe("configs by id or slug, and their updates", () => {
  it("renames, and replaces the config whole after checking it", async () => {
    const made = await jsonOf(
      await send("POST", "/v1/configs", {
        name: "Routing",
        config: { provider: "openai", api_key: "sk-good" }
      }, workspaceKey)
    )
    const path = `/v1/configs/${made.slug}`
    const invalid = await errorOf(await send("PUT", path, { config: { provider: "openai", retry: 3 } }, workspaceKey))
    expect(invalid).toMatchObject({ status: 400, param: "config.retry" })
    const unknownProvider = await errorOf(await send("PUT", path, { config: { provider: "nope" } }, workspaceKey))
    expect(unknownProvider).toMatchObject({ status: 400, param: "config.provider" })
    const replaced = await send("PUT", path, { name: "By key", config: { virtual_key: "main" } }, workspaceKey)
    expect(await jsonOf(replaced)).toMatchObject({
      id: made.id,
      object: "config",
      name: "By key",
      config: { virtual_key: "main" },
      masked_api_key: null
    })
    expect((await jsonOf(await read(path, workspaceKey))).config).toEqual({ virtual_key: "main" })
    const record = await auditRecord("config", made.id)
    expect(record.request_body).toEqual({ name: "By key", config: { virtual_key: "main" } })
    expect((await jsonOf(await send("DELETE", path, undefined, workspaceKey))).deleted).toBe(true)
  })
})

describe("partials by id or slug", () => {
  it("are read by slug in the caller's workspace, or the one workspace_id names", async () => {
    const made = await jsonOf(
      await send("POST", "/v1/prompts/partials", { name: "Greeting", string: "Hi." }, workspaceKey)
    )
    expect((await jsonOf(await read(`/v1/prompts/partials/${made.slug}`, workspaceKey))).id).toBe(made.id)
    const path = `/v1/prompts/partials/${made.slug}?workspace_id=${server.workspaceId}`
    expect((await jsonOf(await read(path))).id).toBe(made.id)
    expect((await errorOf(await read(`/v1/prompts/partials/${made.slug}?workspace_id=${otherWorkspaceId}`))).status)
      .toBe(404)
  })
})
