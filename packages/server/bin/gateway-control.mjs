#!/usr/bin/env node
// Plain JavaScript on purpose: it must run, and explain itself, on a Node too old to load TypeScript.
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `gateway-control needs Node ≥ 22.19; run it through npm or install Node 24 (this is Node ${process.versions.node}).\n`
  )
  process.exit(1)
}
// Installed, this resolves to the built `dist/main.js`; in the repository `npm start` runs Node with
// `--conditions=@gateway-control/source`, which resolves it to `src/main.ts` with no build step.
await import("@gateway-control/server/cli")
