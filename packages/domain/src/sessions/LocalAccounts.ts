/**
 * Local accounts' settings and second factors. An organisation's owners and admins set, through the policy,
 * whether its people may sign in with a password and whether a password sign-in needs a second factor; turning
 * password sign-in off is refused while the organisation has no enabled identity provider, so nobody locks the
 * organisation out (its owners keep API keys and the CLI either way). A person signed in enrols a TOTP second
 * factor (the server makes the secret, answers its otpauth:// URI once and keeps it encrypted with the master
 * key), confirms it with a code, and disables it with a current code. Codes are used once; failures count
 * against the account's sign-in attempts (SignInAttempts.ts). Every change is an audited use case, and no
 * record holds a secret or a code.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { OrganisationStore, UserStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { SecretCipher } from "../fine-tuning/Providers.ts"
import { IdentityProviderSettings } from "../identity-providers/IdentityProviderSettings.ts"
import { IdentityProviderStore } from "../identity-providers/IdentityProviderStore.ts"
import { Conflict, type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { StoreError } from "../shared/StoreError.ts"
import {
  defaultSignInSettings,
  type SecondFactorCode,
  SecondFactorStatus,
  SignInSettings,
  type TotpEnrolment,
  type UpdateSignInSettings
} from "./LocalAccount.ts"
import { LocalAccountStore } from "./LocalAccountStore.ts"
import { makeSignInAttempts, type TooManyAttempts } from "./SignInAttempts.ts"
import { Totp } from "./Totp.ts"

type AccessError = Forbidden | NotFound | StoreError

/** The answer to a code that is not the authenticator's current one, or was used already. */
export const WRONG_CODE = "The code is not right (or was used already): enter the one the authenticator app shows now."

export class LocalAccounts extends Context.Service<
  LocalAccounts,
  {
    /** The caller's organisation's sign-in settings (owners and admins). */
    readonly settings: (principal: Principal) => Effect.Effect<SignInSettings, AccessError>
    /** Changes them: turning password sign-in off needs an enabled identity provider in the organisation. */
    readonly updateSettings: (
      principal: Principal,
      input: UpdateSignInSettings
    ) => Effect.Effect<SignInSettings, InvalidRequest | AccessError>
    /** The caller's person's second factor: none, pending or active, and whether it is required. */
    readonly secondFactor: (principal: Principal) => Effect.Effect<SecondFactorStatus, InvalidRequest | AccessError>
    /** Enrols a new TOTP factor for the person signed in: pending until `confirm`; its URI is answered this once. */
    readonly enrolTotp: (principal: Principal) => Effect.Effect<TotpEnrolment, InvalidRequest | Conflict | AccessError>
    /** Activates the pending factor with a current code. */
    readonly confirmTotp: (
      principal: Principal,
      input: SecondFactorCode
    ) => Effect.Effect<SecondFactorStatus, InvalidRequest | TooManyAttempts | AccessError>
    /** Removes the person's factor; an active one needs a current code. */
    readonly disableTotp: (
      principal: Principal,
      input: SecondFactorCode
    ) => Effect.Effect<SecondFactorStatus, InvalidRequest | TooManyAttempts | AccessError>
  }
>()("@gateway-control/LocalAccounts") {
  static readonly layer = Layer.effect(
    LocalAccounts,
    Effect.gen(function*() {
      const rawStore = yield* LocalAccountStore
      const store = grantedWrites(rawStore, { saveSettings: "sign_in_settings.update" })
      const users = yield* UserStore
      const organisations = yield* OrganisationStore
      const providers = yield* IdentityProviderStore
      const providerSettings = yield* IdentityProviderSettings
      const cipher = yield* SecretCipher
      const totp = yield* Totp
      const useCases = yield* AuditedUseCase
      const attempts = yield* makeSignInAttempts

      const settingsOf = (organisationId: string) =>
        Effect.map(
          rawStore.settingsOf(organisationId),
          Option.getOrElse(() => defaultSignInSettings(organisationId))
        )

      const organisationRef = (principal: Principal) => ({ type: "organisation", id: principal.organisationId })

      const settings = (principal: Principal) =>
        Effect.andThen(
          ensureAllowed(
            principal,
            "sign_in_settings.read",
            Target.organisation(principal.organisationId),
            organisationRef(principal)
          ),
          settingsOf(principal.organisationId)
        )

      /** Is there a provider the organisation's people can sign in with: an enabled one, or the operator's? */
      const hasEnabledProvider = Effect.fnUntraced(function*(organisationId: string) {
        if (providerSettings.operatorProvider !== null) {
          const first = yield* organisations.first
          if (Option.isSome(first) && first.value.id === organisationId) return true
        }
        const listed = yield* providers.list(organisationId, { limit: 1000, offset: 0 })
        return listed.items.some((provider) => provider.enabled)
      })

      const updateSettings = (principal: Principal, input: UpdateSignInSettings) =>
        useCases.run(
          {
            useCase: "signInSettings.update",
            actor: principal,
            resourceId: principal.organisationId,
            workspaceId: null,
            body: input
          },
          Effect.gen(function*() {
            if (input.local_accounts_enabled === undefined && input.require_second_factor === undefined) {
              return yield* InvalidRequest.of(
                "Give local_accounts_enabled or require_second_factor (or both): there is nothing to change.",
                null
              )
            }
            const grant = yield* ensureAllowed(
              principal,
              "sign_in_settings.update",
              Target.organisation(principal.organisationId),
              organisationRef(principal)
            )
            const current = yield* settingsOf(principal.organisationId)
            const next = new SignInSettings({
              organisation_id: principal.organisationId,
              local_accounts_enabled: input.local_accounts_enabled ?? current.local_accounts_enabled,
              require_second_factor: input.require_second_factor ?? current.require_second_factor,
              last_updated_at: yield* nowIso
            })
            if (
              current.local_accounts_enabled && !next.local_accounts_enabled &&
              !(yield* hasEnabledProvider(principal.organisationId))
            ) {
              return yield* InvalidRequest.of(
                "Password sign-in cannot be turned off while the organisation has no enabled identity provider: " +
                  "nobody could sign in. Add and enable an identity provider, check that people can sign in with it, " +
                  "then turn password sign-in off.",
                "local_accounts_enabled"
              )
            }
            yield* store.saveSettings(grant, next)
            return next
          })
        )

      /** The person the principal stands for: a session's, or a user key's. */
      const personOf = Effect.fnUntraced(function*(principal: Principal, what: string) {
        if (principal.userId === null) {
          return yield* InvalidRequest.of(`This key stands for no person: ${what} is a person's.`, null)
        }
        return yield* requireRow(yield* users.get(principal.userId), "user", principal.userId)
      })

      const statusOf = Effect.fnUntraced(function*(userId: string, organisationId: string) {
        const factor = yield* rawStore.totpOf(userId)
        const required = (yield* settingsOf(organisationId)).require_second_factor
        return new SecondFactorStatus({
          user_id: userId,
          totp: Option.match(factor, { onNone: () => "none", onSome: (f) => f.active ? "active" : "pending" }),
          required
        })
      })

      const secondFactor = (principal: Principal) =>
        Effect.flatMap(
          personOf(principal, "a second factor"),
          (user) => statusOf(user.id, user.organisation_id)
        )

      const secretOf = (encrypted: string) => {
        const secret = cipher.decrypt(encrypted)
        return secret === undefined
          ? Effect.die(new Error("A TOTP secret cannot be decrypted: was GATEWAY_MASTER_KEY changed?"))
          : Effect.succeed(secret)
      }

      const stepOf = Effect.fnUntraced(function*(encrypted: string, code: string) {
        const secret = yield* secretOf(encrypted)
        return totp.matchingStep(secret, code, DateTime.toEpochMillis(yield* DateTime.now))
      })

      const enrolTotp = (principal: Principal) =>
        useCases.run(
          // Neither the secret nor its URI is recorded.
          { useCase: "secondFactor.enrol", actor: principal, resourceId: principal.userId, body: null },
          Effect.gen(function*() {
            if (principal.session === undefined) {
              return yield* InvalidRequest.of("Enrolling a second factor needs a person signed in (a session).", null)
            }
            const user = yield* personOf(principal, "a second factor")
            const existing = yield* rawStore.totpOf(user.id)
            if (Option.isSome(existing) && existing.value.active) {
              return yield* new Conflict({
                message:
                  "A second factor is active already: disable it (with a current code) before enrolling another.",
                param: null
              })
            }
            const secret = totp.generateSecret()
            yield* rawStore.savePendingTotp(user.id, cipher.encrypt(secret), yield* nowIso)
            return { user_id: user.id, otpauth_uri: totp.uri(secret, user.email) }
          })
        )

      /** Checks a code against the person's factor; counts a wrong one against their sign-in attempts. */
      const checkCode = Effect.fnUntraced(function*(
        email: string,
        encrypted: string,
        code: string,
        use: (step: number) => Effect.Effect<boolean, StoreError>
      ) {
        const attempt = yield* attempts.reserve(email)
        const step = yield* stepOf(encrypted, code)
        if (step === undefined || !(yield* use(step))) return yield* InvalidRequest.of(WRONG_CODE, "code")
        yield* attempt.succeeded
      })

      const confirmTotp = (principal: Principal, input: SecondFactorCode) =>
        useCases.run(
          { useCase: "secondFactor.confirm", actor: principal, resourceId: principal.userId, body: null },
          Effect.gen(function*() {
            const user = yield* personOf(principal, "a second factor")
            const factor = yield* rawStore.totpOf(user.id)
            if (Option.isNone(factor) || factor.value.active) {
              return yield* InvalidRequest.of("No second factor is waiting to be confirmed: enrol first.", null)
            }
            const now = yield* nowIso
            yield* checkCode(
              user.email,
              factor.value.encryptedSecret,
              input.code,
              (step) => rawStore.activateTotp(user.id, step, now)
            )
            return yield* statusOf(user.id, user.organisation_id)
          })
        )

      const disableTotp = (principal: Principal, input: SecondFactorCode) =>
        useCases.run(
          { useCase: "secondFactor.disable", actor: principal, resourceId: principal.userId, body: null },
          Effect.gen(function*() {
            const user = yield* personOf(principal, "a second factor")
            const factor = yield* rawStore.totpOf(user.id)
            if (Option.isNone(factor)) return yield* InvalidRequest.of("There is no second factor to disable.", null)
            if (factor.value.active) {
              yield* checkCode(
                user.email,
                factor.value.encryptedSecret,
                input.code,
                (step) => rawStore.useTotpStep(user.id, step)
              )
            }
            yield* rawStore.deleteTotp(user.id)
            return yield* statusOf(user.id, user.organisation_id)
          })
        )

      return LocalAccounts.of({ settings, updateSettings, secondFactor, enrolTotp, confirmTotp, disableTotp })
    })
  )
}
