/**
 * `npm run bench:load`: only the figures of issue #31 point 6 from `npm run bench`, for iterating on them in
 * about five minutes: render p99 at 1,000 req/s with the background jobs running (beside bare `node:http`), RSS
 * after the render load on PGlite and on the memory store, and the memory store's idle RSS (built and from
 * sources). Builds the packages first, as the idle leg measures the built server too. Prints JSON.
 */
import { execFileSync } from "node:child_process"
import { benchIdleMemoryStore } from "./legs/footprint.ts"
import { benchMemoryStoreUnderLoad, benchPgliteUnderLoad } from "./legs/underLoad.ts"
import { log, pinLoadGenerator, prepare, root } from "./support.ts"

pinLoadGenerator()

log("building the packages (the idle leg measures the built server too)")
execFileSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] })
const idle = await benchIdleMemoryStore()
const small = await prepare(1_000, "pglite")
const pglite = await benchPgliteUnderLoad(small)
small.cleanup()
const memoryStore = await benchMemoryStoreUnderLoad()
const figures = {
  render_p99_added_ms_with_jobs: { value: pglite.latency.added_p99_ms, target: "≤ 3" },
  rss_mb_after_render_pglite: { value: pglite.rss_after_render.rss, target: "≤ 300" },
  rss_mb_after_render_memory_store: { value: memoryStore.rss_after_render.rss, target: "≤ 150" },
  idle_rss_mb_memory_store: Object.fromEntries(
    idle.gateway_control.map((leg) => [leg.code, { value: leg.rss, target: "≤ 100" }])
  )
}
console.log(JSON.stringify({ figures, pglite, memory_store: memoryStore, idle }, null, 2))
