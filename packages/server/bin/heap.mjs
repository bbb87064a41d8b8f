// V8 settings for the server's process, set from inside it, so `npx gateway-control`, `npm start` and an
// installation all run with them, with no flag to remember. Plain JavaScript for the same reason as the bin.
// A setting the user gave themselves (`node --no-optimize-for-size …`, or a semi-space size in NODE_OPTIONS) is
// left alone; V8 refuses `--optimize-for-size` in NODE_OPTIONS, so that one is given on the command line.
import { subscribe, unsubscribe } from "node:diagnostics_channel"
import { clearTimeout, setTimeout } from "node:timers"
import { setFlagsFromString } from "node:v8"

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
 * Loads the server through `load` with its heap settings:
 * - `--optimize-for-size`: V8 grows its heap in smaller steps, collects sooner, and favours memory over speed.
 *   Measured by the bench (README, Performance, "Under load"): 15–20 MB less resident memory idle, 25–30 MB
 *   less after a render load on the memory store, ~60 MB less on PGlite with its background jobs, for 5–20 %
 *   fewer renders a second at full load. A control plane idles far more than it peaks;
 *   `node --no-optimize-for-size` restores V8's default.
 * - While the modules load, most of what they allocate lives on, so V8 doubles its young generation again and
 *   again and never gives that memory back. Growth is held off while they load; afterwards the young
 *   generation grows as requests need it. The flag only steers a heuristic, read at each collection.
 * - The optimising compilers wait for `serve` to be listening (`deferOptimisingCompilers`).
 */
export const loadTuned = async (load) => {
  if (!userSet("optimize-for-size")) setFlagsFromString("--optimize-for-size")
  deferOptimisingCompilers()
  const steerYoung = !userSet("semi-space")
  if (steerYoung) setFlagsFromString("--semi-space-growth-factor=1")
  const loaded = await load()
  if (steerYoung) setFlagsFromString("--semi-space-growth-factor=2")
  return loaded
}
