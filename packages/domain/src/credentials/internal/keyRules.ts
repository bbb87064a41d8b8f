/** The rules on what a caller asks a key to be, shared by creating a key and changing one. */
import { Effect, Schema } from "effect"
import { isScope, type Scope, unknownScopes } from "../../access/Scopes.ts"
import { InvalidRequest } from "../../shared/Errors.ts"
import { nowIso } from "../../shared/internal/time.ts"

/** Scopes asked for that do not exist (field `scopes`); an adapter says where its callers find the known ones. */
export class UnknownScopes extends Schema.TaggedError<UnknownScopes>()("UnknownScopes", {
  scopes: Schema.Array(Schema.String)
}) {
  override get message() {
    return `Unknown scopes: ${this.scopes.join(", ")}.`
  }
}

/** At least one scope, every one known. */
export const checkScopes = (
  scopes: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<Scope>, InvalidRequest | UnknownScopes> => {
  if (scopes.length === 0) return Effect.fail(InvalidRequest.of("scopes must name at least one scope.", "scopes"))
  const unknown = unknownScopes(scopes)
  return unknown.length > 0
    ? Effect.fail(new UnknownScopes({ scopes: unknown }))
    : Effect.succeed(scopes.filter(isScope))
}

/** An ISO 8601 date-time in the future, in UTC with milliseconds. */
export const checkExpiry = Effect.fnUntraced(function*(expiresAt: string) {
  const parsed = Date.parse(expiresAt)
  if (!/^\d{4}-\d{2}-\d{2}T/.test(expiresAt) || Number.isNaN(parsed)) {
    return yield* InvalidRequest.of("expires_at must be an ISO 8601 date-time.", "expires_at")
  }
  const iso = new Date(parsed).toISOString()
  if (iso <= (yield* nowIso)) return yield* InvalidRequest.of("expires_at must be in the future.", "expires_at")
  return iso
})
