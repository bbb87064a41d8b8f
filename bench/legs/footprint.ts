/**
 * First start and idle memory. First start: a new DATA_DIR until `/readyz` answers 200, as `npm start` runs
 * it (from sources) and as an installation runs it (from dist/). Idle memory: resident memory 5 s after
 * start, before any request (the server is watched for its "Listening" line, not polled).
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  bin,
  cpuMs,
  installed,
  INSTALLED_ENV,
  log,
  median,
  placed,
  residentMb,
  root,
  round,
  SERVER_NODE_ARGS,
  sleep
} from "../support.ts"

/**
 * How the server runs: as `npm start` runs it (TypeScript sources, one V8 worker thread), or from the built
 * dist/ an install runs, with Node's defaults.
 */
export const CODE = {
  "npm start": { NODE_OPTIONS: "--conditions=@gateway-control/source --v8-pool-size=1" },
  built: INSTALLED_ENV
} as const
export type Code = keyof typeof CODE

const bare = join(root, "bench/baselines/bare.mjs")
const entry = (code: Code) => (code === "built" ? installed : bin)
let nextPort = 19_300

const spawnServer = (script: string, env: Record<string, string>, nodeArgs: ReadonlyArray<string> = []) => {
  const port = nextPort++
  const dataDir = mkdtempSync(join(tmpdir(), "gwc-bench-start-"))
  // On every core, as a user's server would start: PGlite compiles its WebAssembly on background threads.
  const [command, args] = placed("anywhere", [...nodeArgs, script, ...(script === bare ? [] : ["serve"])])
  const child = spawn(command, args, {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  return {
    child,
    port,
    stderr: () => stderr,
    stop: async () => {
      child.kill("SIGTERM")
      await exited
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

const waitFor = async (done: () => Promise<boolean> | boolean, what: string) => {
  const deadline = Date.now() + 60_000
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`)
    await sleep(10)
  }
}

export interface FirstStart {
  readonly ready_ms: number
  readonly cpu_ms: number
}

/** Wall and CPU time from spawn to the first 200 of `readyPath` on a new data directory; the median of runs. */
const firstStart = async (script: string, env: Record<string, string>, readyPath: string, runs = 3) => {
  const results: Array<FirstStart> = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    const server = spawnServer(script, env)
    await waitFor(
      () => fetch(`http://127.0.0.1:${server.port}${readyPath}`).then((r) => r.ok, () => false),
      `${script} to be ready`
    )
    results.push({ ready_ms: round(performance.now() - started), cpu_ms: cpuMs(server.child.pid!) })
    await server.stop()
  }
  return { ready_ms: median(results.map((r) => r.ready_ms)), cpu_ms: median(results.map((r) => r.cpu_ms)) }
}

export const benchFirstStart = async () => {
  log("first start: a new DATA_DIR until /readyz answers")
  const baseline = await firstStart(bare, CODE.built, "/ping")
  const legs = []
  for (const code of ["npm start", "built"] as const) {
    for (const store of ["pglite", "memory"] as const) {
      const result = await firstStart(entry(code), { ...CODE[code], GATEWAY_STORE: store }, "/readyz")
      log(`first start, ${store} from ${code}: ${JSON.stringify(result)}`)
      legs.push({ store, code, ...result })
    }
  }
  return { bare_node_http: baseline, gateway_control: legs }
}

/** Resident memory 5 s after spawn, once the server says it listens; the median of runs by RSS. */
const idleResident = async (
  script: string,
  env: Record<string, string>,
  nodeArgs: ReadonlyArray<string> = [],
  runs = 3
) => {
  const samples = []
  for (let i = 0; i < runs; i++) {
    const started = Date.now()
    const server = spawnServer(script, env, nodeArgs)
    await waitFor(() => /Listening/.test(server.stderr()), `${script} to listen`)
    await sleep(Math.max(0, 5_000 - (Date.now() - started)))
    samples.push(residentMb(server.child.pid!))
    await server.stop()
  }
  return samples.sort((a, b) => a.rss - b.rss)[Math.floor(samples.length / 2)]!
}

/** Idle RSS of the memory store, built and from sources (`npm run bench:load`). */
export const benchIdleMemoryStore = async () => {
  const legs = []
  for (const code of ["built", "npm start"] as const) {
    const resident = await idleResident(entry(code), { ...CODE[code], GATEWAY_STORE: "memory" })
    log(`idle memory, memory from ${code}: ${JSON.stringify(resident)}`)
    legs.push({ store: "memory", code, node_args: "", ...resident })
  }
  return { bare_node_http: await idleResident(bare, CODE.built), gateway_control: legs }
}

export const benchIdleFootprint = async () => {
  log("idle memory: RSS 5 s after start, before any request")
  const baseline = await idleResident(bare, CODE.built)
  const legs = []
  const variants = [
    { store: "memory", code: "built", nodeArgs: [] },
    { store: "pglite", code: "built", nodeArgs: [] },
    // V8's compile threads keep their malloc arenas (~25 MB each after PGlite's start): one thread, one arena.
    { store: "pglite", code: "built", nodeArgs: SERVER_NODE_ARGS },
    { store: "memory", code: "npm start", nodeArgs: [] },
    { store: "pglite", code: "npm start", nodeArgs: [] }
  ] as const
  for (const variant of variants) {
    const resident = await idleResident(
      entry(variant.code),
      { ...CODE[variant.code], GATEWAY_STORE: variant.store },
      variant.nodeArgs
    )
    const node_args = variant.nodeArgs.join(" ")
    log(`idle memory, ${variant.store} from ${variant.code} ${node_args}: ${JSON.stringify(resident)}`)
    legs.push({ store: variant.store, code: variant.code, node_args, ...resident })
  }
  return { bare_node_http: baseline, gateway_control: legs }
}
