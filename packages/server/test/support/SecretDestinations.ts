/**
 * Fake destinations for the rule of stored secrets: loopback HTTP servers that record every header value they
 * receive, so a test can say which secrets reached which destination. Each answers the fine-tuning listing a
 * provider call makes (an empty list, for any key) and refuses everything else with a 503, which is all an MCP
 * call (test, sync) needs to have sent its headers. And a gateway whose provider `openai`, custom hosts and MCP
 * URLs may be any of them (all trusted), with a workspace key that may store and use every kind of secret.
 */
import { randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { DEFAULT_MCP_CONFIG, providerRegistry } from "../../src/App.ts"
import { createWorkspaceServiceKey } from "./ApiClient.ts"
import { jsonOf, startTestServer, type TestStore } from "./TestServer.ts"

export interface SecretDestination {
  readonly name: string
  /** `http://127.0.0.1:<port>`: a provider's base URL, a custom host, or (with a path) an MCP server's URL. */
  readonly origin: string
  readonly host: string
  /** Every header value received, in order. */
  readonly received: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

export const startSecretDestination = (name: string): Promise<SecretDestination> => {
  const received: Array<string> = []
  const server: Server = createServer((req, res) => {
    for (const value of Object.values(req.headers)) {
      if (typeof value === "string") received.push(value)
      else if (Array.isArray(value)) received.push(...value)
    }
    req.resume()
    const listing = req.method === "GET" && (req.url ?? "").split("?")[0] === "/v1/fine_tuning/jobs"
    res.writeHead(listing ? 200 : 503, { "content-type": "application/json" })
    res.end(JSON.stringify(listing ? { object: "list", data: [], has_more: false } : { error: "unavailable" }))
  })
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        name,
        origin: `http://127.0.0.1:${port}`,
        host: `127.0.0.1:${port}`,
        received,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}

/** A gateway whose provider `openai` is `primary`, every destination trusted; MCP health checks off. */
export const startSecretsGateway = async (
  store: TestStore,
  primary: SecretDestination,
  destinations: ReadonlyArray<SecretDestination>
) => {
  const server = await startTestServer({
    store,
    providers: {
      registry: providerRegistry({
        providerBaseUrls: [["openai", `${primary.origin}/v1`]],
        upstreamTimeoutMs: 5_000,
        trustedCustomHosts: destinations.map((destination) => destination.host)
      }),
      masterKey: new Uint8Array(randomBytes(32))
    },
    mcp: { ...DEFAULT_MCP_CONFIG, timeoutMs: 5_000, healthIntervalMs: 0 }
  })
  const { key } = await server.api(
    createWorkspaceServiceKey("secrets", server.workspaceId, [
      "completions.write",
      "virtual_keys.create",
      "virtual_keys.update",
      "configs.create",
      "configs.update",
      "workspace_mcp_integrations.create",
      "workspace_mcp_integrations.read"
    ])
  )
  /** A JSON request with the workspace key. */
  const send = (method: string, path: string, body?: unknown) => server.send(method, path, body, key)
  return {
    server,
    send,
    /** A provider call with these selection headers: each stored provider key it uses is sent. */
    jobs: (headers: Record<string, string>) => server.request("/v1/fine_tuning/jobs", { key, headers }),
    /** A capability sync of the integration: its headers are sent to its URL. */
    sync: (integrationId: string) => send("POST", `/v1/mcp-integrations/${integrationId}/capabilities/sync`),
    /** Creates a workspace-level integration; its id. */
    createIntegration: async (body: Record<string, unknown>): Promise<string> => {
      const made = await send("POST", "/v1/mcp-integrations", { auth_type: "headers", transport: "http", ...body })
      if (made.status !== 201) throw new Error(`integration not created: ${made.status} ${await made.text()}`)
      return (await jsonOf(made)).id
    },
    close: () => server.close()
  }
}

export type SecretsGateway = Awaited<ReturnType<typeof startSecretsGateway>>
