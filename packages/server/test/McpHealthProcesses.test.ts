/**
 * Two `serve` processes on one PostgreSQL: only one checks MCP health at a time (the other waits on the lease),
 * and when the checker is killed the other takes over. Each process logs every check it makes (LOG_LEVEL=debug),
 * and the MCP server counts the sessions it is asked for.
 */
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { cleanupsAfterAll } from "./support/Cleanups.ts"
import { freshDatabase, postgresUrl } from "./support/Databases.ts"
import { eventually } from "./support/McpGateway.ts"
import { startSdkMcpServer } from "./support/SdkMcpServer.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const cleanups = cleanupsAfterAll()

/** The checks a process has logged, and whether it said it became the checker. */
const checksOf = (process: ServerProcess) =>
  process.stderr().split("\n").filter((line) => line.includes(`"MCP health check"`)).length
const becameChecker = (process: ServerProcess) => process.stderr().includes("this process checks now")

describe.skipIf(postgresUrl === undefined)("MCP health checks among processes on PostgreSQL", () => {
  it("runs one checker at a time, and replaces a checker that crashed", async () => {
    const database = await freshDatabase(postgresUrl!)
    cleanups.push(() => database.drop())
    const mcp = await startSdkMcpServer()
    cleanups.push(() => mcp.close())
    const env = {
      GATEWAY_STORE: "postgres",
      DATABASE_URL: database.url,
      GATEWAY_MASTER_KEY: randomBytes(32).toString("base64"),
      TRUSTED_CUSTOM_HOSTS: mcp.host,
      // The lease lasts three intervals: 300 ms let a process that stalled that long under CI's load (two
      // cores, several servers and PostgreSQL) lose it to the other, which is the takeover, not a fault.
      MCP_HEALTH_INTERVAL_MS: "300",
      LOG_LEVEL: "debug"
    }
    const processes = await Promise.all([startServerProcess(env), startServerProcess(env)])
    for (const p of processes) cleanups.push(() => void p.child.kill("SIGKILL"))
    const key = processes.map((p) => p.adminKey).find((k) => k !== undefined)!
    const send = (path: string, body: unknown) =>
      fetch(`${processes[0].baseUrl}${path}`, {
        method: "POST",
        headers: { "x-service-api-key": key, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
    const made = await send("/v1/mcp-integrations", {
      name: "Watched",
      url: mcp.httpUrl,
      transport: "http",
      auth_type: "none"
    })
    expect(made.status).toBe(201)

    await eventually(async () => processes.map(checksOf).reduce((a, b) => a + b), (n) => n >= 8)
    const checkers = processes.filter(becameChecker)
    expect(checkers).toHaveLength(1)
    const [checker] = checkers
    const waiting = processes.find((p) => p !== checker)!
    expect(checksOf(waiting)).toBe(0)
    // The server saw no session the checker did not log (at most one still in flight).
    const logged = checksOf(checker)
    expect(mcp.initializations.length).toBeGreaterThanOrEqual(logged)

    checker.child.kill("SIGKILL")
    await checker.exited
    const sessionsAtCrash = mcp.initializations.length
    await eventually(async () => checksOf(waiting), (n) => n >= 5)
    expect(becameChecker(waiting)).toBe(true)
    expect(mcp.initializations.length).toBeGreaterThanOrEqual(sessionsAtCrash + 5)
  }, 90_000)
})
