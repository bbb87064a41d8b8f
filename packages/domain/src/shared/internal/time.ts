import { DateTime, Effect } from "effect"

/** The current instant as an ISO 8601 string, from the Effect clock (so tests can move it). */
export const nowIso: Effect.Effect<string> = Effect.map(DateTime.now, DateTime.formatIso)
