/**
 * What every leg of `npm run bench` shares: starting servers, loading them, reading their CPU time and
 * memory from /proc, and preparing stores.
 */
import { PGlite } from "@electric-sql/pglite"
import autocannon from "autocannon"
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { Agent, request as httpRequest } from "node:http"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export const root = fileURLToPath(new URL("..", import.meta.url))
export const bin = join(root, "packages/server/bin/gateway-control.mjs")
/**
 * The built CLI as an installation runs it (legs/installed.mjs: the bin's heap settings, then `dist/cli`), and
 * the environment it needs here: without the `@gateway-control/source` condition the bench itself runs under.
 */
export const installed = join(root, "bench/legs/installed.mjs")
export const INSTALLED_ENV = { NODE_OPTIONS: "" } as const
/**
 * The Node options the README (Operations, "Node's options") asks a server to run with, as `npm start` does: one
 * V8 worker thread. Node starts four whatever the cores; on a server's one core they take turns with the thread
 * that serves requests, and while a collection or a compilation keeps all four busy that thread gets a fifth of
 * the core, for tens of milliseconds at a time.
 */
export const SERVER_NODE_ARGS = ["--v8-pool-size=1"] as const
export const DURATION = Number(process.env.BENCH_DURATION ?? 10)
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 3)
export const CONNECTIONS = 50
export const hasTaskset = spawnSync("taskset", ["-V"]).status === 0

/**
 * Pins this process, the load generator, to core 1: every thread of it (`-a`). Node's V8 worker threads exist
 * before the first line runs and keep the affinity they started with, so `taskset -p` alone moved the main
 * thread only, and the generator's collections (a scavenge keeps all four workers busy) ran on the servers' core.
 */
export const pinLoadGenerator = () => {
  if (hasTaskset) spawnSync("taskset", ["-a", "-cp", "1", String(process.pid)])
}

export const log = (message: string) => process.stderr.write(`bench: ${message}\n`)
export const round = (n: number, digits = 0) => Math.round(n * 10 ** digits) / 10 ** digits
export const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// -----------------------------------------------------------------------------------------------------------
// Processes and load

/**
 * The command that runs Node with `args` on core 0, or on every core. Children inherit this process's
 * affinity (core 1 once `run.ts` pins itself), so "anywhere" must say so too: without it, 4 servers of
 * the audited-writes leg once shared one core.
 */
export const placed = (where: "core 0" | "anywhere", args: ReadonlyArray<string>): [string, Array<string>] =>
  hasTaskset
    ? ["taskset", ["-c", where === "core 0" ? "0" : `0-${cpus().length - 1}`, process.execPath, ...args]]
    : [process.execPath, [...args]]

export interface Server {
  readonly child: ChildProcess
  readonly url: string
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

export interface StartOptions {
  /** Pin to core 0 (the default when taskset exists); false lets the OS place it. */
  readonly pin?: boolean
  /** Options for Node itself, before the script. */
  readonly nodeArgs?: ReadonlyArray<string>
}

let nextPort = 19_400
export const startServer = async (
  script: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  readyPath = "/healthz",
  options: StartOptions = {}
): Promise<Server> => {
  const port = nextPort++
  const [command, commandArgs] = placed(
    options.pin === false ? "anywhere" : "core 0",
    [...(options.nodeArgs ?? []), script, ...args]
  )
  const child = spawn(command, commandArgs, {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  let exited: number | null | undefined
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  child.once("exit", (code) => {
    exited = code
  })
  // Ready when it answers: the server's own logs may be turned down for the run.
  const deadline = Date.now() + 60_000
  while (true) {
    if (exited !== undefined) throw new Error(`${script} exited with ${exited}:\n${stderr}`)
    if (Date.now() > deadline) throw new Error(`${script} did not start:\n${stderr}`)
    const ready = await fetch(`http://127.0.0.1:${port}${readyPath}`).then((r) => r.ok, () => false)
    if (ready) break
    await sleep(200)
  }
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (exited !== undefined) return resolve()
        child.once("exit", () => resolve())
        // taskset execs node, so the signal reaches the server itself.
        child.kill("SIGTERM")
      })
  }
}

export interface LoadResult {
  readonly requestsPerSecond: number
  readonly p50: number
  readonly p99: number
  readonly errors: number
}

export const load = async (
  options: autocannon.Options,
  duration = DURATION,
  connections = CONNECTIONS
): Promise<LoadResult> => {
  await autocannon({ ...options, connections, duration: WARMUP })
  const result = await autocannon({ ...options, connections, duration })
  return {
    requestsPerSecond: round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx
  }
}

const procStatus = (pid: number) => readFileSync(`/proc/${pid}/status`, "utf8")
const statusKb = (status: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)

export const rssMb = (pid: number) => round(statusKb(procStatus(pid), "VmRSS") / 1024, 1)

/** Resident memory by kind: anonymous (heaps, WebAssembly memory, code) and file-backed (the node binary). */
export const residentMb = (pid: number) => {
  const status = procStatus(pid)
  return {
    rss: round(statusKb(status, "VmRSS") / 1024, 1),
    anonymous: round(statusKb(status, "RssAnon") / 1024, 1),
    file: round(statusKb(status, "RssFile") / 1024, 1)
  }
}

/** CPU time (user + system) a process has used, in ms; /proc counts it in ticks of 10 ms. */
export const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

export const json = async (url: string, init: RequestInit = {}) => {
  const response = await fetch(url, init)
  const body = await response.json()
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${JSON.stringify(body)}`)
  return body as Record<string, unknown>
}

// -----------------------------------------------------------------------------------------------------------
// Data directories and databases

export interface Prepared {
  /** The environment a server on this store needs. */
  readonly env: Record<string, string>
  readonly key: string
  readonly organisationId: string
  readonly workspaceId: string
  readonly cleanup: () => void
}

export type BenchStore = "pglite" | "postgres"

const INSERT_INTEGRATIONS = (organisationId: string, count: number) =>
  `INSERT INTO mcp_integrations (id, organisation_id, name, slug, owner_id, status, url, description, workspace_id,
     configurations, auth_type, transport, global_workspace_access, workspace_ids, secret_mappings, created_at,
     last_updated_at)
   SELECT 'int-' || g, '${organisationId}', 'Integration ' || g, 'int-' || g, NULL, 'active',
     'https://mcp.example.com/' || g, NULL, NULL, '{"region":"eu"}'::jsonb, 'none', 'http', true, '[]'::jsonb,
     '[]'::jsonb, timestamptz '2026-01-01' + g * interval '1 millisecond', now()
   FROM generate_series(1, ${Math.trunc(count)}) AS g`

export const psql = (url: string, statement: string) =>
  execFileSync("psql", [url, "-v", "ON_ERROR_STOP=1", "-qAtc", statement], {
    encoding: "utf8",
    env: { ...process.env, PGOPTIONS: "-c client_min_messages=warning" }
  })

/** A database of its own next to DATABASE_URL's, with the environment of servers on it; dropped by `drop`. */
export const throwawayDatabase = (name: string) => {
  const admin = process.env.DATABASE_URL!
  psql(admin, `DROP DATABASE IF EXISTS ${name}`)
  psql(admin, `CREATE DATABASE ${name}`)
  const url = new URL(admin)
  url.pathname = `/${name}`
  // The processes of one database share a master key; a throwaway one keeps the working tree clean.
  const env = {
    DATABASE_URL: url.toString(),
    GATEWAY_STORE: "postgres",
    GATEWAY_MASTER_KEY: randomBytes(32).toString("base64")
  }
  return { env, url: url.toString(), drop: () => psql(admin, `DROP DATABASE IF EXISTS ${name}`) }
}

/** Bootstraps the store the environment names, as `gateway-control bootstrap` does. */
export const bootstrap = (env: Record<string, string>) =>
  JSON.parse(
    execFileSync(process.execPath, [
      bin,
      "bootstrap",
      "--organisation-name",
      "Bench",
      "--owner-email",
      "bench@example.com"
    ], { env: { ...process.env, ...env, LOG_LEVEL: "warn" }, encoding: "utf8" }).trim()
  ) as { api_key: string; organisation_id: string; workspace_id: string }

/** A bootstrapped store with `integrations` MCP integrations in its organisation. */
export const prepare = async (integrations: number, store: BenchStore): Promise<Prepared> => {
  let env: Record<string, string>
  let cleanup: () => void
  if (store === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), "gwc-bench-"))
    env = { DATA_DIR: dir, GATEWAY_STORE: "pglite" }
    cleanup = () => rmSync(dir, { recursive: true, force: true })
  } else {
    const database = throwawayDatabase(`gateway_control_bench_${integrations}`)
    env = database.env
    cleanup = database.drop
  }
  const boot = bootstrap(env)
  if (store === "pglite") {
    const db = await PGlite.create(join(env.DATA_DIR!, "pglite"))
    await db.query(INSERT_INTEGRATIONS(boot.organisation_id, integrations))
    await db.query("ANALYZE")
    await db.close()
  } else {
    psql(env.DATABASE_URL!, INSERT_INTEGRATIONS(boot.organisation_id, integrations))
    psql(env.DATABASE_URL!, "ANALYZE")
  }
  return { env, key: boot.api_key, organisationId: boot.organisation_id, workspaceId: boot.workspace_id, cleanup }
}

// -----------------------------------------------------------------------------------------------------------
// The render every render leg measures

export const renderRequest = {
  variables: { company: "Acme", customer: "Ada", plan: "pro", question: "Where is my order?", language: "English" },
  temperature: 0.3
}

/** Creates the partial and the prompt the render legs render (the same work the baselines do). */
export const createRenderPrompt = async (server: Server, prepared: Prepared) => {
  const auth = { "x-service-api-key": prepared.key, "content-type": "application/json" }
  await json(`${server.url}/v1/prompts/partials`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({
      workspace_id: prepared.workspaceId,
      name: "style",
      string: "Answer in {{language}} and keep it short."
    })
  })
  await json(`${server.url}/v1/prompts`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({
      workspace_id: prepared.workspaceId,
      name: "support",
      string: JSON.stringify([
        { role: "system", content: "You are a support agent for {{company}}. {{>style}}" },
        { role: "user", content: "Customer {{customer}} on plan {{plan}} asks: {{question}}" }
      ]),
      parameters: { model: "gpt-4o", temperature: 0.2, max_completion_tokens: 256 }
    })
  })
}

export const renderOptions = (base: string, key?: string): autocannon.Options => ({
  url: `${base}/v1/prompts/support/render`,
  method: "POST",
  headers: { "content-type": "application/json", ...(key === undefined ? {} : { "x-service-api-key": key }) },
  body: JSON.stringify(renderRequest)
})

// -----------------------------------------------------------------------------------------------------------
// A steady rate, timed from when each request was due

/** One request of a paced load: its path (on the server's URL), headers and body. */
export interface PacedRequest {
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: string
}

/** The render every render leg measures, once per key in turn (`undefined`: no key, bare's). */
export const renderRequests = (keys: ReadonlyArray<string | undefined>): ReadonlyArray<PacedRequest> =>
  keys.map((key) => ({
    path: "/v1/prompts/support/render",
    headers: { "content-type": "application/json", ...(key === undefined ? {} : { "x-service-api-key": key }) },
    body: JSON.stringify(renderRequest)
  }))

/**
 * Time the hypervisor took from the server's core (core 0, where `startServer` pins it): the `steal` column of
 * /proc/stat, in ms; undefined where there is none. On a shared virtual machine it comes in bursts of seconds, and
 * a run's p99 moves with it: every paced run reports its share, so two runs are compared knowing it.
 */
const stolenMs = (): number | undefined => {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n").find((l) => l.startsWith("cpu0 "))
    const steal = Number(line?.trim().split(/\s+/)[8])
    return Number.isFinite(steal) ? steal * 10 : undefined
  } catch {
    return undefined
  }
}

/**
 * `rate` requests a second for `durationS` seconds over at most `connections` keep-alive connections, the
 * requests taken in turn from `requests`. Request i is due at i / rate seconds from the start, and its latency
 * counts from then, not from when a free connection sent it: a stall counts for every request it held back, as
 * wrk2 measures ("coordinated omission" corrected by the schedule itself).
 *
 * Why not autocannon's `overallRate`: it lets each connection send its share of a second as fast as answers
 * come, then pause until the next second, and it corrects for coordinated omission with an expected interval
 * of `Math.ceil(1 / rate)`, 1 ms, where one connection's interval at 100 a second is 10 ms: every slow answer
 * is recorded with ten times too many synthetic ones below it. Neither is a steady rate; its figures and these
 * are not comparable (paced p99s came out no lower than its).
 */
export const paced = async (
  base: string,
  requests: ReadonlyArray<PacedRequest>,
  { rate = 1_000, durationS = 10, connections = 10 } = {}
) => {
  // The generator's own collections delay sends, and count as the server's latency. Its heap holds what the earlier
  // legs left (a full collection of it took 10–15 ms in a jobs leg's round, the server's p99 +3 ms): collected
  // before each run, the next one comes after it. The npm scripts run the bench with `--expose-gc`.
  globalThis.gc?.()
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  const total = Math.round(rate * durationS)
  const latencies: Array<number> = []
  let errors = 0
  let sent = 0
  const stolenBefore = stolenMs()
  const start = performance.now()
  const send = (i: number) =>
    new Promise<void>((resolve) => {
      const due = start + (i * 1_000) / rate
      const { path, headers, body } = requests[i % requests.length]!
      const request = httpRequest(`${base}${path}`, { method: "POST", agent, headers }, (response) => {
        response.on("data", () => undefined)
        response.on("end", () => {
          if (response.statusCode !== 200) errors++
          latencies.push(performance.now() - due)
          resolve()
        })
      })
      request.on("error", () => {
        errors++
        resolve()
      })
      request.end(body)
    })
  const inFlight: Array<Promise<void>> = []
  while (sent < total) {
    // Everything due by now goes out (to the agent's queue when every connection is busy).
    const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1_000) + 1)
    while (sent < due) inFlight.push(send(sent++))
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  await Promise.all(inFlight)
  const elapsed = performance.now() - start
  const stolenAfter = stolenMs()
  agent.destroy()
  const sorted = latencies.sort((a, b) => a - b)
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0, 1)
  return {
    requestsPerSecond: round((latencies.length * 1_000) / elapsed),
    p50: at(0.5),
    p99: at(0.99),
    max: round(sorted[sorted.length - 1] ?? 0, 1),
    errors,
    ...(stolenBefore === undefined || stolenAfter === undefined
      ? {}
      : { core0_stolen_pct: round((100 * (stolenAfter - stolenBefore)) / elapsed, 1) })
  }
}
