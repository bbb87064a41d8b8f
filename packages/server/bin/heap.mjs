// V8 settings for the server's process, set from inside it, so `npx gateway-control`, `npm start` and an
// installation all run with them, with no flag to remember. Plain JavaScript for the same reason as the bin.
// A setting the user gave themselves (`node --no-optimize-for-size …`, or a semi-space size in NODE_OPTIONS) is
// left alone; V8 refuses `--optimize-for-size` in NODE_OPTIONS, so that one is given on the command line.
import { subscribe, unsubscribe } from "node:diagnostics_channel"
import { PerformanceObserver } from "node:perf_hooks"
import { clearTimeout, setTimeout } from "node:timers"
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8"

const userArgs = () => [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)]
const userSet = (name) => userArgs().some((arg) => arg.includes(name))
/** The user named this V8 flag, or its negation, or one of its aliases. */
const userNamed = (...names) =>
  userArgs().some((arg) => names.some((name) => arg === `--${name}` || arg === `--no-${name}`))

/**
 * Published by `serve` once its listener is open (packages/server/src/internal/Serving.ts): the end of
 * the start, and of the settings that hold only while it lasts.
 */
const SERVING_CHANNEL = "gateway-control:serving"
/** If `serve` never says it serves (a start that hangs on its store, say), the start's settings end anyway. */
const START_SETTINGS_AT_MOST_MS = 120_000

/**
 * V8's optimising compilers (Maglev, then Turbofan), off while `serve` starts. A start runs most of its code
 * once (module bodies, schemas, routes, the store's layers), so what they compile then is never run again, and
 * their own machine code and what it allocates stay resident: measured by the bench, ~10 MB of resident memory
 * idle. Once the listener is open they are on again, and requests' hot code is optimised as before. PGlite's
 * WebAssembly has tiers of its own, which this does not touch. A user's own `--no-maglev` (or `--maglev`, or
 * `--turbofan`, `--opt`) stands, and so does every other command's default.
 */
const deferOptimisingCompilers = () => {
  if (!process.argv.slice(2).includes("serve")) return
  const deferred = [
    ...(userNamed("maglev") ? [] : ["maglev"]),
    ...(userNamed("turbofan", "opt") ? [] : ["turbofan"])
  ]
  if (deferred.length === 0) return
  for (const flag of deferred) setFlagsFromString(`--no-${flag}`)
  const restore = () => {
    unsubscribe(SERVING_CHANNEL, restore)
    clearTimeout(timer)
    for (const flag of deferred) setFlagsFromString(`--${flag}`)
  }
  subscribe(SERVING_CHANNEL, restore)
  const timer = setTimeout(restore, START_SETTINGS_AT_MOST_MS).unref()
}

/**
 * The young generation's most, once `serve` listens: 16 MB (two semi-spaces of 8 MB). V8 in Node 24 lets it grow
 * to 128 MB under load, and `--max-semi-space-size`, which would bound it, is read only as the process starts:
 * set from inside, it changes nothing. The growth factor is read at every collection, so this holds it at 1
 * (no growth) while the young generation is past half the most, and gives 2 back once V8 has shrunk it.
 */
const YOUNG_GENERATION_MOST_BYTES = 16 * 1024 * 1024

/**
 * What to do after a collection, given the young generation's size then: the growth factor to set, or nothing.
 * Pure, for the test; `capYoungGeneration` runs it after each collection.
 */
export const youngGenerationStep = (mostBytes) => {
  let growing = true
  return (sizeBytes) => {
    if (growing && sizeBytes * 2 > mostBytes) {
      growing = false
      return "--semi-space-growth-factor=1"
    }
    if (!growing && sizeBytes * 2 <= mostBytes) {
      growing = true
      return "--semi-space-growth-factor=2"
    }
    return undefined
  }
}

const youngGenerationBytes = () =>
  getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0

/** Observes collections (a callback per batch of them, off the collection itself) and steers the growth. */
const capYoungGeneration = () => {
  const step = youngGenerationStep(YOUNG_GENERATION_MOST_BYTES)
  new PerformanceObserver(() => {
    const flag = step(youngGenerationBytes())
    if (flag !== undefined) setFlagsFromString(flag)
  }).observe({ entryTypes: ["gc"] })
}

/**
 * `--optimize-for-size` while `serve` starts, V8's defaults (with the young generation capped) once it listens.
 * A start's allocations mostly live on (modules, schemas, routes), and the flag keeps the heap they make tight
 * (the README's idle figures). Under load it cost the tail: a young generation of 1 MB, collected ~17 times a
 * second at 1,000 renders a second with pauses of 9–16 ms among them, and 35–45% fewer renders a second. Measured by the bench (README,
 * Performance, "Under load"), PGlite with its jobs at 1,000 renders a second: p99 +27 to +33 ms over bare
 * `node:http` with the flag throughout, +2.4 to +2.9 ms this way; resident memory after the render load
 * 234–256 MB with it, 247–284 MB this way, and 290–309 MB with no cap on the young generation.
 */
const optimiseForSizeWhileStarting = () => {
  setFlagsFromString("--optimize-for-size")
  if (!process.argv.slice(2).includes("serve")) return
  const serving = () => {
    unsubscribe(SERVING_CHANNEL, serving)
    setFlagsFromString("--no-optimize-for-size")
    if (!userSet("semi-space")) capYoungGeneration()
  }
  subscribe(SERVING_CHANNEL, serving)
}

/**
 * Loads the server through `load` with its heap settings:
 * - `--optimize-for-size` while `serve` starts, and for every other command (`optimiseForSizeWhileStarting`);
 *   `node --no-optimize-for-size …` or `node --optimize-for-size …` keeps V8's default, or the flag throughout.
 * - While the modules load, most of what they allocate lives on, so V8 doubles its young generation again and
 *   again and never gives that memory back. Growth is held off while they load; afterwards the young
 *   generation grows as requests need it, to its most. The flag only steers a heuristic, read at each
 *   collection. A semi-space size the user gave (`--max-semi-space-size` in NODE_OPTIONS) stands alone.
 * - The optimising compilers wait for `serve` to be listening (`deferOptimisingCompilers`).
 */
export const loadTuned = async (load) => {
  if (!userSet("optimize-for-size")) optimiseForSizeWhileStarting()
  deferOptimisingCompilers()
  const steerYoung = !userSet("semi-space")
  if (steerYoung) setFlagsFromString("--semi-space-growth-factor=1")
  const loaded = await load()
  if (steerYoung) setFlagsFromString("--semi-space-growth-factor=2")
  return loaded
}
