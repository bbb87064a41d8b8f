import { randomBytes } from "node:crypto"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { providerRegistry } from "../src/App.ts"
import { createWorkspaceServiceKey } from "./support/ApiClient.ts"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import { createConfig, createVirtualKey } from "./support/FineTuningGateway.ts"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

let server: TestServer
let primary: FakeProvider
let custom: FakeProvider
let configHost: FakeProvider
let keyHost: FakeProvider
let workspaceKey: string

// Stored keys, configs and API keys are made through the typed client (a success is a 201 with the declared body,
// a refusal's `_tag` stands for its status). The job listing stays raw HTTP: the provider is chosen by headers.
const jobs = (headers: Record<string, string>, query = "", key = workspaceKey) =>
  server.request(`/v1/fine_tuning/jobs${query}`, { key, headers })

/** A workspace service key of the server's workspace with `scopes`. */
const createWorkspaceKey = (name: string, scopes: Array<string>) =>
  server.api(createWorkspaceServiceKey(name, server.workspaceId, scopes))

beforeAll(async () => {
  ;[primary, custom, configHost, keyHost] = await Promise.all(
    ["primary", "custom", "config", "vkey"].map((n) => startFakeProvider(n))
  )
  server = await startTestServer({
    providers: {
      registry: providerRegistry({
        providerBaseUrls: [["openai", primary.baseUrl]],
        upstreamTimeoutMs: 30_000,
        trustedCustomHosts: [custom.host, configHost.host, keyHost.host, "127.0.0.1:9"]
      }),
      masterKey: new Uint8Array(randomBytes(32))
    }
  })
  workspaceKey = (await createWorkspaceKey("ft", [
    "completions.write",
    "virtual_keys.create",
    "virtual_keys.read",
    "virtual_keys.list",
    "configs.create",
    "configs.read"
  ])).key
  await server.api(createVirtualKey({ name: "main", slug: "main", provider: "openai", key: "sk-good" }), workspaceKey)
  await server.api(
    createVirtualKey({
      name: "hosted",
      slug: "hosted",
      provider: "openai",
      key: "sk-good",
      custom_host: keyHost.baseUrl
    }),
    workspaceKey
  )
  for (
    const config of [
      { name: "direct", slug: "direct", config: { provider: "openai", api_key: "sk-good" } },
      { name: "via key", slug: "via-key", config: { virtual_key: "hosted" } },
      { name: "host only", slug: "host-only", config: { custom_host: configHost.baseUrl } },
      { name: "slow", slug: "slow", config: { provider: "openai", api_key: "sk-slow", request_timeout: 300 } }
    ]
  ) {
    await server.api(createConfig(config), workspaceKey)
  }
})
afterAll(async () => {
  await server.close()
  await Promise.all([primary, custom, configHost, keyHost].map((p) => p.close()))
})

const firstJobOf = async (response: Response) => {
  expect(response.status, await response.clone().text()).toBe(200)
  const body = await jsonOf(response)
  expect(body.object).toBe("list")
  return String(body.data[0].id)
}

describe("choosing the provider", () => {
  it("1: a virtual key, by x-service-virtual-key or x-service-provider: @slug", async () => {
    expect(await firstJobOf(await jobs({ "x-service-virtual-key": "main" }))).toMatch(/^ftjob-primary/)
    expect(await firstJobOf(await jobs({ "x-service-provider": "@main" }))).toMatch(/^ftjob-primary/)
    expect(primary.requests.at(-1)?.authorization).toBe("Bearer sk-good")
  })

  it("2: x-service-provider with Authorization", async () => {
    expect(await firstJobOf(await jobs({ "x-service-provider": "openai", authorization: "Bearer sk-good" }))).toMatch(
      /^ftjob-primary/
    )
  })

  it("3: a config, by slug or inline JSON; one naming no provider uses the headers", async () => {
    expect(await firstJobOf(await jobs({ "x-service-config": "direct" }))).toMatch(/^ftjob-primary/)
    const inline = JSON.stringify({ provider: "openai", api_key: "sk-good" })
    expect(await firstJobOf(await jobs({ "x-service-config": inline }))).toMatch(/^ftjob-primary/)
    expect(await firstJobOf(await jobs({ "x-service-config": "via-key" }))).toMatch(/^ftjob-vkey/)
    const headersToo = {
      "x-service-config": "host-only",
      "x-service-provider": "openai",
      authorization: "Bearer sk-good"
    }
    expect(await firstJobOf(await jobs(headersToo))).toMatch(/^ftjob-config/)
  })

  it("4: x-service-provider, Authorization and x-service-custom-host", async () => {
    const headers = {
      "x-service-provider": "openai",
      authorization: "Bearer sk-good",
      "x-service-custom-host": custom.baseUrl
    }
    expect(await firstJobOf(await jobs(headers))).toMatch(/^ftjob-custom/)
  })

  it("sends a stored key to its own host; a request's key to the header's host, then the config's", async () => {
    expect(await firstJobOf(await jobs({ "x-service-virtual-key": "hosted" }))).toMatch(/^ftjob-vkey/)
    const requestKey = { "x-service-provider": "openai", authorization: "Bearer sk-good" }
    expect(await firstJobOf(await jobs({ ...requestKey, "x-service-config": "host-only" }))).toMatch(/^ftjob-config/)
    expect(
      await firstJobOf(
        await jobs({ ...requestKey, "x-service-config": "host-only", "x-service-custom-host": custom.baseUrl })
      )
    ).toMatch(/^ftjob-custom/)
  })

  it("explains the four ways when none is given, and names what is unknown", async () => {
    const none = await errorOf(await jobs({}))
    expect(none).toMatchObject({ status: 400, code: "invalid_request" })
    expect(none.message).toContain("x-service-virtual-key")
    expect(none.message).toContain("x-service-custom-host")
    const unknownProvider = await errorOf(await jobs({ "x-service-provider": "acme-ai", authorization: "Bearer x" }))
    expect(unknownProvider.message).toContain("openai")
    expect((await errorOf(await jobs({ "x-service-virtual-key": "nope" }))).message).toContain("'nope'")
    expect((await errorOf(await jobs({ "x-service-config": "nope" }))).message).toContain("'nope'")
    expect((await errorOf(await jobs({ "x-service-provider": "openai" }))).param).toBe("authorization")
  })

  it("names the headers the client wrote, and the inline config's fields under x-service-config", async () => {
    const none = await errorOf(await jobs({}))
    expect(none.param).toBeNull()
    expect(none.message).toContain("Authorization: Bearer <provider key>")
    const noKey = await errorOf(await jobs({ "x-service-provider": "openai", authorization: "Basic abc" }))
    expect(noKey).toMatchObject({ param: "authorization" })
    expect(noKey.message).toContain("'Authorization: Bearer <key>'")
    expect((await errorOf(await jobs({ "x-service-provider": "acme-ai" }))).param).toBe("x-service-provider")
    // `@slug` in the provider header: the error names that header, as the client wrote it.
    expect((await errorOf(await jobs({ "x-service-provider": "@nope" }))).param).toBe("x-service-provider")
    expect((await errorOf(await jobs({ "x-service-virtual-key": "nope" }))).param).toBe("x-service-virtual-key")
    const inline = (config: unknown) => jobs({ "x-service-config": JSON.stringify(config) })
    expect((await errorOf(await inline({ provider: "openai", api_key: 7 }))).param).toBe("x-service-config.api_key")
    expect((await errorOf(await inline({ retries: 3 }))).param).toBe("x-service-config.retries")
    expect((await errorOf(await inline({ provider: "acme-ai", api_key: "k" }))).param).toBe("x-service-config")
    const notJson = await errorOf(await jobs({ "x-service-config": "{not json" }))
    expect(notJson).toMatchObject({ param: "x-service-config" })
    expect(notJson.message).toContain("x-service-config")
    const elsewhere = await errorOf(
      await jobs({ "x-service-virtual-key": "main", "x-service-custom-host": custom.baseUrl })
    )
    expect(elsewhere).toMatchObject({ param: "x-service-custom-host" })
    expect(elsewhere.message).toContain("virtual key 'main'")
    expect(elsewhere.message).toContain("x-service-provider with Authorization")
  })

  it("is for workspace keys with completions.write", async () => {
    expect((await errorOf(await jobs({ "x-service-virtual-key": "main" }, "", server.adminKey))).status).toBe(403)
    const narrow = await createWorkspaceKey("no write", ["virtual_keys.read"])
    const denied = await errorOf(await jobs({ "x-service-virtual-key": "main" }, "", narrow.key))
    expect(denied.status).toBe(403)
    expect(denied.message).toContain("completions.write")
  })
})

describe("the call", () => {
  it("forwards limit and after, defaulting limit to 20", async () => {
    await jobs({ "x-service-virtual-key": "main" }, "?limit=2&after=ftjob-primary-001")
    const forwarded = new URL(primary.requests.at(-1)!.url, "http://x").searchParams
    expect([forwarded.get("limit"), forwarded.get("after")]).toEqual(["2", "ftjob-primary-001"])
    await jobs({ "x-service-virtual-key": "main" })
    expect(new URL(primary.requests.at(-1)!.url, "http://x").searchParams.get("limit")).toBe("20")
  })

  it("keeps fields the specification does not name", async () => {
    const body = await jsonOf(await jobs({ "x-service-virtual-key": "main" }, "?limit=1"))
    expect(body).toEqual({
      object: "list",
      has_more: true,
      data: [expect.objectContaining({ user_provided_suffix: "extra-field-kept" })]
    })
  })

  // A query parameter named like a selection field keeps its own name (it is no header).
  it.each([["?limit=0", "limit"], ["?limit=101", "limit"], ["?order=desc", "order"], ["?provider=openai", "provider"]])(
    "refuses %s",
    async (query, param) => {
      expect(await errorOf(await jobs({ "x-service-virtual-key": "main" }, query))).toMatchObject({
        status: 400,
        param
      })
    }
  )

  it("passes an upstream 401 or 429 through with its status and body", async () => {
    const unauthorized = await jobs({ "x-service-provider": "openai", authorization: "Bearer sk-wrong" })
    expect(unauthorized.status).toBe(401)
    expect((await jsonOf(unauthorized)).error.message).toBe("Incorrect API key provided")
    const limited = await jobs({ "x-service-provider": "openai", authorization: "Bearer sk-429" })
    expect(limited.status).toBe(429)
    expect((await jsonOf(limited)).error.message).toBe("Rate limit reached")
  })

  it("answers 502 when the provider's body is not a job list, or the provider is unreachable", async () => {
    expect(await errorOf(await jobs({ "x-service-provider": "openai", authorization: "Bearer sk-broken" })))
      .toMatchObject({
        status: 502,
        code: "upstream_error"
      })
    const refused = {
      "x-service-provider": "openai",
      authorization: "Bearer sk-good",
      "x-service-custom-host": "http://127.0.0.1:9/v1"
    }
    expect(await errorOf(await jobs(refused))).toMatchObject({ status: 502, code: "upstream_error" })
  })

  it("answers 504 when the provider is slower than the timeout", async () => {
    expect(await errorOf(await jobs({ "x-service-config": "slow" }))).toMatchObject({
      status: 504,
      code: "upstream_timeout"
    })
  })
})

describe("custom hosts and SSRF", () => {
  it.each([
    ["loopback", "http://127.0.0.1:8080/v1"],
    ["a name resolving to loopback", "http://localhost:8080/v1"],
    ["the metadata address", "http://169.254.169.254/latest"],
    ["a private network", "http://10.1.2.3/v1"],
    ["IPv6 loopback", "http://[::1]:8080/v1"],
    ["a non-http scheme", "file:///etc/passwd"],
    ["credentials in the URL", "http://user:pass@example.com/v1"]
  ])("refuses %s with 400", async (_, host) => {
    const error = await errorOf(
      await jobs({ "x-service-provider": "openai", authorization: "Bearer sk-good", "x-service-custom-host": host })
    )
    expect(error).toMatchObject({ status: 400, code: "invalid_request", param: "x-service-custom-host" })
  })

  it("applies the same rule to stored virtual keys and configs, at use time", async () => {
    await server.api(
      createVirtualKey({
        name: "inside",
        slug: "inside",
        provider: "openai",
        key: "sk-good",
        custom_host: "http://127.0.0.1:1/v1"
      }),
      workspaceKey
    )
    expect((await errorOf(await jobs({ "x-service-virtual-key": "inside" }))).status).toBe(400)
  })
})

describe("stored provider keys", () => {
  it("are masked on every read and redacted in the audit log", async () => {
    const created = await server.api(
      createVirtualKey({ name: "secret one", provider: "openai", key: "sk-live-1234567890abcdef" }),
      workspaceKey
    )
    // Raw HTTP: what the bodies hold, beyond what the schemas decode.
    const read = await jsonOf(await server.request(`/v1/virtual-keys/${created.id}`, { key: workspaceKey }))
    expect(read.masked_key).toBe("sk-l****cdef")
    expect(JSON.stringify(read)).not.toContain("1234567890")
    const listed = await server.request("/v1/virtual-keys", { key: workspaceKey })
    expect(await listed.text()).not.toContain("1234567890")
    const config = await jsonOf(
      await server.request("/v1/configs?page_size=1000", { key: workspaceKey }).then((r) => r)
    )
    expect(JSON.stringify(config)).not.toContain("sk-good")
    const audit = await server.request("/v1/audit-logs?resource_type=virtual_key&page_size=1000")
    const text = await audit.text()
    expect(text).toContain("[REDACTED]")
    expect(text).not.toContain("1234567890")
  })

  it("refuses unknown providers, bad hosts and configs with more than one target", async () => {
    const unknownProvider = await server.refusal(
      createVirtualKey({ name: "x", provider: "acme-ai", key: "k" }),
      workspaceKey
    )
    expect(unknownProvider).toMatchObject({ _tag: "BadRequest", param: "provider" })
    const badHost = await server.refusal(
      createVirtualKey({ name: "y", provider: "openai", key: "k", custom_host: "ftp://x" }),
      workspaceKey
    )
    expect(badHost).toMatchObject({ _tag: "BadRequest", param: "custom_host" })
    const twoTargets = await server.refusal(
      createConfig({
        name: "two",
        config: { targets: [{ provider: "openai", api_key: "a" }, { provider: "openai", api_key: "b" }] }
      }),
      workspaceKey
    )
    // A provider key is stored at a config's top level only, for its one destination.
    expect(twoTargets).toMatchObject({ _tag: "BadRequest", param: "config.targets[0].api_key" })
    // Portkey's fallback over two virtual keys is a config to store; a fine-tuning listing takes one target.
    const fallback = {
      strategy: { mode: "fallback", on_status_codes: [429] },
      targets: [{ virtual_key: "a" }, { virtual_key: "b" }]
    }
    await server.api(createConfig({ name: "fallback", config: fallback }), workspaceKey)
    for (const header of ["fallback", JSON.stringify(fallback)]) {
      const refused = await errorOf(await jobs({ "x-service-config": header }))
      expect(refused).toMatchObject({ status: 400, message: "Maximum one target is allowed for fine_tuning requests" })
    }
    const oddConfig = await server.refusal(createConfig({ name: "odd", config: { retries: 3 } }), workspaceKey)
    expect(oddConfig).toMatchObject({ _tag: "BadRequest", param: "config.retries" })
  })
})

describe("the official openai client", () => {
  it("walks every page with auto-pagination", async () => {
    // #region readme-openai
    const client = new OpenAI({
      apiKey: "sk-good",
      baseURL: `${server.baseUrl}/v1`,
      defaultHeaders: { "x-service-api-key": workspaceKey, "x-service-provider": "openai" },
      maxRetries: 0
    })
    const seen: Array<string> = []
    for await (const job of client.fineTuning.jobs.list({ limit: 3 })) seen.push(job.id)
    // #endregion readme-openai
    expect(seen).toEqual(Array.from({ length: 7 }, (_, i) => `ftjob-primary-${String(i).padStart(3, "0")}`))
    const pageRequests = primary.requests.filter((r) => r.url.includes("limit=3"))
    expect(pageRequests.length).toBe(3)
  })
})
