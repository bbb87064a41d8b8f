/**
 * Sessions: a person signed in, by password, by an identity provider or by accepting an invitation. The
 * session's id names it (in the audit log, in a person's list of sessions); the cookie carries a random token
 * of which the store keeps only the hash. One schema for the entity; what callers give derives from it.
 */
import { Schema, Struct } from "effect"
import { Email } from "../shared/Rules.ts"

export const SessionMethod = Schema.Literals(["password", "oidc", "invitation"])
export type SessionMethod = typeof SessionMethod.Type

export class Session extends Schema.Class<Session>("Session")({
  id: Schema.String,
  user_id: Schema.String,
  organisation_id: Schema.String,
  method: SessionMethod,
  /** The identity provider the person signed in with (its slug or issuer); null for a password or invitation. */
  identity_provider: Schema.NullOr(Schema.String),
  /** The provider's `sub` for the person; null when not signed in by a provider. */
  subject: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  /** The last request made in the session (kept to within a minute): idle expiry counts from here. */
  last_seen_at: Schema.String,
  /** When the session ends whatever its use: the absolute timeout. */
  expires_at: Schema.String,
  revoked_at: Schema.NullOr(Schema.String),
  user_agent: Schema.NullOr(Schema.String),
  client_ip: Schema.NullOr(Schema.String)
}) {}

/** A session as its store keeps it: with the SHA-256 of its token. */
export interface StoredSession {
  readonly session: Session
  readonly tokenHash: string
}

/** How a sign-in was made, as an identity edge (password, OIDC, invitation) hands it to `Sessions.signIn`. */
export const SignIn = Schema.Struct({
  ...Struct.pick(Session.fields, ["user_id", "method"]),
  ...Struct.map(Struct.pick(Session.fields, ["identity_provider", "subject"]), Schema.optionalKey)
})
export type SignIn = typeof SignIn.Type

/** The password a local account signs in with: 12 to 1024 characters. */
export const Password = Schema.String.check(
  Schema.isMinLength(12, { message: "must be at least 12 characters" }),
  Schema.isMaxLength(1024, { message: "must be at most 1024 characters" })
)

/** A password sign-in: an email and a password. Any string is taken: a wrong one answers as a wrong one. */
export const PasswordSignIn = Schema.Struct({
  email: Schema.String.check(Schema.isMaxLength(320)),
  password: Schema.String.check(Schema.isMaxLength(1024))
})
export type PasswordSignIn = typeof PasswordSignIn.Type

/** Setting a user's password: the user's own (with their current one, when they have one) or an admin's. */
export const SetPassword = Schema.Struct({
  user_id: Schema.String,
  password: Password,
  current_password: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1024)))
})
export type SetPassword = typeof SetPassword.Type

export const isEmailAddress = Schema.is(Email)
