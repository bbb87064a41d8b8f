// V8 settings for the server's process, set from inside it, so `npx gateway-control`, `npm start` and an
// installation all run with them, with no flag to remember. Plain JavaScript for the same reason as the bin.
// A setting the user gave themselves (`node --no-optimize-for-size …`, or a semi-space size in NODE_OPTIONS) is
// left alone; V8 refuses `--optimize-for-size` in NODE_OPTIONS, so that one is given on the command line.
import { setFlagsFromString } from "node:v8"

const userSet = (name) => [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((arg) => arg.includes(name))

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
 */
export const loadTuned = async (load) => {
  if (!userSet("optimize-for-size")) setFlagsFromString("--optimize-for-size")
  const steerYoung = !userSet("semi-space")
  if (steerYoung) setFlagsFromString("--semi-space-growth-factor=1")
  const loaded = await load()
  if (steerYoung) setFlagsFromString("--semi-space-growth-factor=2")
  return loaded
}
