/**
 * The registry API MCP clients read (`/v0.1/servers`), on every store: the official registry's format, its
 * `server.json` rules (checked with a JSON Schema written from them), keyset paging that lists each server
 * exactly once while others are created, search, `updated_since`, deleted servers, and the key's scope.
 */
import { Ajv } from "ajv"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startMcpGateway } from "./support/McpGateway.ts"
import { availableStores, errorOf, jsonOf, type TestServer } from "./support/TestServer.ts"

/** The official `server.json` rules the issue names: reverse-DNS name, short description, version, remotes. */
const serverJsonRules = {
  type: "object",
  required: ["name", "description", "version"],
  properties: {
    name: { type: "string", minLength: 3, maxLength: 200, pattern: "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$" },
    description: { type: "string", minLength: 1, maxLength: 100 },
    title: { type: "string", minLength: 1, maxLength: 100 },
    version: { type: "string", maxLength: 255, not: { const: "latest" } },
    remotes: {
      type: "array",
      items: {
        type: "object",
        required: ["type", "url"],
        properties: {
          type: { enum: ["streamable-http", "sse"] },
          url: { type: "string", pattern: "^(https?://[^\\s]+|\\{[a-zA-Z_][a-zA-Z0-9_]*\\}[^\\s]*)$" }
        }
      }
    }
  }
}
const officialMeta = {
  type: "object",
  required: ["status", "publishedAt", "updatedAt", "isLatest"],
  additionalProperties: false,
  properties: {
    status: { enum: ["active", "deprecated", "deleted"] },
    statusMessage: { type: "string", maxLength: 500 },
    statusChangedAt: { type: "string", format: "date-time" },
    publishedAt: { type: "string", format: "date-time" },
    updatedAt: { type: "string", format: "date-time" },
    isLatest: { type: "boolean" }
  }
}
const ajv = new Ajv({ strict: false, formats: { "date-time": (text: string) => !Number.isNaN(Date.parse(text)) } })
const checkServer = ajv.compile(serverJsonRules)
const checkMeta = ajv.compile(officialMeta)

const expectOfficial = (entry: { server: unknown; _meta: Record<string, unknown> }) => {
  expect(checkServer(entry.server), JSON.stringify(checkServer.errors)).toBe(true)
  expect(checkMeta(entry._meta["io.modelcontextprotocol.registry/official"]), JSON.stringify(checkMeta.errors)).toBe(
    true
  )
}

describe.each(availableStores)("the MCP registry API on %s", (store) => {
  let server: TestServer
  let integrationId: string
  let create: (slug: string, fields?: Record<string, unknown>) => Promise<Response>
  /** An integration of the organisation, and a server of the default workspace on it. */
  const serveFrom = async (name: string, url: string, transport: "http" | "sse", slug: string) => {
    const made = await jsonOf(
      await server.send("POST", "/v1/mcp-integrations", { name, url, transport, auth_type: "none" })
    )
    const created = await server.send("POST", "/v1/mcp-servers", {
      name: `${name} server`,
      slug,
      mcp_integration_id: made.id,
      workspace_id: server.workspaceId
    })
    expect(created.status).toBe(201)
    return made.id as string
  }

  beforeAll(async () => {
    const gateway = await startMcpGateway({ store, trusted: [] })
    server = gateway.server
    const made = await server.send("POST", "/v1/mcp-integrations", {
      name: "Linear",
      url: "https://mcp.linear.app/mcp",
      transport: "http",
      auth_type: "oauth_auto",
      description: "Issues and projects"
    })
    integrationId = (await jsonOf(made)).id
    create = (slug, fields = {}) =>
      server.send("POST", "/v1/mcp-servers", {
        name: `Server ${slug}`,
        slug,
        mcp_integration_id: integrationId,
        workspace_id: server.workspaceId,
        ...fields
      })
  })
  afterAll(() => server?.close())

  const page = async (query: string, key?: string) => {
    const response = await server.request(`/v0.1/servers?${query}`, { key })
    expect(response.status).toBe(200)
    return jsonOf(response)
  }

  /** Every page from the first, following nextCursor; `between` runs after each page. */
  const walk = async (query: string, between: () => Promise<void> = async () => {}) => {
    const names: Array<string> = []
    let cursor: string | undefined
    for (let pages = 0; pages < 1_000; pages++) {
      const answer = await page(`${query}${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      expect(answer.metadata.count).toBe(answer.servers.length)
      names.push(...answer.servers.map((s: { server: { name: string } }) => s.server.name))
      cursor = answer.metadata.nextCursor
      if (cursor === undefined) return names
      await between()
    }
    throw new Error("the walk did not end")
  }

  it("answers in the official format, every document following the server.json rules", async () => {
    expect((await create("fmt-http", { description: "x".repeat(300) })).status).toBe(201)
    await serveFrom("Events", "https://events.example.com/sse", "sse", "fmt-sse")
    const answer = await page("search=fmt-")
    expect(answer.servers).toHaveLength(2)
    for (const entry of answer.servers) expectOfficial(entry)
    const [http, events] = answer.servers
    expect(http.server).toMatchObject({
      name: `io.gateway-control.${server.workspaceId}/fmt-http`,
      title: "Server fmt-http",
      version: "1.0.0",
      remotes: [{ type: "streamable-http", url: "https://mcp.linear.app/mcp" }]
    })
    expect(http.server.description).toHaveLength(100)
    expect(events.server).toMatchObject({
      description: "Events server",
      remotes: [{ type: "sse", url: "https://events.example.com/sse" }]
    })
    expect(http._meta["io.modelcontextprotocol.registry/official"]).toMatchObject({ status: "active", isLatest: true })
    expect(http._meta["io.gateway-control/mcp"]).toMatchObject({
      status: "active",
      integrationId,
      workspaceId: server.workspaceId
    })
    const name = encodeURIComponent(http.server.name)
    const latest = await server.request(`/v0.1/servers/${name}/versions/latest`)
    expect(latest.status).toBe(200)
    expect(await jsonOf(latest)).toEqual(http)
    expect((await server.request(`/v0.1/servers/${encodeURIComponent("io.example/other")}/versions/latest`)).status)
      .toBe(404)
  })

  it("lists each server once, in pages, while others are created between the pages", async () => {
    for (let i = 0; i < 24; i += 2) expect((await create(`page-${String(i).padStart(2, "0")}`)).status).toBe(201)
    const before = await walk("search=page-&limit=100")
    expect(before).toHaveLength(12)
    let next = 1
    // Between pages, create servers that sort before, among and after the ones already read.
    const inserting = async () => {
      const batch = [next, next + 2].filter((i) => i < 24).map((i) => create(`page-${String(i).padStart(2, "0")}`))
      next += 4
      for (const made of await Promise.all(batch)) expect(made.status).toBe(201)
    }
    // And others, at the same time as the pages are read.
    const racing = async () => {
      for (let i = 0; i < 12; i++) expect((await create(`page-${String(i * 2).padStart(2, "0")}x`)).status).toBe(201)
    }
    const [walked] = await Promise.all([walk("search=page-&limit=3", inserting), racing()])
    expect(new Set(walked).size).toBe(walked.length)
    for (const name of before) expect(walked.filter((n) => n === name)).toHaveLength(1)
    // And once every one is created, every server, in name order.
    while (next < 24) await inserting()
    const after = await walk("search=page-&limit=5")
    expect(after).toEqual([...after].sort())
    expect(after).toHaveLength(36)
  })

  it("lists what changed since a time, deleted servers included, and refuses a cursor it never gave", async () => {
    expect((await create("changes-a")).status).toBe(201)
    const since = new Date().toISOString()
    expect(await walk(`search=changes-&updated_since=${since}`)).toEqual([])
    const doomed = await serveFrom("Doomed", "https://doomed.example.com/mcp", "http", "changes-b")
    await server.send("DELETE", `/v1/mcp-integrations/${doomed}`, undefined)
    const changed = await page(`search=changes-&updated_since=${since}`)
    expect(changed.servers.map((s: { server: { name: string } }) => s.server.name)).toEqual([
      `io.gateway-control.${server.workspaceId}/changes-b`
    ])
    expect(changed.servers[0]._meta["io.modelcontextprotocol.registry/official"].status).toBe("deleted")
    expect(changed.servers[0]._meta["io.gateway-control/mcp"].status).toBe("archived")
    expectOfficial(changed.servers[0])
    expect((await page("search=changes-")).servers).toHaveLength(1)
    expect((await page("search=changes-&include_deleted=true")).servers).toHaveLength(2)
    const name = encodeURIComponent(`io.gateway-control.${server.workspaceId}/changes-b`)
    expect((await server.request(`/v0.1/servers/${name}/versions/latest`)).status).toBe(404)
    expect((await server.request(`/v0.1/servers/${name}/versions/latest?include_deleted=true`)).status).toBe(200)
    expect(await errorOf(await server.request("/v0.1/servers?cursor=bm90LW91cnM"))).toMatchObject({
      status: 400,
      param: "cursor"
    })
  })

  it("needs an API key with mcp_servers.list, and shows a workspace key its own workspace only", async () => {
    expect((await server.request("/v0.1/servers", { key: null })).status).toBe(401)
    const other = await jsonOf(await server.send("POST", "/v1/workspaces", { name: "Elsewhere" }))
    const keyFor = async (workspaceId: string, scopes: ReadonlyArray<string>) =>
      (await jsonOf(
        await server.send("POST", "/v1/api-keys/workspace/service", { name: "k", workspace_id: workspaceId, scopes })
      )).key as string
    const without = await keyFor(server.workspaceId, ["mcp_servers.read"])
    expect(await errorOf(await server.request("/v0.1/servers", { key: without }))).toMatchObject({ status: 403 })
    const elsewhere = await keyFor(other.id, ["mcp_servers.list"])
    expect((await page("", elsewhere)).servers).toEqual([])
    const name = encodeURIComponent(`io.gateway-control.${server.workspaceId}/changes-a`)
    expect((await server.request(`/v0.1/servers/${name}/versions/latest`, { key: elsewhere })).status).toBe(404)
    const mine = await keyFor(server.workspaceId, ["mcp_servers.list"])
    expect((await page("search=changes-", mine)).servers).toHaveLength(1)
  })
})
