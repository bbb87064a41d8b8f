#!/usr/bin/env node
// Plain JavaScript on purpose: it must run, and explain itself, on a Node too old to load TypeScript.
// Hence no static named import from `node:module` either: one Node 20 lacks would fail before the check.
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `gateway-control needs Node ≥ 22.19; run it through npm or install Node 24 (this is Node ${process.versions.node}).\n`
  )
  process.exit(1)
}
import { existsSync } from "node:fs"
import * as nodeModule from "node:module"
import { join } from "node:path"
import { loadTuned } from "./heap.mjs"
// Installed from the registry, the package holds only the built `dist/`: the default export condition loads it.
// A checkout of the repository has the TypeScript sources next to this file and (usually) no build: there every
// workspace package must resolve to its `src/*.ts` through the `@gateway-control/source` export condition, or the
// first import of another workspace package looks for a `dist/` that is not there. The condition is added here,
// in this process, by a synchronous resolve hook, so `npx gateway-control …` and `node bin/gateway-control.mjs …`
// run with no build and no flag, and a signal sent to this process reaches the server itself. A stale `dist/`
// left by `npm run build` in a checkout is ignored: the sources are what the checkout holds.
const SOURCE_CONDITION = "@gateway-control/source"
if (existsSync(join(import.meta.dirname, "../src/main.ts"))) {
  nodeModule.registerHooks({
    resolve: (specifier, context, nextResolve) =>
      context.conditions.includes(SOURCE_CONDITION)
        ? nextResolve(specifier, context)
        : nextResolve(specifier, { ...context, conditions: [...context.conditions, SOURCE_CONDITION] })
  })
  // Node keeps what it made of each module, the TypeScript stripped from our sources included, in its compile
  // cache (os.tmpdir()/node-compile-cache, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so
  // a start after the first neither strips nor compiles again: ~15 MB less resident memory, as the stripper is
  // never loaded. An installation runs plain JavaScript and gains less than the cached code costs it in memory.
  nodeModule.enableCompileCache?.()
}
await loadTuned(() => import("@gateway-control/server/cli"))
