/**
 * The one typed failure of the store ports: the store could not do what was asked, for a reason the caller can
 * act on by retrying later. Everything else a store can get wrong (a bad statement, a row that does not decode,
 * a constraint other than uniqueness) is a bug in the adapter and stays a defect; a uniqueness rule is the
 * domain's `Conflict`.
 */
import { Schema } from "effect"

/**
 * Why the store failed:
 * - `unavailable`: it cannot be reached, dropped the connection, or did not answer in time (down, restarting,
 *   hanging, out of connections);
 * - `contention`: it gave up this unit of work for a concurrent one (deadlock, serialization failure).
 *
 * Both are transient: the same call may succeed once the store recovers, so callers answer "try again later".
 */
export const StoreErrorReason = Schema.Literals(["unavailable", "contention"])
export type StoreErrorReason = typeof StoreErrorReason.Type

export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  reason: StoreErrorReason,
  message: Schema.String
}) {
  static readonly unavailable = (message: string) => new StoreError({ reason: "unavailable", message })
  static readonly contention = (message: string) => new StoreError({ reason: "contention", message })
}
