/**
 * `last_used_at`: written in the background at most once a minute per key by one process, and a write that
 * fails never fails the request that used the key.
 */
import { layerMemory } from "@gateway-control/adapters-memory"
import { ApiKeys, ApiKeyStore, type StorePorts } from "@gateway-control/domain"
import { Clock, Context, Effect, Layer, Logger, ManagedRuntime, type Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { layerDomain } from "../src/App.ts"
import { makeMovableClock } from "./support/MovableClock.ts"

/** The memory store, its `recordUse` counted, and failing while `failing.now` says so. */
const countingStore = () => {
  const writes: Array<ReadonlyArray<string>> = []
  /** When each write began (ms). */
  const times: Array<number> = []
  const failing = { now: false }
  const store: Layer.Layer<StorePorts> = Layer.effectContext(Effect.map(Layer.build(layerMemory), (context) => {
    const keys = Context.get(context, ApiKeyStore)
    return Context.add(context, ApiKeyStore, {
      ...keys,
      recordUse: (ids, at) =>
        Effect.suspend(() => {
          writes.push(ids)
          times.push(performance.now())
          return failing.now ? Effect.die(new Error("the store is down")) : keys.recordUse(ids, at)
        })
    })
  }))
  return { store, writes, times, failing }
}

const within = async (withinMs: number, check: () => boolean) => {
  const started = Date.now()
  while (!check()) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms: ${check.toString()}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Issues an organisation service key named `name` through the runtime's domain; its secret. */
const issueKey = <R, E>(runtime: ManagedRuntime.ManagedRuntime<R | ApiKeys, E>, name: string) =>
  runtime.runPromise(Effect.flatMap(Effect.service(ApiKeys), (keys) =>
    keys.issue({
      type: "organisation-service",
      name,
      description: null,
      organisationId: "org",
      workspaceId: null,
      userId: null,
      scopes: ["workspaces.list"],
      expiresAt: null
    })))

describe("last_used_at", () => {
  it("is written once a minute per key however often it is used, and a failed write fails no request", async () => {
    const clock = makeMovableClock()
    const { failing, store, writes } = countingStore()
    const logged: Array<string> = []
    const runtime = ManagedRuntime.make(
      layerDomain(store).pipe(
        Layer.provideMerge(Layer.succeed(Clock.Clock)(clock.clock)),
        Layer.provide(Logger.layer([Logger.make(({ message }) => void logged.push(String(message)))]))
      )
    )
    try {
      const { plaintext } = await issueKey(runtime, "used")
      const use = (times: number) =>
        runtime.runPromise(
          Effect.flatMap(Effect.service(ApiKeys), (keys) =>
            Effect.forEach(Array.from({ length: times }), () => keys.authenticate(plaintext), { discard: true }))
        )

      await use(50)
      await within(2000, () => writes.length === 1)
      clock.advance(30_000)
      await use(50)
      clock.advance(29_000)
      await use(50)
      expect(writes).toHaveLength(1)

      clock.advance(1_001)
      failing.now = true
      await use(1)
      await within(2000, () => writes.length === 2)
      await within(2000, () => logged.some((line) => line.includes("last_used_at could not be written")))
      // The key still authenticates, and the next minute's use is written again.
      failing.now = false
      clock.advance(60_001)
      await use(5)
      await within(2000, () => writes.length === 3)
      expect(writes.every((ids) => ids.length === 1)).toBe(true)
    } finally {
      await runtime.dispose()
    }
  })

  it("writes a burst of first uses together, and what is unwritten when the process stops", async () => {
    const { store, writes } = countingStore()
    const runtime = ManagedRuntime.make(layerDomain(store))
    const use = (plaintext: Redacted.Redacted<string>) =>
      runtime.runPromise(Effect.flatMap(Effect.service(ApiKeys), (keys) => keys.authenticate(plaintext)))
    try {
      const issued = []
      for (let i = 0; i < 11; i++) issued.push(await issueKey(runtime, `burst ${i}`))
      // Nine more first uses 10 ms apart, within the second after the first one's write: one write for all nine
      // (a statement holds up to USAGE_WRITE_BATCH keys).
      await use(issued[0]!.plaintext)
      await within(2000, () => writes.length === 1)
      for (const { plaintext } of issued.slice(1, 10)) {
        await use(plaintext)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      await within(3000, () => writes.length === 2)
      expect(writes[1]).toHaveLength(9)
      // A use the spacing still holds back is written as the runtime stops.
      await use(issued[10]!.plaintext)
      expect(writes).toHaveLength(2)
    } finally {
      await runtime.dispose()
    }
    expect(writes).toHaveLength(3)
    expect(writes[2]).toEqual([expect.any(String)])
  })

  it("writes a larger burst in statements of at most 10 keys (USAGE_WRITE_BATCH), 50 ms apart, one flush a second still", async () => {
    const { store, times, writes } = countingStore()
    const runtime = ManagedRuntime.make(layerDomain(store))
    const use = (plaintext: Redacted.Redacted<string>) =>
      runtime.runPromise(Effect.flatMap(Effect.service(ApiKeys), (keys) => keys.authenticate(plaintext)))
    const burst = 25
    try {
      const issued = []
      for (let i = 0; i <= burst; i++) issued.push(await issueKey(runtime, `large burst ${i}`))
      await use(issued[0]!.plaintext)
      await within(2000, () => writes.length === 1)
      // All within the second after the first write: one flush, in three statements.
      for (const { plaintext } of issued.slice(1)) await use(plaintext)
      await within(3000, () => writes.length === 4)
      expect(writes.slice(1).map((ids) => ids.length)).toEqual([10, 10, 5])
      expect(new Set(writes.slice(1).flat()).size).toBe(burst)
      // Spaced (USAGE_BATCH_SPACING_MS), so requests are served between them on PGlite's one thread.
      expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(48)
      expect(times[3]! - times[2]!).toBeGreaterThanOrEqual(48)
    } finally {
      await runtime.dispose()
    }
  })
})
