import { McpIntegration, McpIntegrationStore, SERVER_CACHE_TTL_MS } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { integration, useMcpServer } from "./support/McpServer.ts"
import { makeMovableClock } from "./support/MovableClock.ts"
import { errorOf, jsonOf, startTestServer } from "./support/TestServer.ts"

const mcp = useMcpServer()
const { send } = mcp

describe("MCP servers", () => {
  let serverId: string
  // The integration and server these tests read, made here rather than taken from the tests above.
  beforeAll(async () => {
    const made = await send("POST", "/v1/mcp-integrations", integration({ name: "For servers", slug: "for-servers" }))
    expect(made.status).toBe(201)
    const created = await send("POST", "/v1/mcp-servers", {
      name: "Linear for us",
      mcp_integration_id: "for-servers",
      workspace_id: mcp.server.workspaceId,
      slug: "linear-us",
      description: "The team's Linear"
    })
    expect(created.status).toBe(201)
    serverId = (await jsonOf(created)).id
  })

  it("gets a server by UUID and by slug, with the integration's details for service keys only", async () => {
    const byId = await jsonOf(await mcp.server.request(`/v1/mcp-servers/${serverId}`))
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
    expect(byId.mcp_integration_id).toBe(byId.mcp_integration_details.id)
    const bySlug = await jsonOf(await mcp.server.request(`/v1/mcp-servers/linear-us`, { key: mcp.workspaceKey }))
    expect(bySlug.id).toBe(serverId)
    expect(bySlug).toHaveProperty("mcp_integration_details")
    const forUser = await jsonOf(await mcp.server.request(`/v1/mcp-servers/linear-us`, { key: mcp.userKey }))
    expect(forUser.id).toBe(serverId)
    expect(forUser).not.toHaveProperty("mcp_integration_details")
    const adminBySlug = await jsonOf(
      await mcp.server.request(`/v1/mcp-servers/linear-us?workspace_id=${mcp.server.workspaceId}`)
    )
    expect(adminBySlug.id).toBe(serverId)
  })

  it("shows an integration change at once, and one made by another process within the cache's lifetime", async () => {
    // A server of its own, on a clock the test moves: the cache's lifetime passes without waiting it out.
    const time = makeMovableClock()
    const own = await startTestServer({ clock: time.clock })
    try {
      const created = await jsonOf(await own.send("POST", "/v1/mcp-integrations", integration({ name: "Cached" })))
      const made = await jsonOf(
        await own.send("POST", "/v1/mcp-servers", {
          name: "Cached server",
          mcp_integration_id: created.id,
          workspace_id: own.workspaceId
        })
      )
      const urlOf = async () =>
        (await jsonOf(await own.request(`/v1/mcp-servers/${made.id}`))).mcp_integration_details.url
      expect(await urlOf()).toBe("https://mcp.linear.app/sse")
      await own.send("PUT", `/v1/mcp-integrations/${created.id}`, { url: "https://mcp.example.com/v2" })
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
    expect((await errorOf(await mcp.server.request("/v1/mcp-servers/no-such-server"))).status).toBe(404)
    expect(
      (await errorOf(await mcp.server.request(`/v1/mcp-servers/${serverId}`, { key: mcp.otherWorkspaceKey }))).status
    )
      .toBe(404)
    const bySlug = await mcp.server.request(`/v1/mcp-servers/linear-us?workspace_id=${mcp.server.workspaceId}`, {
      key: mcp.otherWorkspaceKey
    })
    expect((await errorOf(bySlug)).status).toBe(404)
  })

  it("refuses an integration the workspace may not use, naming it", async () => {
    const closed = integration({
      name: "Closed to us",
      slug: "closed-to-us",
      global_workspace_access: false,
      workspace_ids: [mcp.otherWorkspace]
    })
    expect((await send("POST", "/v1/mcp-integrations", closed)).status).toBe(201)
    const error = await errorOf(
      await send("POST", "/v1/mcp-servers", { name: "Nope", mcp_integration_id: "closed-to-us" }, mcp.workspaceKey)
    )
    expect(error).toMatchObject({ status: 400, param: "mcp_integration_id" })
    expect(error.message).toContain("closed-to-us")
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
    const listed = await jsonOf(await mcp.server.request("/v1/mcp-servers?search=LINEAR", { key: mcp.workspaceKey }))
    expect(listed).toMatchObject({ total: 1, has_more: false })
    expect((await jsonOf(await mcp.server.request("/v1/mcp-servers", { key: mcp.otherWorkspaceKey }))).total).toBe(0)
  })
})

describe("the audit log", () => {
  it("records the creates of integrations and servers, and refusals", async () => {
    const made = await jsonOf(
      await send("POST", "/v1/mcp-integrations", integration({ name: "Audited", slug: "audited" }))
    )
    await send("POST", "/v1/mcp-servers", {
      name: "Audited server",
      mcp_integration_id: made.id,
      workspace_id: mcp.server.workspaceId
    })
    await send(
      "POST",
      "/v1/mcp-integrations",
      integration({ slug: "refused", workspace_id: mcp.otherWorkspace }),
      mcp.workspaceKey
    )
    const records: Array<{ action: string; response_status_code: number; resource_type: string }> =
      (await jsonOf(await mcp.server.request("/v1/audit-logs?page_size=1000"))).records
    const created = records.filter((r) => r.action === "create" && r.response_status_code === 201)
    expect(created.some((r) => r.resource_type === "mcp_integration")).toBe(true)
    expect(created.some((r) => r.resource_type === "mcp_server")).toBe(true)
    expect(records.some((r) => r.resource_type === "mcp_integration" && r.response_status_code === 404)).toBe(true)
  })
})
