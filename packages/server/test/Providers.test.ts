/**
 * Providers (Portkey's `/providers` family): a workspace's handle on an integration shared with it, and `@slug`
 * wherever a virtual key is accepted: `x-portkey-provider: @slug`, `x-service-virtual-key: slug`, an inline or
 * stored config's `provider: "@slug"` or `virtual_key`. The integration's key goes only to the integration's
 * destination; a provider stops working when its integration is no longer shared with its workspace.
 */
import { randomBytes } from "node:crypto"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { providerRegistry } from "../src/App.ts"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import { checkPortkeyAnswer } from "./support/PortkeyOpenApi.ts"
import { errorOf, startTestServer, type TestServer } from "./support/TestServer.ts"

describe("providers", () => {
  let server: TestServer
  let upstream: FakeProvider
  let elsewhere: FakeProvider
  let workspaceKey: string

  const call = async (method: string, path: string, body?: unknown, key?: string) => {
    const response = await server.send(method, path, body, key)
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
  }
  const jobs = (headers: Record<string, string>) =>
    server.request("/v1/fine_tuning/jobs?limit=2", { key: workspaceKey, headers })
  const listed = async (response: Response) => {
    const text = await response.text()
    expect(response.status, text).toBe(200)
    return JSON.parse(text).data.map((job: { id: string }) => job.id)
  }

  beforeAll(async () => {
    upstream = await startFakeProvider("integration")
    elsewhere = await startFakeProvider("elsewhere")
    server = await startTestServer({
      providers: {
        registry: providerRegistry({
          providerBaseUrls: [["openai", upstream.baseUrl]],
          upstreamTimeoutMs: 10_000,
          trustedCustomHosts: [elsewhere.host]
        }),
        masterKey: new Uint8Array(randomBytes(32))
      }
    })
    const key = await call("POST", "/v1/api-keys/workspace/service", {
      name: "providers",
      workspace_id: server.workspaceId,
      scopes: [
        "completions.write",
        "virtual_keys.create",
        "virtual_keys.read",
        "virtual_keys.list",
        "virtual_keys.update",
        "virtual_keys.delete",
        "configs.create",
        "configs.read",
        "workspace_integrations.read"
      ]
    })
    workspaceKey = key.body.key
    await call("POST", "/v1/integrations", { name: "OpenAI prod", ai_provider_id: "openai", key: "sk-good" })
    await call("POST", "/v1/integrations", {
      name: "Bedrock prod",
      ai_provider_id: "bedrock",
      configurations: {
        aws_auth_type: "assumedRole",
        aws_region: "us-east-1",
        aws_role_arn: "arn:aws:iam::123456789012:role/gw"
      }
    })
  })
  afterAll(async () => {
    await server?.close()
    await upstream?.close()
    await elsewhere?.close()
  })

  it("a workspace makes a provider only on an integration shared with it; Portkey's shapes", async () => {
    const notShared = await server.send(
      "POST",
      "/v1/providers",
      { name: "OpenAI", integration_id: "openai-prod", slug: "openai-prod" },
      workspaceKey
    )
    expect(await errorOf(notShared)).toMatchObject({ status: 400, param: "integration_id" })
    for (const slug of ["openai-prod", "bedrock-prod"]) {
      const shared = await call("PUT", `/v1/integrations/${slug}/workspaces`, {
        workspaces: [{ id: server.workspaceId, enabled: true }]
      })
      expect(shared.status).toBe(200)
    }
    const created = await call("POST", "/v1/providers", {
      name: "OpenAI",
      integration_id: "openai-prod",
      slug: "openai-prod",
      note: "prod",
      usage_limits: { credit_limit: 10, periodic_reset: "monthly", alert_threshold: 9 },
      rate_limits: [{ type: "requests", unit: "rpm", value: 100 }]
    }, workspaceKey)
    expect(created.status).toBe(201)
    checkPortkeyAnswer("post", "/providers", created.body)
    const read = await call("GET", "/v1/providers/openai-prod", undefined, workspaceKey)
    expect(read.body).toMatchObject({ slug: "openai-prod", status: "active", note: "prod", object: "provider" })
    checkPortkeyAnswer("get", "/providers/{slug}", read.body)
    const list = await call("GET", `/v1/providers?workspace_id=${server.workspaceId}`)
    expect(list.body.data.map((p: { slug: string }) => p.slug)).toEqual(["openai-prod"])
    const bedrock = await call(
      "POST",
      "/v1/providers",
      { name: "Bedrock", integration_id: "bedrock-prod", slug: "bedrock" },
      workspaceKey
    )
    expect(bedrock.status).toBe(201)
    const clash = await server.send("POST", "/v1/virtual-keys", {
      name: "x",
      slug: "openai-prod",
      provider: "openai",
      key: "sk-x"
    }, workspaceKey)
    expect(clash.status).toBe(409)
  })

  it("@slug selects the provider wherever a virtual key is accepted; its key goes to its integration's destination", async () => {
    const before = upstream.requests.length
    expect(await listed(await jobs({ "x-portkey-provider": "@openai-prod" }))).toHaveLength(2)
    expect(await listed(await jobs({ "x-service-provider": "@openai-prod" }))).toHaveLength(2)
    expect(await listed(await jobs({ "x-service-virtual-key": "openai-prod" }))).toHaveLength(2)
    expect(await listed(await jobs({ "x-portkey-config": JSON.stringify({ provider: "@openai-prod" }) }))).toHaveLength(
      2
    )
    expect(await listed(await jobs({ "x-portkey-config": JSON.stringify({ virtual_key: "openai-prod" }) })))
      .toHaveLength(2)
    for (
      const [slug, config] of [["by-provider", { provider: "@openai-prod" }], ["by-key", {
        virtual_key: "openai-prod"
      }]] as const
    ) {
      const stored = await call("POST", "/v1/configs", { name: slug, slug, config }, workspaceKey)
      expect(stored.status, JSON.stringify(stored.body)).toBe(201)
      expect(await listed(await jobs({ "x-service-config": slug }))).toHaveLength(2)
    }
    const sent = upstream.requests.slice(before)
    expect(sent).toHaveLength(7)
    expect(new Set(sent.map((r) => r.authorization))).toEqual(new Set(["Bearer sk-good"]))
    // The OpenAI SDK, as README's clients use it.
    const client = new OpenAI({
      apiKey: "unused",
      baseURL: `${server.baseUrl}/v1`,
      defaultHeaders: { "x-service-api-key": workspaceKey, "x-portkey-provider": "@openai-prod" },
      maxRetries: 0
    })
    const page = await client.fineTuning.jobs.list({ limit: 3 })
    expect(page.data).toHaveLength(3)
  })

  it("a stored key never goes to a host the call names; an unusable provider is refused naming the header", async () => {
    const elsewhereBefore = elsewhere.connections()
    const redirected = await jobs({ "x-portkey-provider": "@openai-prod", "x-portkey-custom-host": elsewhere.baseUrl })
    expect(await errorOf(redirected)).toMatchObject({ status: 400, param: "x-portkey-custom-host" })
    const paired = await jobs({
      "x-portkey-config": JSON.stringify({ provider: "@openai-prod", custom_host: elsewhere.baseUrl })
    })
    expect(await errorOf(paired)).toMatchObject({ status: 400 })
    expect(elsewhere.connections()).toBe(elsewhereBefore)
    const bedrock = await jobs({ "x-portkey-provider": "@bedrock" })
    expect(await errorOf(bedrock)).toMatchObject({ status: 400, param: "x-portkey-provider" })
    const unknown = await jobs({ "x-portkey-provider": "@nobody" })
    expect(await errorOf(unknown)).toMatchObject({ status: 400, param: "x-portkey-provider" })
    // Closing the integration to the workspace closes its providers there.
    const closed = await call("PUT", "/v1/integrations/openai-prod/workspaces", {
      workspaces: [{ id: server.workspaceId, enabled: false }]
    })
    expect(closed.status).toBe(200)
    const refused = await jobs({ "x-portkey-provider": "@openai-prod" })
    expect(await errorOf(refused)).toMatchObject({ status: 400, param: "x-portkey-provider" })
    await call("PUT", "/v1/integrations/openai-prod/workspaces", {
      workspaces: [{ id: server.workspaceId, enabled: true }]
    })
    expect(await listed(await jobs({ "x-portkey-provider": "@openai-prod" }))).toHaveLength(2)
  })

  it("expires, changes and deletes; an integration with providers is not deleted", async () => {
    const expired = await call("PUT", "/v1/providers/openai-prod", { expires_at: "2020-01-01T00:00:00Z" }, workspaceKey)
    expect(expired.body.status).toBe("expired")
    const refused = await jobs({ "x-portkey-provider": "@openai-prod" })
    expect(await errorOf(refused)).toMatchObject({ status: 400, param: "x-portkey-provider" })
    const renewed = await call(
      "PUT",
      "/v1/providers/openai-prod",
      { expires_at: null, name: "OpenAI (renamed)" },
      workspaceKey
    )
    expect(renewed.body).toMatchObject({ status: "active", name: "OpenAI (renamed)" })
    checkPortkeyAnswer("put", "/providers/{slug}", renewed.body)
    const kept = await server.send("DELETE", "/v1/integrations/bedrock-prod", undefined)
    expect(await errorOf(kept)).toMatchObject({ status: 409 })
    const deleted = await call("DELETE", "/v1/providers/bedrock", undefined, workspaceKey)
    expect(deleted.body).toMatchObject({ object: "provider", deleted: true })
    expect((await server.send("DELETE", "/v1/integrations/bedrock-prod", undefined)).status).toBe(200)
    const audit = await call("GET", "/v1/audit-logs?resource_type=provider&page_size=100")
    expect(new Set(audit.body.records.map((r: { action: string }) => r.action))).toEqual(
      new Set(["create", "update", "delete"])
    )
  })
})
