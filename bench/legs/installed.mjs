// The server as an installation runs it: `bin/gateway-control.mjs` imports the built `dist/` where no sources
// sit next to it, but in this checkout it always runs the sources. This runs the built CLI the same way, with the
// bin's heap settings (heap.mjs), for the legs that measure the built server.
import { loadTuned } from "../../packages/server/bin/heap.mjs"

await loadTuned(() => import("@gateway-control/server/cli"))
