// The server as an installation runs it: `bin/gateway-control.mjs` imports the built `dist/` where no sources
// sit next to it, but in this checkout it always runs the sources. This runs the built CLI the same way
// (the same young-generation flags around the import), for the legs that measure the built server.
import { setFlagsFromString } from "node:v8"
const userSet = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((arg) => arg.includes("semi-space"))
if (!userSet) setFlagsFromString("--semi-space-growth-factor=1")
await import("@gateway-control/server/cli")
if (!userSet) setFlagsFromString("--semi-space-growth-factor=2")
