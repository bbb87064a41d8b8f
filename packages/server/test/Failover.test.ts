/**
 * A primary that fails, behind a multi-host `DATABASE_URL`: two PostgreSQL 15 servers on loopback (Debian's
 * binaries), the standby streaming synchronously from the primary, and two `serve` processes on
 * `postgres://…@127.0.0.1:<primary>,127.0.0.1:<standby>/gateway?target_session_attrs=read-write` under a bounded
 * mixed load. The primary is killed (`pg_ctl stop -m immediate`) and the standby promoted (`pg_ctl promote`);
 * with no restart of the gateway:
 * - writes succeed again within 15 s of the kill;
 * - every answer in the gap (and any other non-2xx) is 503 `store_unavailable` in the envelope with retry-after;
 * - every write answered 2xx is in the new primary (synchronous replication loses none);
 * - both processes' change feeds listen on the new primary: a key revoked through one is refused by the other
 *   within 1 s;
 * - `audit verify` passes on the new primary.
 * Before the failover, migrating against the standby alone stops with the read-only cause.
 *
 * Without the binaries the suite is skipped with one loud line, or fails when `REQUIRE_PG_CLUSTER=1`
 * (`.ci/run`, where they are part of the machine).
 */
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { query } from "./support/Databases.ts"
import { type Answer, loadPrompt, startLoad, workspaceNames } from "./support/MixedLoad.ts"
import { availableOrSkip, PG_BIN, type ReplicatedPair, startReplicatedPair } from "./support/PgCluster.ts"
import { runCli as cli, type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"
import { call, json, revocationCrossing, within } from "./support/TwoProcesses.ts"

const available = availableOrSkip(
  "failover tests (two PostgreSQL 15 servers)",
  [`${PG_BIN}/initdb`, `${PG_BIN}/pg_ctl`, `${PG_BIN}/pg_basebackup`],
  "REQUIRE_PG_CLUSTER"
)

describe.runIf(available)("failover behind a multi-host DATABASE_URL", () => {
  let pair: ReplicatedPair
  let a: ServerProcess
  let b: ServerProcess
  let env: Record<string, string>
  let admin: string
  let workspaceId: string

  beforeAll(async () => {
    pair = await startReplicatedPair("gateway")
    env = {
      GATEWAY_STORE: "postgres",
      DATABASE_URL: pair.multiHostUrl("gateway"),
      GATEWAY_MASTER_KEY: randomBytes(32).toString("base64"),
      DATABASE_STATEMENT_TIMEOUT_MS: "3000",
      DATABASE_CONNECT_TIMEOUT_MS: "2000",
      LOG_LEVEL: "info"
    }
    a = await startServerProcess(env)
    b = await startServerProcess(env)
    admin = a.adminKey!
    const listed = await json<{ data: Array<{ id: string }> }>(await call(a, admin, "GET", "/v1/workspaces"), 200)
    workspaceId = listed.data[0]!.id
  }, 120_000)

  afterAll(async () => {
    a?.child.kill("SIGKILL")
    b?.child.kill("SIGKILL")
    await pair?.close()
  })

  it("migrating against the standby alone stops naming the read-only cause", async () => {
    const started = Date.now()
    const migrated = await cli(["migrate"], { ...env, DATABASE_URL: pair.standby.url("gateway") }, 40_000)
    const said = `${migrated.stdout}${migrated.stderr}`
    // The time taken and the output go with the code, so a run killed at 40 s says where it stood.
    expect({ code: migrated.code, ms: Date.now() - started, said }).toMatchObject({ code: 1 })
    expect(said).toMatch(/replica \(in recovery\), where every transaction is read-only/)
    expect(said).not.toMatch(/current transaction is aborted/)
  }, 60_000)

  it(
    "rides out the primary's death: 503 in the gap, writes back within 15 s, none lost, feed and audit intact",
    async () => {
      const promptId = await loadPrompt(a, admin, workspaceId, "failover")
      // When the primary was killed, and when the first create after it answered 201.
      const times: { killed?: number; recovered?: number } = {}
      const load = startLoad({
        processes: [a, b],
        key: admin,
        promptId,
        operations: ["create", "read", "create", "render"],
        workers: 4,
        maxRequests: 4_000,
        // Bounded: a few seconds once writes are back, and 40 s at most after the kill.
        stop: () =>
          (times.recovered !== undefined && Date.now() - times.recovered > 2_000) ||
          (times.killed !== undefined && Date.now() - times.killed > 40_000)
      })
      const createdOk = (answer: Answer) => answer.operation === "create" && answer.status === 201
      await within(20_000, async () => load.answers.filter(createdOk).length >= 20)

      const feedsBefore = [a.stderr(), b.stderr()].map((s) => s.split("change feed: listening again").length)
      await pair.primary.kill()
      const killedAt = Date.now()
      times.killed = killedAt
      // The standby is promoted a moment later, as an operator's or Patroni's failover would.
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      await pair.standby.promote()
      await within(30_000, async () => {
        const back = load.answers.find((answer) => createdOk(answer) && answer.at > killedAt + 1_000)
        if (back !== undefined) times.recovered = back.at
        return back !== undefined
      })
      await load.done

      const recoveredAt = times.recovered!
      const tookMs = recoveredAt - killedAt
      console.info(`failover: writes back ${tookMs} ms after the kill, ${load.answers.length} requests`)
      expect(tookMs).toBeLessThan(15_000)
      const failed = load.answers.filter((answer) => answer.status < 200 || answer.status >= 300)
      const gap = failed.filter((answer) => answer.at >= killedAt && answer.at <= recoveredAt)
      expect(gap.length).toBeGreaterThan(0)
      for (const answer of failed) {
        expect({ status: answer.status, code: answer.code, retryAfter: answer.retryAfter !== null }).toEqual({
          status: 503,
          code: "store_unavailable",
          retryAfter: true
        })
      }

      const present = await workspaceNames(a, admin)
      const acknowledged = load.answers.flatMap((answer) => (answer.created === undefined ? [] : [answer.created]))
      expect(acknowledged.filter((name) => !present.has(name))).toEqual([])

      // Both feeds listen on the new primary again (each logs it), then a revocation crosses within 1 s.
      await within(
        15_000,
        async () =>
          [a.stderr(), b.stderr()].every((s, i) => s.split("change feed: listening again").length > feedsBefore[i]!)
      )
      const revokedMs = await revocationCrossing({ a, b }, admin, workspaceId, "after failover")
      console.info(`failover: revocation crossed processes in ${Math.round(revokedMs)} ms on the new primary`)

      const verified = await cli(["audit", "verify"], env)
      expect(verified.stdout, verified.stderr).toMatch(/^ok: \d+ audit records in \d+ chains?, all intact/)
    },
    120_000
  )
})

/**
 * A primary demoted rather than killed: it stays up but takes no writes (`default_transaction_read_only`, as a
 * primary fenced by an operator or restarting as a standby), and the standby is promoted. The process's pooled
 * connections to the demoted host are discarded (none of the gateway's remains there), writes meanwhile answer
 * 503 (PostgreSQL's 25006 `read_only_sql_transaction` among them), and writes go to the new primary.
 */
describe.runIf(available)("a demoted primary behind a multi-host DATABASE_URL", () => {
  let pair: ReplicatedPair
  let server: ServerProcess

  beforeAll(async () => {
    pair = await startReplicatedPair("gateway")
    server = await startServerProcess({
      GATEWAY_STORE: "postgres",
      DATABASE_URL: pair.multiHostUrl("gateway"),
      GATEWAY_MASTER_KEY: randomBytes(32).toString("base64"),
      DATABASE_POOL_SIZE: "4"
    })
  }, 120_000)

  afterAll(async () => {
    server?.child.kill("SIGKILL")
    await pair?.close()
  })

  it("discards the connections to the demoted host and writes to the new primary", async () => {
    const admin = server.adminKey!
    const create = (name: string) => call(server, admin, "POST", "/v1/workspaces", { name })
    const gatewayConnections = async (url: string) =>
      (await query<{ n: number }>(
        url,
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'gateway-control'"
      ))[0]!.n
    // Fill the pool a little: concurrent creates each hold a connection.
    const before = await Promise.all(Array.from({ length: 4 }, (_, i) => create(`before-${i}`)))
    expect(before.map((r) => r.status)).toEqual([201, 201, 201, 201])
    expect(await gatewayConnections(pair.primary.url())).toBeGreaterThan(0)

    await query(pair.primary.url(), "ALTER SYSTEM SET default_transaction_read_only = on")
    await query(pair.primary.url(), "SELECT pg_reload_conf()")
    // No host takes writes now: a create answers 503 store_unavailable, whether it reached the demoted host
    // (25006) or found no host at all.
    await within(10_000, async () => {
      const refused = await create(`refused-${Date.now()}`)
      const body = (await refused.json()) as { error?: { code?: string } }
      expect([201, 503]).toContain(refused.status)
      return refused.status === 503 && body.error?.code === "store_unavailable"
    })

    await pair.standby.promote()
    let after = ""
    await within(15_000, async () => {
      after = `after-${Date.now()}`
      return (await create(after)).status === 201
    })
    await within(5_000, async () => (await gatewayConnections(pair.primary.url())) === 0)
    const onNewPrimary = await query<{ name: string }>(
      pair.standby.url("gateway"),
      `SELECT name FROM workspaces WHERE name IN ('before-0', 'before-1', 'before-2', 'before-3', '${after}')`
    )
    expect(onNewPrimary.map((row) => row.name).sort()).toEqual(
      ["before-0", "before-1", "before-2", "before-3", after].sort()
    )
  }, 120_000)
})
