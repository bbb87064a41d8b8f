/**
 * Typed errors of the domain. Each one is something a caller can act on; the HTTP adapter maps them
 * to statuses and to the project's error envelope. Infrastructure failures are defects, not errors, except a
 * store that cannot answer: `StoreError` (StoreError.ts), which a caller can act on by retrying.
 */
import { Effect, Option, Schema } from "effect"

/** The request is well-formed JSON but breaks a rule; `param` names the offending field when there is one. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  message: Schema.String,
  param: Schema.NullOr(Schema.String)
}) {
  static readonly of = (message: string, param: string | null = null) => new InvalidRequest({ message, param })
}

/** No usable credential: missing, unknown, revoked or expired key. */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  message: Schema.String,
  /**
   * Set when the presented credential is no key at all: `missing` (none was presented) or `unrecognised`.
   * An adapter adds where its callers present a key.
   */
  credential: Schema.optionalKey(Schema.Literals(["missing", "unrecognised"])),
  /** The key presented, when the gateway knows it (revoked or expired): the audit log files the attempt under it. */
  knownKey: Schema.optionalKey(Schema.Struct({
    id: Schema.String,
    organisation_id: Schema.String,
    workspace_id: Schema.NullOr(Schema.String),
    user_id: Schema.NullOr(Schema.String),
    /** The workload a credential issued by token exchange stands for: its refusals are filed under it too. */
    workload: Schema.optionalKey(Schema.Struct({ issuer: Schema.String, subject: Schema.String }))
  }))
}) {}

/** The caller is known but may not do this; `message` names the missing scope or the rule. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  message: Schema.String
}) {}

/**
 * The resource does not exist, or exists where the caller may not see it. Services raise it only through
 * `requireRow` (no such row); a row the caller may not see is hidden by the policy (access/Policy.ts).
 */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  resource: Schema.String,
  id: Schema.String
}) {
  override get message() {
    return `No ${this.resource} with id '${this.id}' was found.`
  }
}

/**
 * The row a lookup found, or `NotFound` when there is none. It takes the lookup's own answer, so it speaks of
 * absence only: whether the caller may see a row that exists is the policy's question, never the service's.
 */
export const requireRow = <A>(found: Option.Option<A>, resource: string, id: string): Effect.Effect<A, NotFound> =>
  Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new NotFound({ resource, id }))

/** A uniqueness rule would be broken (duplicate slug, name or email). */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  message: Schema.String,
  param: Schema.NullOr(Schema.String)
}) {}

/** Bootstrap was asked for on a store that already has an organisation. */
export class AlreadyBootstrapped extends Schema.TaggedError<AlreadyBootstrapped>()("AlreadyBootstrapped", {
  organisation_id: Schema.String
}) {
  override get message() {
    return `The store already has an organisation (${this.organisation_id}); bootstrap only runs on an empty store.`
  }
}
