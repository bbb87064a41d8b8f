/**
 * `POST /v1/mcp-servers/{id}/test` against real MCP servers built with the SDK, over Streamable HTTP and SSE:
 * initialize and ping, the latency, the configured headers sent, sessions ended, the address guard of provider
 * calls applied to MCP URLs, and an audit record without the secrets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually, type McpGateway, startMcpGateway } from "./support/McpGateway.ts"
import { loopbackOnlyConnector, tableResolver } from "./support/Outbound.ts"
import { type SdkMcpServer, startSdkMcpServer } from "./support/SdkMcpServer.ts"
import { errorOf, jsonOf } from "./support/TestServer.ts"

const SECRET = "Bearer sk-live-0123456789abcdef"

describe("testing an MCP server", () => {
  let small: SdkMcpServer
  let failing: SdkMcpServer
  /** Never trusted: the guard must keep the gateway away from it. */
  let untrusted: SdkMcpServer
  /** Trusted, and stopped before the tests: nothing listens on its port. */
  let stopped: SdkMcpServer
  let gateway: McpGateway
  const connector = loopbackOnlyConnector()
  const dns = tableResolver({
    // Public when checked, loopback afterwards: the connection must stay on the checked address.
    "rebind.example": [["1.1.1.1"], ["127.0.0.1"]]
  })

  beforeAll(async () => {
    ;[small, failing, untrusted, stopped] = await Promise.all(
      [startSdkMcpServer(), startSdkMcpServer(), startSdkMcpServer(), startSdkMcpServer()]
    )
    failing.failing = true
    await stopped.close()
    gateway = await startMcpGateway({
      trusted: [small.host, failing.host, stopped.host],
      hostResolver: dns.resolver,
      connector: connector.factory
    })
  })
  afterAll(async () => {
    await gateway?.close()
    await Promise.all([small, failing, untrusted].map((s) => s?.close()))
  })

  const test = (serverId: string, key?: string) =>
    gateway.server.send("POST", `/v1/mcp-servers/${serverId}/test`, undefined, key)

  for (const transport of ["http", "sse"] as const) {
    it(`initializes and pings over ${transport}, sending the configured headers, and reports the latency`, async () => {
      const { serverId } = await gateway.register(transport === "http" ? small.httpUrl : small.sseUrl, transport, {
        configurations: { headers: { Authorization: SECRET, "X-Team": "blue" } }
      })
      const before = small.initializations.length
      const started = performance.now()
      const response = await test(serverId)
      const elapsed = performance.now() - started
      expect(response.status).toBe(200)
      const result = await jsonOf(response)
      expect(result).toMatchObject({ success: true, status_code: 200, error: null })
      expect(Number.isInteger(result.response_time_ms)).toBe(true)
      expect(result.response_time_ms).toBeGreaterThanOrEqual(0)
      expect(result.response_time_ms).toBeLessThanOrEqual(Math.ceil(elapsed))
      const seen = small.initializations.slice(before)
      expect(seen.map((i) => i.transport)).toEqual([transport])
      expect(seen[0].headers.authorization).toBe(SECRET)
      expect(seen[0].headers["x-team"]).toBe("blue")
      // The session ends with the test: no connection is left open on the server.
      await eventually(async () => small.openSessions(), (open) => open === 0)
    })
  }

  it("reports a server that answers with an error, and one that is not there, as failures", async () => {
    const down = await gateway.register(failing.httpUrl, "http")
    const answer = await jsonOf(await test(down.serverId))
    expect(answer).toMatchObject({ success: false, status_code: 503 })
    expect(answer.error).toContain("503")

    const gone = await gateway.register(stopped.sseUrl, "sse")
    const refused = await jsonOf(await test(gone.serverId))
    expect(refused).toMatchObject({ success: false, status_code: null })
    expect(refused.error).toContain("ECONNREFUSED")
  })

  it("gives up on a server that does not answer after MCP_TIMEOUT_MS", async () => {
    const silent = await startSdkMcpServer()
    silent.hanging = true
    const quick = await startMcpGateway({ trusted: [silent.host], mcp: { timeoutMs: 300 } })
    try {
      for (const [transport, url] of [["http", silent.httpUrl], ["sse", silent.sseUrl]] as const) {
        const { serverId } = await quick.register(url, transport)
        const started = performance.now()
        const answer = await jsonOf(await quick.server.send("POST", `/v1/mcp-servers/${serverId}/test`, undefined))
        const elapsed = performance.now() - started
        expect(answer).toMatchObject({ success: false, status_code: null })
        expect(answer.error).toContain("within 300 ms")
        expect(answer.response_time_ms).toBeGreaterThanOrEqual(300)
        // Ending the session does not wait on the silent server either.
        expect(elapsed).toBeLessThan(3_000)
      }
    } finally {
      await quick.close()
      await silent.close()
    }
  })

  it("refuses a loopback URL that is not trusted, without connecting", async () => {
    const { integrationId, serverId } = await gateway.register(untrusted.httpUrl, "http")
    const response = await test(serverId)
    expect(await errorOf(response)).toMatchObject({ status: 400, code: "invalid_request", param: "url" })
    const sync = await gateway.server.send("POST", `/v1/mcp-integrations/${integrationId}/capabilities/sync`, undefined)
    const refusal = await errorOf(sync)
    expect(refusal).toMatchObject({ status: 400, param: "url" })
    expect(refusal.message).toContain("loopback")
    expect(refusal.message).toContain("TRUSTED_CUSTOM_HOSTS")
    expect(untrusted.initializations).toEqual([])
  })

  it("pins the connection to the address it checked, whatever DNS answers afterwards", async () => {
    const { serverId } = await gateway.register("http://rebind.example:8080/mcp", "http")
    const answer = await jsonOf(await test(serverId))
    expect(answer.success).toBe(false)
    const attempts = connector.attempts.filter((a) => a.hostname === "rebind.example")
    expect(attempts.length).toBeGreaterThan(0)
    for (const attempt of attempts) expect(attempt).toMatchObject({ addresses: ["1.1.1.1"], opened: false })
    expect(dns.lookups("rebind.example")).toBe(1)
  })

  it("needs mcp_servers.test, and is audited without the header values", async () => {
    const { serverId } = await gateway.register(small.httpUrl, "http", {
      configurations: { headers: { Authorization: SECRET } }
    })
    const created = await jsonOf(
      await gateway.server.send("POST", "/v1/api-keys/workspace/service", {
        name: "reader",
        workspace_id: gateway.server.workspaceId,
        scopes: ["mcp_servers.read"]
      })
    )
    expect(await errorOf(await test(serverId, created.key))).toMatchObject({ status: 403, code: "forbidden" })
    expect((await test(serverId)).status).toBe(200)
    const records = await jsonOf(
      await gateway.server.request(`/v1/audit-logs?resource_type=mcp_server&action=test&page_size=100`)
    )
    const mine = records.records.filter((r: { resource_id: string }) => r.resource_id === serverId)
    expect(mine.map((r: { response_status_code: number }) => r.response_status_code).sort()).toEqual([200, 403])
    expect(JSON.stringify(records)).not.toContain("sk-live")
  })
})
