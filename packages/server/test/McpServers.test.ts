import type { GatewayControlClientShape } from "@gateway-control/client"
import type { CreateMcpServer } from "@gateway-control/domain"
import { McpIntegration, McpIntegrationStore, SERVER_CACHE_TTL_MS } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { createIntegration, integration, useMcpServer } from "./support/McpServer.ts"
import { makeMovableClock } from "./support/MovableClock.ts"
import { errorOf, startTestServer } from "./support/TestServer.ts"

// JSON calls go through the typed client: a success must have its declared status and shape, and a refusal's
// `_tag` stands for its status (`BadRequest` 400, `NotFoundError` 404). Raw HTTP is left for input the client's
// schemas would refuse before sending it.
const mcp = useMcpServer()
const { api, refusal, send } = mcp

const createServer = (body: typeof CreateMcpServer.Type) => (client: GatewayControlClientShape) =>
  client.mcpRegistry.createServer({ payload: body })
const getServer =
  (mcpServerId: string, query: { readonly workspace_id?: string } = {}) => (client: GatewayControlClientShape) =>
    client.mcpRegistry.getServer({ params: { mcpServerId }, query })

describe("MCP servers", () => {
  let serverId: string
  // The integration and server these tests read, made here rather than taken from the tests above.
  beforeAll(async () => {
    await api(createIntegration(integration({ name: "For servers", slug: "for-servers" })))
    const created = await api(createServer({
      name: "Linear for us",
      mcp_integration_id: "for-servers",
      workspace_id: mcp.server.workspaceId,
      slug: "linear-us",
      description: "The team's Linear"
    }))
    serverId = created.id
  })

  it("gets a server by UUID and by slug, with the integration's details for service keys only", async () => {
    const byId = await api(getServer(serverId))
    expect(byId).toMatchObject({
      id: serverId,
      slug: "linear-us",
      name: "Linear for us",
      status: "active",
      workspace_id: mcp.server.workspaceId,
      mcp_integration_details: {
        slug: "for-servers",
        url: "https://mcp.linear.app/sse",
        transport: "sse",
        auth_type: "oauth_auto"
      }
    })
    expect(byId.mcp_integration_id).toBe(byId.mcp_integration_details?.id)
    const bySlug = await api(getServer("linear-us"), mcp.workspaceKey)
    expect(bySlug.id).toBe(serverId)
    expect(bySlug).toHaveProperty("mcp_integration_details")
    // The details are in the schema, optional: a body carrying them would decode with them.
    const forUser = await api(getServer("linear-us"), mcp.userKey)
    expect(forUser.id).toBe(serverId)
    expect(forUser).not.toHaveProperty("mcp_integration_details")
    const adminBySlug = await api(getServer("linear-us", { workspace_id: mcp.server.workspaceId }))
    expect(adminBySlug.id).toBe(serverId)
  })

  it("shows an integration change at once, and one made by another process within the cache's lifetime", async () => {
    // A server of its own, on a clock the test moves: the cache's lifetime passes without waiting it out.
    const time = makeMovableClock()
    const own = await startTestServer({ clock: time.clock })
    try {
      const created = await own.api(createIntegration(integration({ name: "Cached" })))
      const made = await own.api(createServer({
        name: "Cached server",
        mcp_integration_id: created.id,
        workspace_id: own.workspaceId
      }))
      const urlOf = async () => (await own.api(getServer(made.id))).mcp_integration_details?.url
      expect(await urlOf()).toBe("https://mcp.linear.app/sse")
      await own.api((client) =>
        client.mcpRegistry.updateIntegration({
          params: { id: created.id },
          payload: { url: "https://mcp.example.com/v2" }
        })
      )
      expect(await urlOf()).toBe("https://mcp.example.com/v2")
      // Another process changes the shared store; this one sees it when its cache entry lapses.
      await own.runtime.runPromise(Effect.gen(function*() {
        const store = yield* McpIntegrationStore
        const current = Option.getOrThrow(yield* store.get(created.id))
        yield* store.update(new McpIntegration({ ...current, url: "https://mcp.example.com/v3" }))
      }))
      expect(await urlOf()).toBe("https://mcp.example.com/v2")
      time.advance(SERVER_CACHE_TTL_MS)
      expect(await urlOf()).toBe("https://mcp.example.com/v3")
    } finally {
      await own.close()
    }
  })

  it("answers 404 for unknown servers and for another workspace's, by id or by slug", async () => {
    const refusals = [
      await refusal(getServer("no-such-server")),
      await refusal(getServer(serverId), mcp.otherWorkspaceKey),
      await refusal(getServer("linear-us", { workspace_id: mcp.server.workspaceId }), mcp.otherWorkspaceKey)
    ]
    expect(refusals.map((refused) => refused._tag)).toEqual(Array(3).fill("NotFoundError"))
  })

  it("refuses an integration the workspace may not use, naming it", async () => {
    const closed = integration({
      name: "Closed to us",
      slug: "closed-to-us",
      global_workspace_access: false,
      workspace_ids: [mcp.otherWorkspace]
    })
    await api(createIntegration(closed))
    const error = await refusal(createServer({ name: "Nope", mcp_integration_id: "closed-to-us" }), mcp.workspaceKey)
    expect(error).toMatchObject({ _tag: "BadRequest", param: "mcp_integration_id" })
    expect(error.message).toContain("closed-to-us")
    // Raw HTTP: a slug and a name the client's schemas would not send.
    expect(
      (await errorOf(
        await send(
          "POST",
          "/v1/mcp-servers",
          { name: "ab", mcp_integration_id: "for-servers", slug: "ab" },
          mcp.workspaceKey
        )
      )).param
    ).toBe("slug")
    expect(
      (await errorOf(
        await send(
          "POST",
          "/v1/mcp-servers",
          { name: "x".repeat(256), mcp_integration_id: "for-servers" },
          mcp.workspaceKey
        )
      )).param
    ).toBe("name")
  })

  it("lists servers of a workspace, with search", async () => {
    const listed = await api(
      (client) => client.mcpRegistry.listServers({ query: { search: "LINEAR" } }),
      mcp.workspaceKey
    )
    expect(listed).toMatchObject({ total: 1, has_more: false })
    const theirs = await api((client) => client.mcpRegistry.listServers({ query: {} }), mcp.otherWorkspaceKey)
    expect(theirs.total).toBe(0)
  })
})

describe("the audit log", () => {
  it("records the creates of integrations and servers, and refusals", async () => {
    const made = await api(createIntegration(integration({ name: "Audited", slug: "audited" })))
    await api(
      createServer({ name: "Audited server", mcp_integration_id: made.id, workspace_id: mcp.server.workspaceId })
    )
    const refused = await refusal(
      createIntegration(integration({ slug: "refused", workspace_id: mcp.otherWorkspace })),
      mcp.workspaceKey
    )
    expect(refused._tag).toBe("NotFoundError")
    const records = (await api((client) => client.auditLogs.list({ query: { page_size: 1000 } }))).records
    const created = records.filter((r) => r.action === "create" && r.response_status_code === 201)
    expect(created.some((r) => r.resource_type === "mcp_integration")).toBe(true)
    expect(created.some((r) => r.resource_type === "mcp_server")).toBe(true)
    expect(records.some((r) => r.resource_type === "mcp_integration" && r.response_status_code === 404)).toBe(true)
  })
})
