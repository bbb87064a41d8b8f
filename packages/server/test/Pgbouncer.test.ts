/**
 * The gateway behind Debian's PgBouncer, in front of the machine's PostgreSQL (a fresh database):
 * - in transaction mode, two `serve` processes with `DATABASE_URL` at PgBouncer and `DATABASE_LISTEN_URL` at
 *   PostgreSQL itself answer a bounded mixed load (creates, reads, renders, prompt updates) with no 5xx, and a key
 *   revoked through one is refused by the other within 1 s (the change feed listens on the direct connection);
 * - the modes it cannot work with stop the start with one line that says what to do: statement mode (it refuses
 *   transactions), and transaction mode with no `DATABASE_LISTEN_URL` (LISTEN would hear nothing).
 *
 * Without `pgbouncer` the suite is skipped with one loud line, or fails when `REQUIRE_PGBOUNCER=1` (`.ci/run`
 * installs it).
 */
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FreshDatabase, freshDatabase, postgresUrl } from "./support/Databases.ts"
import { loadPrompt, startLoad } from "./support/MixedLoad.ts"
import { availableOrSkip, PGBOUNCER, type Pgbouncer, startPgbouncer } from "./support/PgCluster.ts"
import { runCli as cli, type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"
import { call, json, revocationCrossing } from "./support/TwoProcesses.ts"

const available = availableOrSkip("PgBouncer tests", [PGBOUNCER], "REQUIRE_PGBOUNCER")

const target = () => {
  const url = new URL(postgresUrl!)
  return { host: url.hostname, port: url.port === "" ? 5432 : Number(url.port) }
}

describe.runIf(available && postgresUrl !== undefined)("behind PgBouncer", () => {
  let database: FreshDatabase
  let bouncer: Pgbouncer
  let databaseName: string
  let env: Record<string, string>
  const processes: Array<ServerProcess> = []

  beforeAll(async () => {
    database = await freshDatabase(postgresUrl!)
    databaseName = new URL(database.url).pathname.slice(1)
    bouncer = await startPgbouncer(target(), "transaction")
    env = {
      GATEWAY_STORE: "postgres",
      DATABASE_URL: bouncer.url(databaseName),
      DATABASE_LISTEN_URL: database.url,
      GATEWAY_MASTER_KEY: randomBytes(32).toString("base64")
    }
  }, 60_000)

  afterAll(async () => {
    for (const process of processes) process.child.kill("SIGKILL")
    await bouncer?.close()
    await database?.drop()
  })

  it("in transaction mode: a mixed load with no 5xx, and a revocation crossing processes within 1 s", async () => {
    const a = await startServerProcess(env)
    processes.push(a)
    const b = await startServerProcess(env)
    processes.push(b)
    expect(a.stderr()).toMatch(/DATABASE_URL leads to a connection pooler; statements run unprepared/)
    // PgBouncer refuses statement_timeout as a startup parameter; the log says where to set it instead.
    expect(a.stderr()).toMatch(/refuses the statement timeout as a startup parameter.*ALTER ROLE/)
    const admin = a.adminKey!
    const listed = await json<{ data: Array<{ id: string }> }>(await call(a, admin, "GET", "/v1/workspaces"), 200)
    const workspaceId = listed.data[0]!.id
    const promptId = await loadPrompt(a, admin, workspaceId, "pooled")

    const load = startLoad({
      processes: [a, b],
      key: admin,
      promptId,
      operations: ["create", "read", "render", "update"],
      workers: 6,
      maxRequests: 1_200,
      stop: () => false
    })
    await load.done
    const statuses = new Map<number, number>()
    for (const answer of load.answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
    console.info(`pgbouncer: ${load.answers.length} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
    expect(load.answers).toHaveLength(1_200)
    expect(load.answers.filter((answer) => answer.status === 0 || answer.status >= 500)).toEqual([])
    // Besides 2xx, only what the domain answers to concurrent updates of one prompt: 409, "retry".
    expect(
      load.answers.filter((answer) =>
        (answer.status < 200 || answer.status >= 300) && !(answer.operation === "update" && answer.code === "conflict")
      )
    ).toEqual([])

    const tookMs = await revocationCrossing({ a, b }, admin, workspaceId, "pooled")
    console.info(`pgbouncer: revocation crossed processes in ${Math.round(tookMs)} ms through DATABASE_LISTEN_URL`)
  }, 180_000)

  it("in transaction mode with no DATABASE_LISTEN_URL: the start stops, saying to set it", async () => {
    const { DATABASE_LISTEN_URL: _direct, ...withoutListen } = env
    const started = await startServerProcess(withoutListen).then(
      (server) => {
        processes.push(server)
        return "started"
      },
      (error: Error) => error.message
    )
    expect(started).toMatch(/exited with 1/)
    expect(started).toMatch(
      /gateway-control: DATABASE_URL leads to a connection pooler in transaction mode.*DATABASE_LISTEN_URL/
    )
  }, 60_000)

  it(
    "in session mode, with no DATABASE_LISTEN_URL: the start is not refused, and the store answers through the pool",
    async () => {
      const sessionMode = await startPgbouncer(target(), "session")
      try {
        const { DATABASE_LISTEN_URL: _direct, ...withoutListen } = env
        const server = await startServerProcess({ ...withoutListen, DATABASE_URL: sessionMode.url(databaseName) })
        processes.push(server)
        expect(server.stderr()).toMatch(/DATABASE_URL leads to a connection pooler; statements run unprepared/)
        expect(server.stderr()).not.toMatch(/change feed: the listening connection is down/)
        // The store answers through the pool (the readiness probe asks it).
        expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200)
        server.child.kill("SIGTERM")
        await server.exited
      } finally {
        await sessionMode.close()
      }
    },
    60_000
  )

  it("in statement mode: the start stops, saying which modes work", async () => {
    const statementMode = await startPgbouncer(target(), "statement")
    try {
      const migrated = await cli(["migrate"], { ...env, DATABASE_URL: statementMode.url(databaseName) })
      expect(migrated.code).toBe(1)
      expect(migrated.stderr).toMatch(
        /gateway-control: DATABASE_URL leads to a connection pooler that refuses transactions \(statement pooling.*use transaction or session pooling/
      )
    } finally {
      await statementMode.close()
    }
  }, 60_000)
})
