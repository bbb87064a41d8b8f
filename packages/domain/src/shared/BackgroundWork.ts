/**
 * Whether the running fiber does background work (the last-used-at flush, the rotation sweep, health checks,
 * expired-entry sweeps) rather than serve a request. A store whose statements all share one session (PGlite)
 * reads it to let a waiting request's statement go first; other stores ignore it.
 */
import { Context, Effect } from "effect"

export const BackgroundWork: Context.Reference<boolean> = Context.Reference<boolean>(
  "@gateway-control/BackgroundWork",
  { defaultValue: () => false }
)

/** Runs `effect` (and every fiber it forks) as background work. */
export const inBackground = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, BackgroundWork, true)
