/**
 * A gateway for the live MCP tests: real MCP servers (SdkMcpServer.ts) on 127.0.0.1, trusted in
 * TRUSTED_CUSTOM_HOSTS unless a test wants the address guard to refuse them, and helpers that register an
 * integration with a server of the default workspace.
 */
import { randomBytes } from "node:crypto"
import { expect } from "vitest"
import { DEFAULT_MCP_CONFIG, providerRegistry, type ProviderSettings } from "../../src/App.ts"
import type { McpConfig } from "../../src/McpConfig.ts"
import { jsonOf, startTestServer, type TestServer, type TestStore } from "./TestServer.ts"

export interface McpGatewayOptions {
  /** Hosts (`127.0.0.1:port`) listed in TRUSTED_CUSTOM_HOSTS. */
  readonly trusted: ReadonlyArray<string>
  readonly store?: TestStore
  /** MCP settings over the defaults; the health checker is off unless `healthIntervalMs` says otherwise. */
  readonly mcp?: Partial<McpConfig>
  readonly hostResolver?: ProviderSettings["hostResolver"]
  readonly connector?: ProviderSettings["connector"]
}

export interface Registered {
  readonly integrationId: string
  readonly serverId: string
  readonly serverSlug: string
}

export const startMcpGateway = async (options: McpGatewayOptions) => {
  const server: TestServer = await startTestServer({
    store: options.store,
    providers: {
      registry: providerRegistry({
        providerBaseUrls: [],
        upstreamTimeoutMs: 10_000,
        trustedCustomHosts: options.trusted
      }),
      masterKey: new Uint8Array(randomBytes(32)),
      hostResolver: options.hostResolver,
      connector: options.connector
    },
    mcp: { ...DEFAULT_MCP_CONFIG, timeoutMs: 5_000, healthIntervalMs: 0, ...options.mcp }
  })
  let count = 0

  /** An integration at `url` and a server of the default workspace using it; `fields` go to the integration. */
  const register = async (
    url: string,
    transport: "http" | "sse",
    fields: Record<string, unknown> = {}
  ): Promise<Registered> => {
    const n = ++count
    const integration = await server.send("POST", "/v1/mcp-integrations", {
      name: `Live ${n}`,
      url,
      transport,
      auth_type: "headers",
      ...fields
    })
    expect(integration.status).toBe(201)
    const integrationId: string = (await jsonOf(integration)).id
    const serverSlug = `live-${n}`
    const made = await server.send("POST", "/v1/mcp-servers", {
      name: `Live server ${n}`,
      slug: serverSlug,
      mcp_integration_id: integrationId,
      workspace_id: server.workspaceId
    })
    expect(made.status).toBe(201)
    return { integrationId, serverId: (await jsonOf(made)).id, serverSlug }
  }

  return { server, register, close: () => server.close() }
}

export type McpGateway = Awaited<ReturnType<typeof startMcpGateway>>

/** Polls `read` until `done` holds for its answer (bounded), and returns that answer. */
export const eventually = async <A>(
  read: () => Promise<A>,
  done: (value: A) => boolean,
  timeoutMs = 15_000
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  let value = await read()
  while (!done(value)) {
    if (Date.now() > deadline) {
      throw new Error(`condition not reached in ${timeoutMs} ms; last: ${JSON.stringify(value)}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
    value = await read()
  }
  return value
}
