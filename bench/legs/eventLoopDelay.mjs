// Preloaded into a server by the latency leg (node --import): SIGUSR2 starts recording the event loop's
// delay and the GC pauses, SIGUSR1 stops and writes them to $BENCH_EVENT_LOOP_FILE. Off until asked, so it
// costs nothing in the other legs.
import { writeFileSync } from "node:fs"
import { constants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks"

const histogram = monitorEventLoopDelay({ resolution: 1 })
const pauses = []
// Full (mark-compact) collections apart: they are the long pauses, and the scavenges the many short ones.
const majorPauses = []
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    pauses.push(entry.duration)
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorPauses.push(entry.duration)
  }
})
const ms = (ns) => Math.round(ns / 1e4) / 100

process.on("SIGUSR2", () => {
  histogram.reset()
  pauses.length = 0
  majorPauses.length = 0
  histogram.enable()
  observer.observe({ entryTypes: ["gc"] })
})
process.on("SIGUSR1", () => {
  histogram.disable()
  observer.disconnect()
  writeFileSync(
    process.env.BENCH_EVENT_LOOP_FILE,
    JSON.stringify({
      delay_p50_ms: ms(histogram.percentile(50)),
      delay_p99_ms: ms(histogram.percentile(99)),
      delay_max_ms: ms(histogram.max),
      gc_pauses: pauses.length,
      gc_total_ms: Math.round(pauses.reduce((a, b) => a + b, 0)),
      gc_max_ms: Math.round(Math.max(0, ...pauses) * 100) / 100,
      gc_full: majorPauses.length,
      gc_full_max_ms: Math.round(Math.max(0, ...majorPauses) * 100) / 100
    })
  )
})
