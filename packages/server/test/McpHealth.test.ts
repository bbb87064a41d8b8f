/**
 * The background health checker against real MCP servers: active → unhealthy after MCP_UNHEALTHY_AFTER failed
 * checks → active on the first success, archived integrations left alone, and the status shown wherever the
 * integration and its servers are read. Short intervals; the waits are bounded polls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually, type McpGateway, startMcpGateway } from "./support/McpGateway.ts"
import { type SdkMcpServer, startSdkMcpServer } from "./support/SdkMcpServer.ts"
import { jsonOf } from "./support/TestServer.ts"

describe("MCP health checks", () => {
  let flaky: SdkMcpServer
  let archivedTarget: SdkMcpServer
  let gateway: McpGateway

  beforeAll(async () => {
    ;[flaky, archivedTarget] = await Promise.all([startSdkMcpServer(), startSdkMcpServer()])
    gateway = await startMcpGateway({
      trusted: [flaky.host, archivedTarget.host],
      mcp: { healthIntervalMs: 50, unhealthyAfter: 3, timeoutMs: 2_000 }
    })
  })
  afterAll(async () => {
    await gateway?.close()
    await Promise.all([flaky, archivedTarget].map((s) => s?.close()))
  })

  const integrationOf = async (id: string) => jsonOf(await gateway.server.request(`/v1/mcp-integrations/${id}`))
  const checksOf = (server: SdkMcpServer) => server.initializations.length

  it("turns unhealthy after repeated failures and active again on the first success", async () => {
    const { integrationId, serverId } = await gateway.register(flaky.sseUrl, "sse")
    // Checked while healthy: still active, no failures.
    await eventually(async () => checksOf(flaky), (n) => n >= 2)
    expect(await integrationOf(integrationId)).toMatchObject({ status: "active", consecutive_failures: 0 })

    flaky.failing = true
    const failingSince = Date.now()
    const unhealthy = await eventually(() => integrationOf(integrationId), (i) => i.status === "unhealthy")
    expect(unhealthy.consecutive_failures).toBeGreaterThanOrEqual(3)
    expect(unhealthy.status_message).toContain("503")
    expect(Date.parse(unhealthy.status_changed_at)).toBeGreaterThanOrEqual(failingSince - 1_000)
    // Its servers read as it does.
    await eventually(
      async () => (await jsonOf(await gateway.server.request(`/v1/mcp-servers/${serverId}`))).status,
      (status) => status === "unhealthy"
    )

    flaky.failing = false
    const recovered = await eventually(() => integrationOf(integrationId), (i) => i.status === "active")
    expect(recovered).toMatchObject({ status_message: null, consecutive_failures: 0 })
    expect(Date.parse(recovered.status_changed_at)).toBeGreaterThan(Date.parse(unhealthy.status_changed_at))
  })

  it("counts failures below the threshold without changing the status", async () => {
    const own = await startSdkMcpServer()
    const slow = await startMcpGateway({
      trusted: [own.host],
      mcp: { healthIntervalMs: 50, unhealthyAfter: 1_000, timeoutMs: 2_000 }
    })
    try {
      own.failing = true
      const { integrationId } = await slow.register(own.httpUrl, "http")
      const read = async () => jsonOf(await slow.server.request(`/v1/mcp-integrations/${integrationId}`))
      const counted = await eventually(read, (i) => i.consecutive_failures >= 3)
      expect(counted).toMatchObject({ status: "active", status_message: null })
      own.failing = false
      await eventually(read, (i) => i.consecutive_failures === 0)
    } finally {
      await slow.close()
      await own.close()
    }
  })

  it("does not check archived integrations, and their servers read as archived", async () => {
    const { integrationId, serverId } = await gateway.register(archivedTarget.httpUrl, "http")
    await eventually(async () => checksOf(archivedTarget), (n) => n >= 1)
    const archived = await gateway.server.send("DELETE", `/v1/mcp-integrations/${integrationId}`, undefined)
    expect((await jsonOf(archived)).status).toBe("archived")
    const before = checksOf(archivedTarget)
    const otherBefore = checksOf(flaky)
    // Several rounds go by (the other integration is checked in each), and this one is not among them.
    await eventually(async () => checksOf(flaky), (n) => n >= otherBefore + 4)
    // A check that had started before the archive may still land; none starts after it.
    expect(checksOf(archivedTarget)).toBeLessThanOrEqual(before + 1)
    expect(await integrationOf(integrationId)).toMatchObject({ status: "archived" })
    expect((await jsonOf(await gateway.server.request(`/v1/mcp-servers/${serverId}`))).status).toBe("archived")
  })
})
