/**
 * Rate limits counted in Redis (`REDIS_URL`): two servers, each with its own connection, as two processes
 * would be, share one count for a key; and a Redis that cannot be reached stops the start, naming the setting.
 */
import { Effect, ManagedRuntime, Option, Redacted } from "effect"
import { RateLimiter } from "effect/persistence"
import { describe, expect, it } from "vitest"
import { layerRateLimiter } from "../src/RateLimits.ts"

const redisUrl = process.env.TEST_REDIS_URL
if (redisUrl === undefined) {
  // Loud on purpose: a missing Redis must not read as a pass; CI sets REQUIRE_REDIS=1.
  if (process.env.REQUIRE_REDIS === "1") throw new Error("REQUIRE_REDIS=1 but TEST_REDIS_URL is not set")
  console.warn("\n*** rate limits on Redis SKIPPED: TEST_REDIS_URL is not set ***\n")
}

const consume = (key: string) =>
  Effect.flatMap(
    Effect.service(RateLimiter.RateLimiter),
    (limiter) => Effect.result(limiter.consume({ key, limit: 5, window: "1 minute", algorithm: "fixed-window" }))
  )

describe.skipIf(redisUrl === undefined)("rate limits on Redis", () => {
  it("are one count for every limiter on the same Redis", async () => {
    const first = ManagedRuntime.make(layerRateLimiter(Option.some(Redacted.make(redisUrl!))))
    const second = ManagedRuntime.make(layerRateLimiter(Option.some(Redacted.make(redisUrl!))))
    try {
      const key = `test-${Date.now()}-${Math.random().toString(36).slice(2)}`
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? first : second).runPromise(consume(key)))
      )
      expect(results.filter((r) => r._tag === "Success")).toHaveLength(5)
      expect(results.filter((r) => r._tag === "Failure")).toHaveLength(3)
    } finally {
      await Promise.all([first.dispose(), second.dispose()])
    }
  })
})

describe("a Redis that cannot be reached", () => {
  it("stops the start with an error that names REDIS_URL", async () => {
    const runtime = ManagedRuntime.make(layerRateLimiter(Option.some(Redacted.make("redis://127.0.0.1:1"))))
    const exit = await runtime.runPromiseExit(Effect.service(RateLimiter.RateLimiter))
    await runtime.dispose()
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toContain("REDIS_URL")
  })
})
