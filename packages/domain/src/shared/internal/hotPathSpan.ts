import { Effect, Tracer } from "effect"

/**
 * A span around a use case on the hot path, made only when a tracer with a backend is installed. The native
 * tracer's spans go nowhere (Effect's own HTTP server skips them too), and with the call-site stack capture
 * of `Effect.fn` they cost a render about a third of its time.
 */
export const hotPathSpan = (name: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) =>
    fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
      ? effect
      : Effect.withSpan(effect, name, { captureStackTrace: false })
  )
