/**
 * An integration's capabilities, from real MCP servers built with the SDK: sync (every list, every cursor),
 * list with type, search and pages, toggles, and re-syncs that keep the toggles; on every store.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type McpGateway, startMcpGateway } from "./support/McpGateway.ts"
import { type SdkMcpServer, SMALL_CATALOGUE, startSdkMcpServer } from "./support/SdkMcpServer.ts"
import { availableStores, errorOf, jsonOf } from "./support/TestServer.ts"

describe.each(availableStores)("MCP capabilities on %s", (store) => {
  let small: SdkMcpServer
  let paged: SdkMcpServer
  let gateway: McpGateway

  beforeAll(async () => {
    ;[small, paged] = await Promise.all([startSdkMcpServer(), startSdkMcpServer({ paged: 23, pageSize: 5 })])
    gateway = await startMcpGateway({ store, trusted: [small.host, paged.host] })
  })
  afterAll(async () => {
    await gateway?.close()
    await Promise.all([small, paged].map((s) => s?.close()))
  })

  const sync = (integrationId: string, key?: string) =>
    gateway.server.send("POST", `/v1/mcp-integrations/${integrationId}/capabilities/sync`, undefined, key)
  const list = async (integrationId: string, query = "") =>
    jsonOf(await gateway.server.request(`/v1/mcp-integrations/${integrationId}/capabilities?${query}`))
  const toggle = (integrationId: string, capabilities: ReadonlyArray<Record<string, unknown>>, key?: string) =>
    gateway.server.send("PUT", `/v1/mcp-integrations/${integrationId}/capabilities`, { capabilities }, key)
  const states = async (integrationId: string) =>
    Object.fromEntries(
      (await list(integrationId, "page_size=1000")).data.map((
        c: { name: string; enabled: boolean }
      ) => [c.name, c.enabled])
    )

  for (const transport of ["http", "sse"] as const) {
    it(`syncs tools, prompts and resources over ${transport}, toggles, and keeps toggles on a re-sync`, async () => {
      const { integrationId } = await gateway.register(transport === "http" ? small.httpUrl : small.sseUrl, transport)
      const first = await sync(integrationId)
      expect(first.status).toBe(200)
      expect(await jsonOf(first)).toMatchObject({ total: 4, added: 4, removed: 0 })
      const listed = await list(integrationId)
      expect(listed.total).toBe(4)
      expect(listed.has_more).toBe(false)
      expect(listed.data.map((c: { type: string; name: string }) => ({ type: c.type, name: c.name }))).toEqual(
        SMALL_CATALOGUE
      )
      const byName = Object.fromEntries(listed.data.map((c: { name: string }) => [c.name, c]))
      expect(byName.search).toMatchObject({ type: "tool", description: "Searches the issues", enabled: true })
      expect(byName.search.input_schema.properties.query).toMatchObject({ type: "string" })
      expect(byName.summarise.input_schema).toMatchObject({ type: "object", required: ["text"] })
      expect(byName["file:///readme.md"]).not.toHaveProperty("input_schema")

      const toggled = await toggle(integrationId, [
        { type: "tool", name: "search", enabled: false },
        { type: "resource", name: "file:///readme.md", enabled: false }
      ])
      expect(toggled.status).toBe(200)
      expect((await jsonOf(toggled)).data.map((c: { name: string; enabled: boolean }) => [c.name, c.enabled])).toEqual([
        ["file:///readme.md", false],
        ["search", false]
      ])
      expect(await jsonOf(await sync(integrationId))).toMatchObject({ total: 4, added: 0, removed: 0 })
      expect(await states(integrationId)).toEqual({
        summarise: true,
        "file:///readme.md": false,
        create_issue: true,
        search: false
      })
    })
  }

  it("starts new capabilities disabled when the integration says so, keeping what was turned on", async () => {
    const { integrationId } = await gateway.register(small.httpUrl, "http", { new_capabilities_enabled: false })
    await sync(integrationId)
    expect(Object.values(await states(integrationId))).toEqual([false, false, false, false])
    await toggle(integrationId, [{ type: "tool", name: "search", enabled: true }])
    await sync(integrationId)
    expect(await states(integrationId)).toMatchObject({ search: true, create_issue: false })
  })

  it("follows every list's cursor, and pages, filters and searches what it stored", async () => {
    const { integrationId } = await gateway.register(paged.httpUrl, "http")
    // 23 of each kind, 5 to a page: only a client that follows the cursors finds them all.
    expect(await jsonOf(await sync(integrationId))).toMatchObject({ total: 92, added: 92 })
    const tools = await list(integrationId, "type=tool&page_size=10&current_page=0")
    expect([tools.total, tools.has_more, tools.data.length]).toEqual([23, true, 10])
    expect(tools.data[0].name).toBe("tool-000")
    const last = await list(integrationId, "type=tool&page_size=10&current_page=2")
    expect([last.has_more, last.data.map((c: { name: string }) => c.name)]).toEqual([false, [
      "tool-020",
      "tool-021",
      "tool-022"
    ]])
    const templates = await list(integrationId, "type=resource_template&page_size=1")
    expect([templates.total, templates.data[0].name]).toEqual([23, "file:///dir-000/{name}"])
    const found = await list(integrationId, "search=PROMPT-01")
    expect(found.data.map((c: { name: string }) => c.name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `prompt-01${i}`)
    )
    const all = await list(integrationId, "page_size=1000")
    expect(all.data.map((c: { type: string }) => c.type)).toEqual([
      ...Array(23).fill("prompt"),
      ...Array(23).fill("resource"),
      ...Array(23).fill("resource_template"),
      ...Array(23).fill("tool")
    ])
  })

  it("refuses unknown capabilities, archived integrations and keys without the scope", async () => {
    const { integrationId } = await gateway.register(small.httpUrl, "http")
    await sync(integrationId)
    const unknown = await toggle(integrationId, [
      { type: "tool", name: "search", enabled: false },
      { type: "prompt", name: "search", enabled: false }
    ])
    expect(await errorOf(unknown)).toMatchObject({ status: 400, param: "capabilities[1]" })
    expect((await states(integrationId)).search).toBe(true)

    const reader = await jsonOf(
      await gateway.server.send("POST", "/v1/api-keys/workspace/service", {
        name: "reader",
        workspace_id: gateway.server.workspaceId,
        scopes: ["workspace_mcp_integrations.read"]
      })
    )
    expect(
      (await gateway.server.request(`/v1/mcp-integrations/${integrationId}/capabilities`, { key: reader.key })).status
    )
      .toBe(200)
    expect(await errorOf(await sync(integrationId, reader.key))).toMatchObject({ status: 403 })
    expect(await errorOf(await toggle(integrationId, [{ type: "tool", name: "search", enabled: false }], reader.key)))
      .toMatchObject({ status: 403 })

    await gateway.server.send("DELETE", `/v1/mcp-integrations/${integrationId}`, undefined)
    expect(await errorOf(await sync(integrationId))).toMatchObject({ status: 400 })
  })

  it("answers 502 when the server cannot be used, and records the sync's outcome", async () => {
    const down = await startSdkMcpServer()
    down.failing = true
    const own = await startMcpGateway({ store: "memory", trusted: [down.host] })
    try {
      const { integrationId } = await own.register(down.httpUrl, "http")
      const failed = await own.server.send("POST", `/v1/mcp-integrations/${integrationId}/capabilities/sync`, undefined)
      expect(await errorOf(failed)).toMatchObject({ status: 502, code: "upstream_error" })
      const records = await jsonOf(await own.server.request("/v1/audit-logs?resource_type=mcp_integration&action=sync"))
      expect(records.records.map((r: { response_status_code: number }) => r.response_status_code)).toEqual([502])
    } finally {
      await own.close()
      await down.close()
    }
  })
})
