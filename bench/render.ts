/**
 * `npm run bench:render`: only the render figures of `npm run bench` (throughput at 50 connections and server CPU
 * per request, each beside bare `node:http` in the same run), for checking a change to the render path in
 * three minutes rather than the whole bench's twenty. Two throughput rounds, interleaved with the baseline's, so a
 * burst of noise on this machine shows as two different ratios rather than one wrong one. No build needed: it
 * runs the sources.
 */
import { join } from "node:path"
import { benchRenderEfficiency } from "./legs/renderEfficiency.ts"
import {
  bin,
  createRenderPrompt,
  load,
  log,
  pinLoadGenerator,
  prepare,
  renderOptions,
  root,
  round,
  startServer
} from "./support.ts"

pinLoadGenerator()

const small = await prepare(1_000, "pglite")
const ours = await startServer(bin, ["serve"], { ...small.env, MCP_HEALTH_INTERVAL_MS: "0" }, "/healthz")
await createRenderPrompt(ours, small)
const bare = await startServer(join(root, "bench/baselines/bare.mjs"), [], {}, "/ping")
const rounds: Array<{ ours: number; bare: number; ratio: number }> = []
for (let i = 1; i <= 2; i++) {
  log(`render throughput: round ${i} of 2`)
  const oursRound = await load(renderOptions(ours.url, small.key))
  const bareRound = await load(renderOptions(bare.url))
  rounds.push({
    ours: oursRound.requestsPerSecond,
    bare: bareRound.requestsPerSecond,
    ratio: round(oursRound.requestsPerSecond / bareRound.requestsPerSecond, 3)
  })
}
const efficiency = await benchRenderEfficiency(ours, small.key, bare)
await ours.stop()
await bare.stop()
small.cleanup()
console.log(JSON.stringify({ throughput: rounds, cpu_per_request: efficiency }, null, 2))
