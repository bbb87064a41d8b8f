/**
 * Audited writes on one PostgreSQL from 1, 2 and 4 server processes: `POST /v1/prompts` and
 * `POST /v1/api-keys/workspace/service`, each a change and its audit record in one transaction. Servers are
 * not pinned (they share the machine's cores with PostgreSQL and the load generator). Beside each run: the
 * servers' CPU per write and the share of PostgreSQL's busy sessions that were waiting for a lock.
 *
 * And the audit chain's own ceiling, with no HTTP or Node in the way: pgbench running the statements of an
 * append, as one chain under one lock (the design before) and as chains (the design now).
 */
import autocannon from "autocannon"
import { spawnSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  bin,
  bootstrap,
  cpuMs,
  log,
  median,
  psql,
  round,
  type Server,
  sleep,
  startServer,
  throwawayDatabase
} from "../support.ts"

const TOTAL_CONNECTIONS = 32
const WARMUP_WRITES = 3_000
const PROCESSES = [1, 2, 4] as const

const writes = (workspaceId: string) => ({
  prompts: (server: Server, key: string): autocannon.Options => ({
    url: `${server.url}/v1/prompts`,
    method: "POST",
    headers: { "x-service-api-key": key, "content-type": "application/json" },
    idReplacement: true,
    body: JSON.stringify({
      workspace_id: workspaceId,
      name: "Prompt [<id>]",
      string: "Hello {{name}}",
      parameters: { model: "gpt-4o" }
    })
  }),
  api_keys: (server: Server, key: string): autocannon.Options => ({
    url: `${server.url}/v1/api-keys/workspace/service`,
    method: "POST",
    headers: { "x-service-api-key": key, "content-type": "application/json" },
    idReplacement: true,
    body: JSON.stringify({ workspace_id: workspaceId, name: "Key [<id>]", scopes: ["prompts.render"] })
  })
})

/** Samples, until stopped, how many of the database's busy sessions wait for a lock. */
const sampleLockWaits = (url: string, database: string) => {
  let active = 0
  let waiting = 0
  let running = true
  const done = (async () => {
    while (running) {
      const [busy, locked] = psql(
        url,
        `SELECT count(*) FILTER (WHERE state = 'active'), count(*) FILTER (WHERE state = 'active' AND wait_event_type = 'Lock')
         FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`
      ).trim().split("|").map(Number)
      active += busy ?? 0
      waiting += locked ?? 0
      await sleep(250)
    }
  })()
  return async () => {
    running = false
    await done
    return active === 0 ? 0 : round(waiting / active, 2)
  }
}

/** One kind of write from every process of a run, summed. */
export interface WriteResult {
  readonly writes_per_second: number
  readonly p50: number
  readonly p99: number
  readonly errors: number
  readonly server_cpu_ms_per_write: number
  readonly lock_wait_share: number
}
export type WriteKind = "prompts" | "api_keys"
export type WriteRun = { readonly processes: number } & Record<WriteKind, WriteResult>

const run = async (processes: number): Promise<WriteRun> => {
  const name = `gateway_control_bench_writes_${processes}`
  const database = throwawayDatabase(name)
  const boot = bootstrap(database.env)
  const servers: Array<Server> = []
  try {
    for (let i = 0; i < processes; i++) {
      servers.push(await startServer(bin, ["serve"], database.env, "/readyz", { pin: false }))
    }
    const result: Partial<Record<WriteKind, WriteResult>> = {}
    const workload = writes(boot.workspace_id)
    for (const kind of ["prompts", "api_keys"] as const) {
      const options = workload[kind]
      const connections = TOTAL_CONNECTIONS / processes
      const each = (duration: number) =>
        Promise.all(servers.map((server) => autocannon({ ...options(server, boot.api_key), connections, duration })))
      // The same warm-up for every process, by count: by time, 4 processes would each get a quarter of it.
      await Promise.all(
        servers.map((server) => autocannon({ ...options(server, boot.api_key), connections, amount: WARMUP_WRITES }))
      )
      const stopSampling = sampleLockWaits(database.url, name)
      const before = servers.map((server) => cpuMs(server.child.pid!))
      const duration = Math.max(5, Number(process.env.BENCH_DURATION ?? 10))
      const results = await each(duration)
      const cpu = servers.reduce((sum, server, i) => sum + cpuMs(server.child.pid!) - before[i]!, 0)
      const lockWaitShare = await stopSampling()
      const written = results.reduce((sum, r) => sum + r["2xx"], 0)
      result[kind] = {
        writes_per_second: round(written / duration),
        p50: Math.max(...results.map((r) => r.latency.p50)),
        p99: Math.max(...results.map((r) => r.latency.p99)),
        errors: results.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0),
        server_cpu_ms_per_write: round(cpu / Math.max(written, 1), 2),
        lock_wait_share: lockWaitShare
      }
      log(`audited writes, ${processes} process(es), ${kind}: ${JSON.stringify(result[kind])}`)
    }
    return { processes, prompts: result.prompts!, api_keys: result.api_keys! }
  } finally {
    for (const server of servers) await server.stop()
    database.drop()
  }
}

export const benchAuditedWrites = async () => {
  const runs: Array<WriteRun> = []
  for (const processes of PROCESSES) runs.push(await run(processes))
  const rate = (r: WriteRun, kind: WriteKind) => r[kind].writes_per_second
  const [one, , four] = runs
  return {
    total_connections: TOTAL_CONNECTIONS,
    runs,
    four_over_one: {
      prompts: round(rate(four!, "prompts") / rate(one!, "prompts"), 2),
      api_keys: round(rate(four!, "api_keys") / rate(one!, "api_keys"), 2)
    }
  }
}

// -----------------------------------------------------------------------------------------------------------
// The chain's ceiling

const CHAIN_TABLES = `
  DROP TABLE IF EXISTS bench_one_chain_logs, bench_chain_logs, bench_chain_heads;
  CREATE TABLE bench_one_chain_logs (seq bigint PRIMARY KEY, body text, hash text);
  CREATE TABLE bench_chain_logs (chain int, seq bigint, body text, hash text, PRIMARY KEY (chain, seq));
  CREATE TABLE bench_chain_heads (chain int PRIMARY KEY, seq bigint NOT NULL, hash text NOT NULL);
  INSERT INTO bench_chain_heads SELECT c, 0, repeat('0', 64) FROM generate_series(0, 15) AS c;`

/** The statements of an append as they were: one lock for every writer, the chain's end, the record. */
const ONE_CHAIN = `BEGIN;
SELECT pg_advisory_xact_lock(7321004212);
SELECT coalesce(max(seq), 0) AS seq FROM bench_one_chain_logs \\gset
INSERT INTO bench_one_chain_logs VALUES (:seq + 1, repeat('x', 400), md5(random()::text));
COMMIT;
`

/** As they are: the first free chain's row, then its new end and the record in one statement. */
const CHAINS = `BEGIN;
SELECT chain, seq FROM bench_chain_heads ORDER BY chain LIMIT 1 FOR UPDATE SKIP LOCKED \\gset
WITH moved AS (UPDATE bench_chain_heads SET seq = :seq + 1 WHERE chain = :chain)
  INSERT INTO bench_chain_logs VALUES (:chain, :seq + 1, repeat('x', 400), md5(random()::text));
COMMIT;
`

const pgbench = (url: string, script: string, clients: number) => {
  const file = join(tmpdir(), `gwc-bench-chain-${process.pid}.sql`)
  writeFileSync(file, script)
  const out = spawnSync("pgbench", ["-n", "-f", file, "-c", String(clients), "-j", "2", "-T", "4", url], {
    encoding: "utf8"
  })
  const tps = /tps = ([\d.]+)/.exec(out.stdout)?.[1]
  if (tps === undefined || /failed transactions: [1-9]/.test(out.stdout)) {
    log(`pgbench failed:\n${out.stdout}\n${out.stderr}`)
  }
  return Number(tps ?? 0)
}

export const benchAuditChainCeiling = () => {
  if (spawnSync("pgbench", ["--version"]).status !== 0) {
    log("audit chain ceiling skipped: pgbench is not on the PATH")
    return undefined
  }
  const database = throwawayDatabase("gateway_control_bench_chain")
  try {
    psql(database.url, CHAIN_TABLES)
    const tps = {
      one_chain: { c1: [] as Array<number>, c8: [] as Array<number> },
      chains: { c1: [] as Array<number>, c8: [] as Array<number> }
    }
    for (let i = 0; i < 2; i++) {
      for (const clients of [1, 8] as const) {
        tps.one_chain[`c${clients}`].push(pgbench(database.url, ONE_CHAIN, clients))
        tps.chains[`c${clients}`].push(pgbench(database.url, CHAINS, clients))
      }
    }
    const result = {
      one_chain: { clients_1: round(median(tps.one_chain.c1)), clients_8: round(median(tps.one_chain.c8)) },
      chains: { clients_1: round(median(tps.chains.c1)), clients_8: round(median(tps.chains.c8)) }
    }
    log(`audit chain ceiling (appends/s): ${JSON.stringify(result)}`)
    return {
      ...result,
      chains_over_one_chain_8_clients: round(result.chains.clients_8 / result.one_chain.clients_8, 2)
    }
  } finally {
    database.drop()
  }
}
