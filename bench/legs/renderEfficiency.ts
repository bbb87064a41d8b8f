/**
 * Render efficiency and latency at normal load, each beside the bare node:http server doing the same work.
 * Efficiency: the server's own CPU time (from /proc) over a fixed number of renders on a warm server, which
 * the load generator's one-core cap does not touch. Latency: p99 at a fixed 1,000 renders/s over 10
 * connections, with the server's event loop delay and GC pauses over the same run.
 */
import autocannon from "autocannon"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cpuMs, log, median, paced, renderOptions, renderRequests, round, type Server, sleep } from "../support.ts"

const RENDERS = Number(process.env.BENCH_EFFICIENCY_RENDERS ?? 20_000)
const ROUNDS = 3

/** Server CPU µs per render over `RENDERS` renders at 50 connections, after a 2 s warm-up. */
const cpuPerRender = async (server: Server, key?: string) => {
  const options = renderOptions(server.url, key)
  await autocannon({ ...options, connections: 50, duration: 2 })
  const before = cpuMs(server.child.pid!)
  const result = await autocannon({ ...options, connections: 50, amount: RENDERS })
  const after = cpuMs(server.child.pid!)
  if (result.non2xx + result.errors > 0) log(`efficiency: ${result.non2xx + result.errors} failed renders`)
  return ((after - before) * 1000) / RENDERS
}

export const benchRenderEfficiency = async (ours: Server, key: string, bare: Server) => {
  const samples = { ours: [] as Array<number>, bare: [] as Array<number> }
  for (let i = 0; i < ROUNDS; i++) {
    log(`render efficiency: round ${i + 1} of ${ROUNDS}`)
    samples.bare.push(await cpuPerRender(bare))
    samples.ours.push(await cpuPerRender(ours, key))
  }
  const oursUs = round(median(samples.ours), 1)
  const bareUs = round(median(samples.bare), 1)
  return {
    renders: RENDERS,
    rounds: ROUNDS,
    gateway_control_us: oursUs,
    bare_node_http_us: bareUs,
    samples,
    ours_over_bare: round(oursUs / bareUs, 2)
  }
}

/** The node options that let `benchRenderLatency` read a server's event loop delay. */
export const eventLoopDelayPreload = (file: string) => ({
  nodeArgs: ["--import", join(import.meta.dirname, "eventLoopDelay.mjs")],
  env: { BENCH_EVENT_LOOP_FILE: file }
})

export const eventLoopDelayFile = () => join(tmpdir(), `gwc-bench-event-loop-${process.pid}.json`)

const atFixedRate = async (server: Server, key: string | undefined, duration: number, eventLoopFile?: string) => {
  if (eventLoopFile !== undefined) server.child.kill("SIGUSR2")
  const result = await paced(server.url, renderRequests([key]), { rate: 1_000, durationS: duration, connections: 10 })
  let eventLoop: Record<string, number> | undefined
  if (eventLoopFile !== undefined) {
    rmSync(eventLoopFile, { force: true })
    server.child.kill("SIGUSR1")
    for (let i = 0; i < 100 && !existsSync(eventLoopFile); i++) await sleep(20)
    eventLoop = JSON.parse(readFileSync(eventLoopFile, "utf8"))
  }
  return { ...result, ...(eventLoop === undefined ? {} : { event_loop: eventLoop }) }
}

/**
 * p99 at 1,000 renders/s, ours and bare in turn, `count` rounds; the added p99 is the median of the rounds'
 * gaps. `warmUp` first runs 3 s at full speed, for a server that has served nothing yet.
 */
export const benchRenderLatency = async (
  ours: Server,
  key: string,
  bare: Server,
  eventLoopFile: string,
  { count = 2, warmUp = false } = {}
) => {
  const duration = Math.max(5, Number(process.env.BENCH_DURATION ?? 10))
  if (warmUp) await autocannon({ ...renderOptions(ours.url, key), connections: 10, duration: 3 })
  const rounds = []
  for (let i = 0; i < count; i++) {
    log(`render latency at 1,000 req/s: round ${i + 1} of ${count}`)
    const bareRun = await atFixedRate(bare, undefined, duration)
    const oursRun = await atFixedRate(ours, key, duration, eventLoopFile)
    rounds.push({
      gateway_control: oursRun,
      bare_node_http: bareRun,
      added_p99_ms: round(oursRun.p99 - bareRun.p99, 1)
    })
  }
  return { rate: 1_000, connections: 10, rounds, added_p99_ms: median(rounds.map((r) => r.added_p99_ms)) }
}
