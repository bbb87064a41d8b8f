/**
 * Process entry point. Started through `bin/gateway-control.mjs`, which checks the Node version first.
 */
// Each module by its own path: the package's index loads all of them (Redis, cluster, workers: ~20 MB).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Effect, Exit } from "effect"
import { cli } from "./Cli.ts"

cli.pipe(
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain({
    // A signal interrupts the program: finishing in-flight requests and closing the store is a clean stop.
    teardown: (exit, onExit) =>
      onExit(
        Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)
          ? ((process.exitCode as number | undefined) ?? 0)
          : 1
      )
  })
)
