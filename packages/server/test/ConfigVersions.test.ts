/**
 * Configs as Portkey's Node SDK drives them, at its defaults, with an admin key and with a workspace key:
 * Portkey's whole config schema (`retry`, `cache`, `strategy` with `targets`, `override_params`, …) stored and
 * returned verbatim, refused with 400 naming the field when its shape is wrong; a version per create and
 * update (`GET /v1/configs/{slug}/versions`), and `is_default`. Answers are checked against Portkey's OpenAPI
 * response schemas; config answers stay flat, as the SDK declares them.
 */
import { ScopeNames } from "@gateway-control/domain"
import { Portkey } from "portkey-ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkPortkeyAnswer } from "./support/PortkeyOpenApi.ts"
import {
  availableStores,
  errorOf,
  jsonOf,
  openAiProviderAt,
  startTestServer,
  type TestServer
} from "./support/TestServer.ts"

const ROUTING = {
  retry: { attempts: 3, on_status_codes: [429, 503], use_retry_after_header: true },
  cache: { mode: "semantic", max_age: 3600 },
  strategy: { mode: "fallback", on_status_codes: [429, 500] },
  targets: [
    { virtual_key: "main", override_params: { model: "gpt-4o-mini" }, weight: 0.7 },
    { provider: "openai", virtual_key: "backup", retry: { attempts: 1 }, targets: undefined }
  ].map(({ targets: _, ...target }) => target),
  request_timeout: 30_000,
  input_guardrails: ["pg-check-1"],
  forward_headers: ["x-trace-id"]
}

describe.each(availableStores)("configs on %s", (store) => {
  let server: TestServer
  let admin: Portkey
  let sdk: Portkey
  let workspaceKey: string
  const client = (apiKey: string) => new Portkey({ apiKey, baseURL: `${server.baseUrl}/v1` })
  const versionsOf = async (slug: string, key?: string) =>
    jsonOf(await server.request(`/v1/configs/${slug}/versions`, { key }))

  beforeAll(async () => {
    server = await startTestServer({
      store,
      providers: openAiProviderAt()
    })
    admin = client(server.adminKey)
    const created = await admin.apiKeys.create({
      type: "workspace",
      "sub-type": "service",
      name: "configs",
      workspace_id: server.workspaceId,
      scopes: ScopeNames.filter((scope) => scope.startsWith("configs.") || scope === "completions.write")
    })
    workspaceKey = created.key!
    sdk = client(workspaceKey)
  })
  afterAll(() => server.close())

  it("Portkey's create example (retry, cache) with an admin key, and every version of its updates", async () => {
    const created = await admin.configs.create({
      name: "New config",
      config: { retry: { attempts: 3 }, cache: { mode: "simple" } },
      workspace_id: server.workspaceId,
      isDefault: 1
    })
    checkPortkeyAnswer("POST", "/configs", created)
    expect(created).toMatchObject({ id: expect.any(String), slug: "new-config", version_id: expect.any(String) })

    const retrieved = await admin.configs.retrieve({ slug: "new-config" })
    checkPortkeyAnswer("GET", "/configs/{slug}", retrieved)
    expect(retrieved).toMatchObject({
      id: created.id,
      is_default: 1,
      status: "active",
      version_id: created.version_id,
      config: { retry: { attempts: 3 }, cache: { mode: "simple" } }
    })
    expect(retrieved).not.toHaveProperty("success")

    const updated = await admin.configs.update({ slug: "new-config", config: ROUTING, status: "active" })
    checkPortkeyAnswer("PUT", "/configs/{slug}", updated)
    expect(updated.version_id).not.toBe(created.version_id)
    expect((await admin.configs.retrieve({ slug: "new-config" })).config).toEqual(ROUTING)
    await admin.configs.update({ slug: created.id, name: "Renamed" })

    const versions = await versionsOf("new-config")
    checkPortkeyAnswer("GET", "/configs/{slug}/versions", versions)
    expect(versions).toMatchObject({ object: "list", total: 3 })
    expect(versions.data.map((v: { version: number; name: string; config: string; version_id: string }) => [
      v.version,
      v.name,
      JSON.parse(v.config)
    ])).toEqual([
      [1, "New config", { retry: { attempts: 3 }, cache: { mode: "simple" } }],
      [2, "New config", ROUTING],
      [3, "Renamed", ROUTING]
    ])
    expect(versions.data[0].version_id).toBe(created.version_id)
    expect(versions.data.every((v: { id: string; object: string }) => v.id === created.id && v.object === "config"))
      .toBe(true)
  })

  it("with a workspace key: the whole schema, one default per workspace, archived configs refused by calls", async () => {
    const first = await sdk.configs.create({ name: "Routing", config: ROUTING, isDefault: 1 })
    const second = await sdk.configs.create({ name: "Routing two", config: ROUTING, isDefault: 1 })
    expect((await sdk.configs.retrieve({ slug: first.slug })).is_default).toBe(0)
    expect((await sdk.configs.retrieve({ slug: second.slug })).is_default).toBe(1)
    const listed = await sdk.configs.list()
    checkPortkeyAnswer("GET", "/configs", listed)
    expect(listed.data!.filter((c) => c.is_default === 1).map((c) => c.id)).toEqual([second.id])

    const archived = await sdk.configs.update({ slug: second.slug, status: "archived" })
    expect(archived).toMatchObject({ status: "archived" })
    const call = await errorOf(
      await server.request("/v1/fine_tuning/jobs", { key: workspaceKey, headers: { "x-service-config": second.slug! } })
    )
    expect(call).toMatchObject({
      status: 400,
      param: "x-service-config",
      message: `Config '${second.slug}' is archived.`
    })
    expect((await versionsOf(second.slug!, workspaceKey)).total).toBe(2)
  })

  it.each([
    [{ retry: 3 }, "config.retry"],
    [{ retry: { attempts: 50 } }, "config.retry.attempts"],
    [{ retry: { attempts: 2, on_status_codes: [99] } }, "config.retry.on_status_codes[0]"],
    [{ cache: { mode: "fuzzy" } }, "config.cache.mode"],
    [{ strategy: { mode: "roundrobin" } }, "config.strategy.mode"],
    [{ strategy: { mode: "fallback" }, targets: [] }, "config.targets"],
    [{ targets: [{ virtual_key: "a", weight: -1 }] }, "config.targets[0].weight"],
    [
      { targets: [{ virtual_key: "a", targets: [{ cache: { mode: "simple", max_age: "1h" } }] }] },
      "config.targets[0].targets[0].cache.max_age"
    ],
    [{ override_params: "gpt-4o" }, "config.override_params"],
    [{ retries: 3 }, "config.retries"],
    [{ targets: [{ provider: "openai", api_key: "sk-nested" }] }, "config.targets[0].api_key"],
    [{ api_key: "sk-1", targets: [{ virtual_key: "a" }, { virtual_key: "b" }] }, "config.api_key"],
    [{ targets: [{ virtual_key: "a", custom_host: "https://example.com" }] }, "config.targets[0].custom_host"],
    [{ targets: [{ provider: "nope" }] }, "config.targets[0].provider"]
  ])("refuses %j with 400 naming %s, and stores nothing", async (config, param) => {
    const refused = await errorOf(await server.send("POST", "/v1/configs", { name: "Bad", config }, workspaceKey))
    expect(refused).toMatchObject({ status: 400, code: "invalid_request", param })
    await expect(sdk.configs.retrieve({ slug: "bad" })).rejects.toMatchObject({ status: 404 })
  })
})
