/**
 * Closing an organisation-level integration to a workspace (`workspace_ids` without it) closes the workspace's
 * existing servers of it on every path that reaches the integration through a server: the test (which would
 * connect with the organisation's headers) is refused whoever calls, the server's read no longer shows the
 * integration's details, and the registry API no longer lists it. Opening it again opens them again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type McpGateway, startMcpGateway } from "./support/McpGateway.ts"
import { type SdkMcpServer, startSdkMcpServer } from "./support/SdkMcpServer.ts"
import { availableStores, errorOf, jsonOf } from "./support/TestServer.ts"

describe.each(availableStores)("an integration closed to a workspace on %s", (store) => {
  let mcp: SdkMcpServer
  let gateway: McpGateway
  let otherWorkspace: string
  let workspaceKey: string

  beforeAll(async () => {
    mcp = await startSdkMcpServer()
    gateway = await startMcpGateway({ store, trusted: [mcp.host] })
    otherWorkspace = (await jsonOf(await gateway.server.send("POST", "/v1/workspaces", { name: "Other team" }))).id
    workspaceKey = (await jsonOf(
      await gateway.server.send("POST", "/v1/api-keys/workspace/service", {
        name: "servers",
        workspace_id: gateway.server.workspaceId,
        scopes: ["mcp_servers.read", "mcp_servers.list", "mcp_servers.test"]
      })
    )).key
  })
  afterAll(async () => {
    await gateway?.close()
    await mcp?.close()
  })

  const testOf = (serverId: string, key?: string) =>
    gateway.server.send("POST", `/v1/mcp-servers/${serverId}/test`, undefined, key)
  const readOf = async (serverId: string) =>
    jsonOf(await gateway.server.request(`/v1/mcp-servers/${serverId}`, { key: workspaceKey }))
  const registryNames = async () =>
    (await jsonOf(await gateway.server.request("/v0.1/servers", { key: workspaceKey }))).servers.map((
      entry: { server: { name: string } }
    ) => entry.server.name)
  const latest = (name: string) =>
    gateway.server.request(`/v0.1/servers/${encodeURIComponent(name)}/versions/latest`, { key: workspaceKey })
  const setAccess = async (integrationId: string, body: Record<string, unknown>) =>
    expect((await gateway.server.send("PUT", `/v1/mcp-integrations/${integrationId}`, body)).status).toBe(200)

  it("refuses the test, hides the details and leaves the registry once closed; opening again restores them", async () => {
    const { integrationId, serverId, serverSlug } = await gateway.register(mcp.httpUrl, "http", {
      global_workspace_access: false,
      workspace_ids: [gateway.server.workspaceId]
    })
    const name = `io.gateway-control.${gateway.server.workspaceId}/${serverSlug}`

    // Open: every path works.
    expect((await jsonOf(await testOf(serverId, workspaceKey))).success).toBe(true)
    expect(await readOf(serverId)).toHaveProperty("mcp_integration_details.id", integrationId)
    expect(await registryNames()).toContain(name)
    expect((await latest(name)).status).toBe(200)

    await setAccess(integrationId, { workspace_ids: [otherWorkspace] })
    const connectionsBefore = mcp.initializations.length

    // The workspace's key, and an admin key acting on the workspace's server, are both refused: no connection.
    expect(await errorOf(await testOf(serverId, workspaceKey))).toMatchObject({ status: 403 })
    expect(await errorOf(await testOf(serverId))).toMatchObject({ status: 403 })
    expect(mcp.initializations.length).toBe(connectionsBefore)
    const read = await readOf(serverId)
    expect(read.id).toBe(serverId)
    expect(read).not.toHaveProperty("mcp_integration_details")
    expect(await registryNames()).not.toContain(name)
    expect((await latest(name)).status).toBe(404)

    await setAccess(integrationId, { global_workspace_access: true })
    expect((await jsonOf(await testOf(serverId, workspaceKey))).success).toBe(true)
    expect(await readOf(serverId)).toHaveProperty("mcp_integration_details.id", integrationId)
    expect(await registryNames()).toContain(name)
  })
})
