/**
 * Concurrent lookups of one key share one run (the render cache's resolutions): what a waiter gets, and when it
 * runs the lookup itself instead.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { SingleFlight } from "../src/shared/internal/SingleFlight.ts"

/** A lookup that counts its runs and answers once `gate` opens, with `answer(run)`. */
const gatedLookup = (gate: Deferred.Deferred<void>, answer: (run: number) => Effect.Effect<string, string>) => {
  let runs = 0
  const lookup = Effect.suspend(() => {
    const run = ++runs
    return Effect.andThen(Deferred.await(gate), answer(run))
  })
  return { lookup, runs: () => runs }
}

/** Forked and run at once, up to where it waits: the order of callers is the order of the calls. */
const start = <A, E>(effect: Effect.Effect<A, E>) => Effect.forkChild(effect, { startImmediately: true })

const noCheck = (shared: string) => Effect.succeed(shared)

describe("SingleFlight", () => {
  it.effect("callers that come while a lookup runs share its result, each through its own check", () =>
    Effect.gen(function*() {
      const flights = new SingleFlight<string, string, string>()
      const gate = yield* Deferred.make<void>()
      const { lookup, runs } = gatedLookup(gate, (run) => Effect.succeed(`result ${run}`))
      const checked: Array<string> = []
      const joined = (shared: string) => Effect.sync(() => (checked.push(shared), `${shared}, checked`))
      const fibers = yield* Effect.forEach(
        [0, 1, 2, 3, 4],
        () => start(flights.run("prompt", 0, lookup, joined))
      )
      expect(flights.size).toBe(1)
      yield* Deferred.succeed(gate, undefined)
      const results = yield* Fiber.joinAll(fibers)
      expect(runs()).toBe(1)
      expect(results).toEqual([
        "result 1",
        "result 1, checked",
        "result 1, checked",
        "result 1, checked",
        "result 1, checked"
      ])
      expect(checked).toEqual(["result 1", "result 1", "result 1", "result 1"])
      expect(flights.size).toBe(0)
      // Once it ended, the next caller runs the lookup again (keeping its result is the cache's part).
      expect(yield* flights.run("prompt", 0, lookup, noCheck)).toBe("result 2")
    }))

  it.effect("a caller of another epoch (a change came) or another key does not join", () =>
    Effect.gen(function*() {
      const flights = new SingleFlight<string, string, string>()
      const gate = yield* Deferred.make<void>()
      const { lookup, runs } = gatedLookup(gate, (run) => Effect.succeed(`result ${run}`))
      const first = yield* start(flights.run("prompt", 0, lookup, noCheck))
      const afterChange = yield* start(flights.run("prompt", 1, lookup, noCheck))
      const otherKey = yield* start(flights.run("other", 1, lookup, noCheck))
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.joinAll([first, afterChange, otherKey])).toEqual(["result 1", "result 2", "result 3"])
      expect(runs()).toBe(3)
      expect(flights.size).toBe(0)
    }))

  it.effect("a failure is not shared: a waiter runs the lookup itself", () =>
    Effect.gen(function*() {
      const flights = new SingleFlight<string, string, string>()
      const gate = yield* Deferred.make<void>()
      // The first run fails (the first caller's access, say); the next succeeds.
      const { lookup, runs } = gatedLookup(
        gate,
        (run) => run === 1 ? Effect.fail("forbidden") : Effect.succeed(`result ${run}`)
      )
      const first = yield* start(Effect.exit(flights.run("prompt", 0, lookup, noCheck)))
      const waiter = yield* start(flights.run("prompt", 0, lookup, noCheck))
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(first)).toEqual(Exit.fail("forbidden"))
      expect(yield* Fiber.join(waiter)).toBe("result 2")
      expect(runs()).toBe(2)
    }))

  it.effect("an interrupted first caller leaves its waiters to run the lookup themselves", () =>
    Effect.gen(function*() {
      const flights = new SingleFlight<string, string, string>()
      const gate = yield* Deferred.make<void>()
      const { lookup, runs } = gatedLookup(gate, (run) => Effect.succeed(`result ${run}`))
      const first = yield* start(flights.run("prompt", 0, lookup, noCheck))
      const waiter = yield* start(flights.run("prompt", 0, lookup, noCheck))
      yield* Fiber.interrupt(first)
      expect(flights.size).toBe(0)
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(waiter)).toBe("result 2")
      expect(runs()).toBe(2)
    }))
})
