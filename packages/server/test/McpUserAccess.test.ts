/**
 * Which of a workspace's people may use an MCP server (Portkey's user access), through Portkey's Node SDK at its
 * defaults: a manager's admin key sets overrides and the default, the policy applies them to keys acting as a
 * person (a denied member's key is refused the server's reads, its registry entry and its capabilities), and a
 * workspace member may not change them. Connections are derived (README). On every store; answers are checked
 * against Portkey's OpenAPI document.
 */
import { Portkey } from "portkey-ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkPortkeyAnswer } from "./support/PortkeyOpenApi.ts"
import { availableStores, errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

interface Listed {
  readonly data: ReadonlyArray<Record<string, unknown>>
}

describe.each(availableStores)("MCP server user access on %s", (store) => {
  let server: TestServer
  let admin: Portkey
  const client = (apiKey: string) => new Portkey({ apiKey, baseURL: `${server.baseUrl}/v1` })

  /** A person made a member of the workspace, with a workspace-user key acting as them. */
  const person = async (name: string, role: "member" | "manager") => {
    const user = await jsonOf(
      await server.send("POST", "/v1/users", {
        email: `${name}@access-${store}.test`,
        name: `${name} Doe`,
        role: "member"
      })
    )
    await server.send("POST", `/v1/workspaces/${server.workspaceId}/members`, { user_id: user.id, role })
    const key = await jsonOf(
      await server.send("POST", "/v1/api-keys/workspace/user", {
        name: `${name}'s key`,
        workspace_id: server.workspaceId,
        user_id: user.id,
        scopes: ["mcp_servers.read", "mcp_servers.list", "mcp_servers.create"]
      })
    )
    expect(key.key, JSON.stringify(key)).toEqual(expect.any(String))
    return { id: user.id as string, key: key.key as string }
  }

  let serverId: string
  let ada: { id: string; key: string }
  let bob: { id: string; key: string }

  beforeAll(async () => {
    server = await startTestServer({ store })
    admin = client(server.adminKey)
    const integration = await admin.mcpIntegrations.create({
      name: "Access integration",
      url: "https://mcp.example.com/mcp",
      auth_type: "none",
      transport: "http"
    })
    const created = await admin.mcpServers.create({
      name: "Access server",
      slug: "access-server",
      mcp_integration_id: integration.id!,
      workspace_id: server.workspaceId
    })
    serverId = created.id!
    ada = await person("ada", "member")
    bob = await person("bob", "manager")
  })
  afterAll(() => server.close())

  it("lists every member with the default, until a manager overrides one", async () => {
    // The SDK declares these answers as `APIResponseType` only: their fields are checked against the document.
    const listed = (await admin.mcpServers.userAccess.list({ id: serverId })) as unknown as Listed
    checkPortkeyAnswer("GET", "/mcp-servers/{mcpServerId}/user-access", listed)
    expect(listed).toMatchObject({ default_user_access: "allow", has_more: false })
    expect(listed.data).toEqual(
      expect.arrayContaining([
        {
          user_id: ada.id,
          email: `ada@access-${store}.test`,
          first_name: "ada",
          last_name: "Doe",
          enabled: true,
          has_override: false,
          connection_status: "connected"
        }
      ])
    )
    const searched = await jsonOf(
      await server.request(`/v1/mcp-servers/${serverId}/user-access?search=BOB&page_size=1`)
    )
    expect(searched.data.map((e: { user_id: string }) => e.user_id)).toEqual([bob.id])
  })

  it("a denied person's key is refused the server, its capabilities and its registry entry; others are not", async () => {
    expect((await server.request(`/v1/mcp-servers/${serverId}`, { key: ada.key })).status).toBe(200)
    const updated = await admin.mcpServers.userAccess.update({
      id: serverId,
      user_access: [{ user_id: ada.id, enabled: false }]
    })
    checkPortkeyAnswer("PUT", "/mcp-servers/{mcpServerId}/user-access", updated)
    expect(updated).toMatchObject({ success: true, default_user_access: "allow" })

    const refused = await errorOf(await server.request(`/v1/mcp-servers/${serverId}`, { key: ada.key }))
    expect(refused).toMatchObject({ status: 403, code: "forbidden" })
    expect(refused.message).toContain(ada.id)
    expect((await server.request(`/v1/mcp-servers/${serverId}/capabilities`, { key: ada.key })).status).toBe(403)
    const registry = async (key: string) =>
      (await jsonOf(await server.request("/v0.1/servers", { key }))).servers.map((s: { server: { name: string } }) =>
        s.server.name
      )
    expect(await registry(ada.key)).toEqual([])
    expect(await registry(bob.key)).toEqual([`io.gateway-control.${server.workspaceId}/access-server`])
    expect((await server.request(`/v1/mcp-servers/${serverId}`, { key: bob.key })).status).toBe(200)
    // A service key acts as nobody: user access does not bind it.
    expect((await server.request(`/v1/mcp-servers/${serverId}`)).status).toBe(200)

    expect(await client(ada.key).mcpServers.userAccess.check({ id: serverId })).toMatchObject({
      user_id: ada.id,
      enabled: false,
      has_override: true
    })
    const connections = (await admin.mcpServers.connections.list({ id: serverId })) as unknown as Listed
    checkPortkeyAnswer("GET", "/mcp-servers/{mcpServerId}/connections", connections)
    expect(connections.data.map((c) => c.user_id)).not.toContain(ada.id)
    expect(connections.data).toEqual(expect.arrayContaining([{ user_id: bob.id, connected: true }]))

    // The default denies everyone without an override; an override allows one back.
    await admin.mcpServers.userAccess.update({
      id: serverId,
      user_access: [{ id: ada.id, enabled: true }],
      default_user_access: "deny"
    })
    expect((await server.request(`/v1/mcp-servers/${serverId}`, { key: ada.key })).status).toBe(200)
    expect((await server.request(`/v1/mcp-servers/${serverId}`, { key: bob.key })).status).toBe(403)
    expect(await client(bob.key).mcpServers.userAccess.check({ id: serverId })).toMatchObject({ enabled: false })
    // Only the allowed are connections, the page and its count alike.
    const allowedOnly = (await admin.mcpServers.connections.list({ id: serverId })) as unknown as Listed
    expect(allowedOnly.data).toEqual([expect.objectContaining({ user_id: ada.id, connected: true })])
    expect((await jsonOf(await server.request(`/v1/mcp-servers/${serverId}/connections`))).total).toBe(1)
    await admin.mcpServers.userAccess.update({ id: serverId, default_user_access: "allow" })
    expect((await server.request(`/v1/mcp-servers/${serverId}`, { key: bob.key })).status).toBe(200)
  })

  it("only managers change it, only for members, all or none, and every change is audited", async () => {
    const byMember = await errorOf(
      await server.send("PUT", `/v1/mcp-servers/${serverId}/user-access`, { default_user_access: "deny" }, ada.key)
    )
    expect(byMember).toMatchObject({ status: 403 })
    expect(byMember.message).toContain("manager")
    const stranger = await jsonOf(
      await server.send("POST", "/v1/users", { email: `carol@access-${store}.test`, role: "member" })
    )
    const notMember = await errorOf(
      await server.send("PUT", `/v1/mcp-servers/${serverId}/user-access`, {
        user_access: [{ user_id: bob.id, enabled: false }, { user_id: stranger.id, enabled: false }]
      })
    )
    expect(notMember).toMatchObject({ status: 400, param: "user_access[1].user_id" })
    // Nothing changed: bob's override was not written.
    const after = await jsonOf(await server.request(`/v1/mcp-servers/${serverId}/user-access`))
    expect(after.data.find((e: { user_id: string }) => e.user_id === bob.id)).toMatchObject({ has_override: false })
    const byManager = await server.send(
      "PUT",
      `/v1/mcp-servers/${serverId}/user-access`,
      { user_access: [{ user_id: bob.id, enabled: true }] },
      bob.key
    )
    expect(byManager.status).toBe(200)

    const audit = await jsonOf(await server.request("/v1/audit-logs?resource_type=mcp_server_user_access&page_size=50"))
    expect(audit.records.map((r: { response_status_code: number }) => r.response_status_code)).toEqual(
      expect.arrayContaining([200, 400, 403])
    )
  })
})
