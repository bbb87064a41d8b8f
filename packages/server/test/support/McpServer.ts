/**
 * One test server per test file for the MCP tests: a second workspace in the organisation, and keys of the
 * first workspace (a service key and a user's key) and of the second (a service key).
 * Call `useMcpServer()` at the top of a test file; its accessors read the fixture once it has been made.
 */
import type { GatewayControlClientShape } from "@gateway-control/client"
import type { CreateMcpIntegration } from "@gateway-control/domain"
import { ApiKeys, type Scope } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll } from "vitest"
import { startTestServer, type TestServer } from "./TestServer.ts"

type IntegrationBody = typeof CreateMcpIntegration.Type

/** An integration's creation body; `overrides` replace or add fields. */
export const integration = (overrides: Partial<IntegrationBody> = {}): IntegrationBody => ({
  name: "Linear",
  url: "https://mcp.linear.app/sse",
  auth_type: "oauth_auto",
  transport: "sse",
  ...overrides
})

/** The typed creation of an integration, for `api` and `refusal`. */
export const createIntegration = (body: IntegrationBody) => (client: GatewayControlClientShape) =>
  client.mcpRegistry.createIntegration({ payload: body })

type IntegrationQuery = Parameters<GatewayControlClientShape["mcpRegistry"]["listIntegrations"]>[0]["query"]

const workspaceScopes: ReadonlyArray<Scope> = [
  "workspace_mcp_integrations.create",
  "workspace_mcp_integrations.read",
  "workspace_mcp_integrations.list",
  "mcp_servers.create",
  "mcp_servers.read",
  "mcp_servers.list"
]

interface McpFixture {
  readonly server: TestServer
  /** A second workspace of the same organisation. */
  readonly otherWorkspace: string
  /** A service key of the server's workspace. */
  readonly workspaceKey: string
  /** A user's key (the owner's) of the server's workspace. */
  readonly userKey: string
  /** A service key of the other workspace. */
  readonly otherWorkspaceKey: string
}

const issue = (
  server: TestServer,
  type: "workspace-service" | "workspace-user",
  workspaceId: string,
  userId: string | null
) =>
  server.runtime.runPromise(Effect.flatMap(Effect.service(ApiKeys), (keys) =>
    keys.issue({
      type,
      name: type,
      description: null,
      organisationId: server.organisationId,
      workspaceId,
      userId,
      scopes: workspaceScopes,
      expiresAt: null
    }))).then((issued) => Redacted.value(issued.plaintext))

export const useMcpServer = () => {
  let fixture: McpFixture | undefined
  let started: TestServer | undefined
  beforeAll(async () => {
    const server = await startTestServer()
    started = server
    const otherWorkspace = (await server.api((client) => client.workspaces.create({ payload: { name: "Other team" } })))
      .id
    fixture = {
      server,
      otherWorkspace,
      workspaceKey: await issue(server, "workspace-service", server.workspaceId, null),
      userKey: await issue(server, "workspace-user", server.workspaceId, server.ownerId),
      otherWorkspaceKey: await issue(server, "workspace-service", otherWorkspace, null)
    }
  })
  afterAll(() => started?.close())

  const current = (): McpFixture => {
    if (fixture === undefined) throw new Error("the MCP test server has not started")
    return fixture
  }
  const send = (method: string, path: string, body: unknown, key?: string) =>
    current().server.send(method, path, body, key)
  const list = (query: string, key?: string) => current().server.request(`/v1/mcp-integrations?${query}`, { key })
  const orgQuery = () => `organisation_id=${current().server.organisationId}`
  const api: TestServer["api"] = (call, key) => current().server.api(call, key)
  const refusal: TestServer["refusal"] = (call, key) => current().server.refusal(call, key)
  /** The typed list of integrations: the organisation's (with the admin key) unless `query` names otherwise. */
  const listIntegrations = (query: IntegrationQuery = {}) => (client: GatewayControlClientShape) =>
    client.mcpRegistry.listIntegrations({ query: { organisation_id: current().server.organisationId, ...query } })
  return {
    get server() {
      return current().server
    },
    get otherWorkspace() {
      return current().otherWorkspace
    },
    get workspaceKey() {
      return current().workspaceKey
    },
    get userKey() {
      return current().userKey
    },
    get otherWorkspaceKey() {
      return current().otherWorkspaceKey
    },
    send,
    list,
    orgQuery,
    api,
    refusal,
    listIntegrations
  }
}
