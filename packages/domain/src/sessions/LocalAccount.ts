/**
 * Local accounts' hardening: an organisation's sign-in settings (password sign-in on or off, a second factor
 * required or not), a person's TOTP second factor, and the short-lived, single-use challenge between a password
 * sign-in's two steps. One schema per entity; what callers give derives from it.
 */
import { Schema, Struct } from "effect"

/** An organisation's sign-in settings; an organisation that never changed them has the defaults (both open). */
export class SignInSettings extends Schema.Class<SignInSettings>("SignInSettings")({
  organisation_id: Schema.String,
  /** Whether people may sign in with a local account's email and password. Off needs an enabled identity provider. */
  local_accounts_enabled: Schema.Boolean,
  /** Whether a password sign-in needs a second factor (TOTP): a person without one is only let in to enrol. */
  require_second_factor: Schema.Boolean,
  /** When they last changed; null for the defaults. */
  last_updated_at: Schema.NullOr(Schema.String)
}) {}

export const defaultSignInSettings = (organisationId: string) =>
  new SignInSettings({
    organisation_id: organisationId,
    local_accounts_enabled: true,
    require_second_factor: false,
    last_updated_at: null
  })

/** A change of the settings: the fields given change, the others keep their value. */
export const UpdateSignInSettings = Schema.Struct(
  Struct.map(
    Struct.pick(SignInSettings.fields, ["local_accounts_enabled", "require_second_factor"]),
    Schema.optionalKey
  )
)
export type UpdateSignInSettings = typeof UpdateSignInSettings.Type

/** A six-digit code from the person's authenticator app. */
export const TotpCode = Schema.String.check(
  Schema.isPattern(/^\d{6}$/, { message: "must be the 6 digits the authenticator app shows" })
)

/** A code, to confirm an enrolment or to disable the second factor. */
export const SecondFactorCode = Schema.Struct({ code: TotpCode })
export type SecondFactorCode = typeof SecondFactorCode.Type

/** The second step of a password sign-in: the challenge the first step answered, and a code. */
export const SecondFactorSignIn = Schema.Struct({
  challenge: Schema.String.check(Schema.isMaxLength(256)),
  code: Schema.String.check(Schema.isMaxLength(16))
})
export type SecondFactorSignIn = typeof SecondFactorSignIn.Type

/** A person's second factor as they see it: never its secret. */
export class SecondFactorStatus extends Schema.Class<SecondFactorStatus>("SecondFactorStatus")({
  user_id: Schema.String,
  /** `none`, `pending` (enrolled, not yet confirmed by a code) or `active`. */
  totp: Schema.Literals(["none", "pending", "active"]),
  /** Whether the person's organisation requires a second factor for password sign-in. */
  required: Schema.Boolean
}) {}

/**
 * A caller's second factor as their own profile tells it: the factor's state and whether the organisation requires one
 * (as `SecondFactorStatus` says them), and whether the session may do nothing but enrol one.
 */
export const SecondFactorState = Schema.Struct({
  ...Struct.pick(SecondFactorStatus.fields, ["totp", "required"]),
  /**
   * True for a session a password opened (a sign-in, or accepting an invitation with one) in an organisation that
   * requires a second factor, of a person with none active: it may only enrol one (and see itself and sign out).
   * Once the factor is confirmed, the same session acts with the person's roles.
   */
  enrolment_only: Schema.Boolean
})
export type SecondFactorState = typeof SecondFactorState.Type

/** An enrolment's answer, given once: the otpauth:// URI for the authenticator app (it holds the secret). */
export interface TotpEnrolment {
  readonly user_id: string
  readonly otpauth_uri: string
}

/** A TOTP second factor as its store keeps it: the secret encrypted with the master key (`SecretCipher`). */
export interface StoredTotp {
  readonly userId: string
  readonly encryptedSecret: string
  readonly active: boolean
  /** The time step of the last code accepted: a code of this step or an earlier one is a replay. */
  readonly lastUsedStep: number | null
}

/** What a password sign-in's first step answers for a person with a second factor. */
export interface SecondFactorChallenge {
  readonly challenge: string
  readonly expires_at: string
}

/** How long the challenge between a password sign-in's two steps lasts. */
export const SECOND_FACTOR_CHALLENGE_MS = 300_000
