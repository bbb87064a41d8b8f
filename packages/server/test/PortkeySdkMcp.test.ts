/**
 * Portkey's Node SDK (`portkey-ai`) on the MCP family, at its defaults (`apiKey` and `baseURL` only), with an
 * admin key and with a workspace key, against a real MCP server: every method of `mcpIntegrations` and
 * `mcpServers` this gateway serves, each answer checked against the fields the SDK declares and, where
 * Portkey's OpenAPI document has the operation, against its response schema. The methods it does not serve
 * (per-user tokens, client info, disconnecting a connection, pushed capabilities and metadata) are listed in the
 * README's compatibility table, and answer 404 or 400 here as it says. User access binds keys acting as a person
 * (McpUserAccess.test.ts); the admin and service keys here act as nobody, so its check answers enabled.
 */
import { ScopeNames } from "@gateway-control/domain"
import { Portkey } from "portkey-ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type McpGateway, startMcpGateway } from "./support/McpGateway.ts"
import { checkPortkeyAnswer, makeResponseValidator, readPortkeyOpenApi } from "./support/PortkeyOpenApi.ts"
import { type SdkMcpServer, startSdkMcpServer } from "./support/SdkMcpServer.ts"
import { jsonOf } from "./support/TestServer.ts"

let upstream: SdkMcpServer
let gateway: McpGateway
let admin: Portkey
let workspace: Portkey

/** Every MCP scope a workspace service key may hold. */
const WORKSPACE_SCOPES = ScopeNames.filter((scope) => /^(mcp_servers|workspace_mcp_integrations)\./.test(scope))

const client = (apiKey: string) => new Portkey({ apiKey, baseURL: `${gateway.server.baseUrl}/v1` })

beforeAll(async () => {
  upstream = await startSdkMcpServer()
  gateway = await startMcpGateway({ trusted: [upstream.host] })
  admin = client(gateway.server.adminKey)
  const created = await jsonOf(
    await gateway.server.send("POST", "/v1/api-keys/workspace/service", {
      name: "sdk mcp key",
      workspace_id: gateway.server.workspaceId,
      scopes: WORKSPACE_SCOPES
    })
  )
  workspace = client(created.key)
})
afterAll(async () => {
  await gateway?.close()
  await upstream?.close()
})

const portkeyDocument = readPortkeyOpenApi()
const validate = portkeyDocument === undefined ? undefined : makeResponseValidator(portkeyDocument)

/**
 * An integration answer checked against Portkey's schema: it differs, as the README says, only where Portkey
 * declares `global_workspace_access` an object and ours is the boolean our clients read.
 */
const checkIntegrationAnswer = (path: string, body: unknown, items = false) => {
  const errors = validate?.(path, "get", body) ?? []
  expect(errors.filter((e) => !/global_workspace_access must be object$/.test(e)), JSON.stringify(body)).toEqual([])
  if (validate !== undefined && !items) expect(errors).toEqual(["/global_workspace_access must be object"])
}

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/)
const text = expect.any(String)

/** The SDK's answer without the fields it adds itself (`getHeaders`), as sent. */
const plain = (answer: object): Record<string, unknown> => JSON.parse(JSON.stringify(answer))

/** The status and body of an SDK call that must fail. */
const failure = async (call: Promise<unknown>) => {
  try {
    await call
  } catch (error) {
    const { error: body, status } = error as { status: number; error: { error: Record<string, unknown> } }
    return { status, ...body.error }
  }
  throw new Error("the call succeeded")
}

describe.each(
  [
    ["an admin key", () => admin, true],
    ["a workspace key", () => workspace, false]
  ] as const
)("the MCP family through Portkey's SDK with %s", (_name, sdk, isAdmin) => {
  it("integrations: create, list, retrieve, update, test, sync, capabilities, metadata, workspaces, delete", async () => {
    const tag = isAdmin ? "admin" : "workspace"
    const created = await sdk().mcpIntegrations.create({
      name: `Docs ${tag}`,
      url: upstream.httpUrl,
      auth_type: "none",
      transport: "http",
      ...(isAdmin ? {} : { workspace_id: gateway.server.workspaceId })
    })
    expect(plain(created)).toMatchObject({ id: text, slug: text })
    checkPortkeyAnswer("POST", "/mcp-integrations", plain(created))
    const id = created.id!

    const listed = await sdk().mcpIntegrations.list(
      isAdmin ? { organisation_id: gateway.server.organisationId } : {}
    )
    expect(listed.data?.map((i) => i.id)).toContain(id)
    expect(listed.total).toEqual(expect.any(Number))
    checkIntegrationAnswer("/mcp-integrations", plain(listed), true)

    const read = await sdk().mcpIntegrations.retrieve({ id })
    expect(plain(read)).toMatchObject({
      id,
      slug: text,
      name: `Docs ${tag}`,
      url: upstream.httpUrl,
      auth_type: "none",
      transport: "http",
      created_at: ISO
    })
    checkIntegrationAnswer("/mcp-integrations/{mcpIntegrationId}", plain(read))

    const updated = await sdk().mcpIntegrations.update({ id, description: "the docs server" })
    expect(plain(updated)).toMatchObject({ id, slug: text, description: "the docs server" })

    const tested = plain(await sdk().mcpIntegrations.test({ id }))
    expect(tested).toMatchObject({ success: true, status_code: 200, error: null })

    const pending = plain(await sdk().mcpIntegrations.metadata.get({ id }))
    expect(pending).toEqual({ sync_status: "pending", last_synced_at: null, capability_flags: null })
    checkPortkeyAnswer("GET", "/mcp-integrations/{mcpIntegrationId}/metadata", pending)

    const synced = plain(await sdk().mcpIntegrations.sync({ id }))
    expect(synced).toMatchObject({ synced_at: ISO, total: expect.any(Number), added: expect.any(Number), removed: 0 })
    // A sync that pushes what the server offers is refused by name: the gateway asks the server.
    const pushed = await failure(
      sdk().mcpIntegrations.sync({ id, capabilities: [{ name: "fake", type: "tool" }] })
    )
    expect(pushed).toMatchObject({ status: 400, param: "capabilities" })

    const metadata = plain(await sdk().mcpIntegrations.metadata.get({ id }))
    expect(metadata).toEqual({
      sync_status: "synced",
      last_synced_at: synced.synced_at,
      capability_flags: {
        tools: true,
        prompts: expect.any(Boolean),
        resources: expect.any(Boolean),
        resource_templates: expect.any(Boolean)
      }
    })
    checkPortkeyAnswer("GET", "/mcp-integrations/{mcpIntegrationId}/metadata", metadata)

    const capabilities = plain(await sdk().mcpIntegrations.capabilities.list({ id }))
    expect(capabilities.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "search", type: "tool", enabled: true })])
    )
    checkPortkeyAnswer("GET", "/mcp-integrations/{mcpIntegrationId}/capabilities", capabilities)
    const toggled = plain(
      await sdk().mcpIntegrations.capabilities.update({
        id,
        capabilities: [{ name: "search", type: "tool", enabled: false }]
      })
    )
    expect(toggled.data).toEqual([expect.objectContaining({ name: "search", enabled: false })])

    const workspaces = plain(await sdk().mcpIntegrations.workspaces.list({ id }))
    expect(workspaces.workspaces).toEqual(
      expect.arrayContaining([
        { id: gateway.server.workspaceId, enabled: true, created_at: ISO, last_updated_at: ISO }
      ])
    )
    expect(workspaces.global_workspace_access).toEqual(isAdmin ? { enabled: true } : null)
    if (isAdmin) {
      // Closed to every workspace but the default one, then open to all again.
      const closed = plain(
        await sdk().mcpIntegrations.workspaces.update({
          id,
          workspaces: [{ id: gateway.server.workspaceId, enabled: true }],
          global_workspace_access: { enabled: false }
        })
      )
      expect(closed).toMatchObject({ id, global_workspace_access: false, workspace_ids: [gateway.server.workspaceId] })
      const after = plain(await sdk().mcpIntegrations.workspaces.list({ id }))
      expect(after.global_workspace_access).toEqual({ enabled: false })
      await sdk().mcpIntegrations.workspaces.update({ id, workspaces: [], global_workspace_access: { enabled: true } })
    } else {
      const refused = await failure(
        sdk().mcpIntegrations.workspaces.update({ id, workspaces: [{ id: gateway.server.workspaceId, enabled: true }] })
      )
      expect(refused).toMatchObject({ status: 400, param: "workspaces" })
    }

    const deleted = plain(await sdk().mcpIntegrations.delete({ id }))
    expect(deleted).toMatchObject({ id, status: "archived" })
  })

  it("servers: create, list, retrieve, update, test, capabilities, delete", async () => {
    const tag = isAdmin ? "admin" : "workspace"
    const integration = await admin.mcpIntegrations.create({
      name: `Tools ${tag}`,
      url: upstream.httpUrl,
      auth_type: "none",
      transport: "http"
    })
    await admin.mcpIntegrations.sync({ id: integration.id! })

    const created = await sdk().mcpServers.create({
      name: `Tools server ${tag}`,
      mcp_integration_id: integration.slug!,
      ...(isAdmin ? { workspace_id: gateway.server.workspaceId } : {})
    })
    expect(plain(created)).toMatchObject({ id: text, slug: text })
    checkPortkeyAnswer("POST", "/mcp-servers", plain(created))
    const id = created.id!

    const listed = await sdk().mcpServers.list(isAdmin ? { workspace_id: gateway.server.workspaceId } : {})
    expect(listed.data?.map((s) => s.id)).toContain(id)
    checkPortkeyAnswer("GET", "/mcp-servers", plain(listed))

    const read = plain(await sdk().mcpServers.retrieve({ id }))
    expect(read).toMatchObject({ id, slug: text, name: `Tools server ${tag}`, mcp_integration_id: integration.id })
    checkPortkeyAnswer("GET", "/mcp-servers/{mcpServerId}", read)

    const updated = plain(await sdk().mcpServers.update({ id, name: `Renamed ${tag}`, description: "the tools" }))
    expect(updated).toMatchObject({ id, slug: text, name: `Renamed ${tag}`, description: "the tools" })
    expect(plain(await sdk().mcpServers.retrieve({ id }))).toMatchObject({ name: `Renamed ${tag}` })
    checkPortkeyAnswer("PUT", "/mcp-servers/{mcpServerId}", updated)

    const tested = plain(await sdk().mcpServers.test({ id }))
    expect(tested).toMatchObject({ success: true, status_code: 200, error: null })
    checkPortkeyAnswer("POST", "/mcp-servers/{mcpServerId}/test", tested)

    const capabilities = plain(await sdk().mcpServers.capabilities.list({ id }))
    expect(capabilities.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "search", type: "tool", enabled: true })])
    )
    checkPortkeyAnswer("GET", "/mcp-servers/{mcpServerId}/capabilities", capabilities)

    const access = plain(await sdk().mcpServers.userAccess.list({ id }))
    checkPortkeyAnswer("GET", "/mcp-servers/{mcpServerId}/user-access", access)
    expect(access).toMatchObject({ default_user_access: "allow", total: expect.any(Number), has_more: false })
    const changed = plain(await sdk().mcpServers.userAccess.update({ id, default_user_access: "deny" }))
    checkPortkeyAnswer("PUT", "/mcp-servers/{mcpServerId}/user-access", changed)
    expect(changed).toEqual({ success: true, id, default_user_access: "deny" })
    expect(plain(await sdk().mcpServers.userAccess.check({ id }))).toEqual({
      object: "mcp_server_user_access",
      server_id: id,
      ...(isAdmin ? { user_id: gateway.server.ownerId } : {}),
      enabled: true,
      has_override: false,
      default_user_access: "deny"
    })
    const connections = plain(await sdk().mcpServers.connections.list({ id }))
    checkPortkeyAnswer("GET", "/mcp-servers/{mcpServerId}/connections", connections)
    expect(connections).toMatchObject({ object: "list", data: [], total: 0 })
    expect(await failure(sdk().mcpServers.connections.delete({ id }))).toMatchObject({ status: 404 })

    const deleted = plain(await sdk().mcpServers.delete({ id }))
    expect(deleted).toEqual({ id, object: "mcp_server", deleted: true })
    checkPortkeyAnswer("DELETE", "/mcp-servers/{mcpServerId}", deleted)
    expect(await failure(sdk().mcpServers.retrieve({ id }))).toMatchObject({ status: 404 })
  })
})

describe("an MCP server's changes, through the one policy", () => {
  it("a key without the MCP server scopes can neither rename nor delete a server", async () => {
    const integration = await admin.mcpIntegrations.create({
      name: "Guarded",
      url: upstream.httpUrl,
      auth_type: "none",
      transport: "http"
    })
    const server = await admin.mcpServers.create({
      name: "Guarded server",
      mcp_integration_id: integration.id!,
      workspace_id: gateway.server.workspaceId
    })
    const reader = await jsonOf(
      await gateway.server.send("POST", "/v1/api-keys/workspace/service", {
        name: "reader",
        workspace_id: gateway.server.workspaceId,
        scopes: ["mcp_servers.read", "mcp_servers.list"]
      })
    )
    const weak = client(reader.key)
    expect(await failure(weak.mcpServers.update({ id: server.id!, name: "Taken" }))).toMatchObject({ status: 403 })
    expect(await failure(weak.mcpServers.delete({ id: server.id! }))).toMatchObject({ status: 403 })
    expect(plain(await weak.mcpServers.retrieve({ id: server.id! }))).toMatchObject({ name: "Guarded server" })
    // Bad input changes nothing.
    expect(await failure(admin.mcpServers.update({ id: server.id!, name: "" }))).toMatchObject({ status: 400 })
    expect(plain(await admin.mcpServers.retrieve({ id: server.id! }))).toMatchObject({ name: "Guarded server" })
  })
})
