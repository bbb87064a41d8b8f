#!/usr/bin/env node
// Plain JavaScript on purpose: it must run, and explain itself, on a Node too old to load TypeScript.
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `gateway-control needs Node ≥ 22.19; run it through npm or install Node 24 (this is Node ${process.versions.node}).\n`
  )
  process.exit(1)
}
// While the modules load, most of what they allocate lives on, so V8 doubles its young generation again and
// again (to 2 × 16 MB), and never gives that memory back: ~17 MB of an idle server's RSS held garbage.
// Growth is held off while they load; afterwards the young generation grows as requests need it. The flag
// only steers a heuristic, read at each collection; one the user set themselves is left alone.
import { setFlagsFromString } from "node:v8"
const userSet = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((arg) => arg.includes("semi-space"))
if (!userSet) setFlagsFromString("--semi-space-growth-factor=1")
// Installed, this resolves to the built `dist/main.js`; in the repository `npm start` runs Node with
// `--conditions=@gateway-control/source`, which resolves it to `src/main.ts` with no build step.
await import("@gateway-control/server/cli")
if (!userSet) setFlagsFromString("--semi-space-growth-factor=2")
