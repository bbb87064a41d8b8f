/**
 * The real clock, moved forward when a test says so: a test steps past a cache entry's lifetime at once
 * instead of sleeping it out. Sleeps and timeouts still take real time.
 */
import { Clock, type Duration, Effect } from "effect"

export interface MovableClock {
  readonly clock: Clock.Clock
  /** Moves every later reading of the clock forward by `millis`. */
  readonly advance: (millis: number) => void
}

export const makeMovableClock = (): MovableClock => {
  const real = Clock.Clock.defaultValue()
  let offsetMs = 0
  const millis = () => real.currentTimeMillisUnsafe() + offsetMs
  const nanos = () => real.currentTimeNanosUnsafe() + BigInt(offsetMs) * 1_000_000n
  const monotonic = () => real.monotonicTimeNanosUnsafe() + BigInt(offsetMs) * 1_000_000n
  return {
    clock: {
      currentTimeMillisUnsafe: millis,
      currentTimeMillis: Effect.sync(millis),
      currentTimeNanosUnsafe: nanos,
      currentTimeNanos: Effect.sync(nanos),
      monotonicTimeNanosUnsafe: monotonic,
      monotonicTimeNanos: Effect.sync(monotonic),
      sleep: (duration: Duration.Duration) => real.sleep(duration)
    },
    advance: (ms) => {
      offsetMs += ms
    }
  }
}
