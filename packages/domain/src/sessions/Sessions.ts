/**
 * People signed in: sessions, local accounts' passwords, and the principal a session acts as. A sign-in (by
 * password here, by an identity provider or an invitation through `signIn`) always makes a new session with a
 * new id and a new random token (no fixation); only the token's hash is stored. A session is admitted at each
 * request by reading it, its user and their membership from the store, so removing a user, changing their role
 * or revoking a session takes effect at their next request, in every process sharing the store.
 *
 * A session acts with its person's own roles through the one policy (access/Policy.ts): an organisation owner
 * or admin as an organisation (admin) key of every scope, a member as a workspace user key of every scope in one
 * of their workspaces (the one the request names, else their oldest membership), so a member's session reaches
 * exactly what a member's user key would.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import type { User, Workspace, WorkspaceRole } from "../access/AccessModel.ts"
import { UserStore, WorkspaceMemberStore, WorkspaceStore } from "../access/AccessStores.ts"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal, SessionActor } from "../access/Principal.ts"
import { ScopeNames } from "../access/Scopes.ts"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import type { AuditActor } from "../audit/AuditRecord.ts"
import { RequestContext } from "../audit/RequestContext.ts"
import { SecretCipher } from "../fine-tuning/Providers.ts"
import { ScimStore } from "../scim/ScimStore.ts"
import { type Forbidden, InvalidRequest, type NotFound, requireRow, Unauthenticated } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import type { StoreError } from "../shared/StoreError.ts"
import {
  defaultSignInSettings,
  SECOND_FACTOR_CHALLENGE_MS,
  type SecondFactorChallenge,
  type SecondFactorSignIn,
  type SecondFactorState
} from "./LocalAccount.ts"
import { LocalAccountStore } from "./LocalAccountStore.ts"
import { PasswordHasher } from "./PasswordHasher.ts"
import { type PasswordSignIn, Session, type SetPassword, type SignIn } from "./Session.ts"
import { SessionStore } from "./SessionStore.ts"
import { makeSignInAttempts, type TooManyAttempts } from "./SignInAttempts.ts"
import { Totp } from "./Totp.ts"

export interface SessionSettingsShape {
  /** A session unused this long ends (`SESSION_IDLE_TIMEOUT_MS`). */
  readonly idleTimeoutMs: number
  /** A session ends this long after sign-in, whatever its use (`SESSION_ABSOLUTE_TIMEOUT_MS`). */
  readonly absoluteTimeoutMs: number
}

export const DEFAULT_SESSION_SETTINGS: SessionSettingsShape = {
  idleTimeoutMs: 3_600_000,
  absoluteTimeoutMs: 43_200_000
}

export const SessionSettings = Context.Reference<SessionSettingsShape>("@gateway-control/domain/SessionSettings", {
  defaultValue: () => DEFAULT_SESSION_SETTINGS
})

/** What a sign-in hands the edge: the session, the token for its cookie, and the token its forms must echo. */
export interface NewSession {
  readonly session: Session
  readonly user: User
  readonly token: string
  readonly csrfToken: string
}

/** A session admitted: the principal it acts as, and its CSRF token for the edge to check. */
export interface AdmittedSession {
  readonly principal: Principal
  readonly session: Session
  readonly user: User
  readonly csrfToken: string
  /**
   * True for a session a password opened, of a person whose organisation requires a second factor they have not
   * set up: it acts with no scope, so it may only enrol one (LocalAccounts.ts), see itself and sign out.
   */
  readonly secondFactorEnrolmentRequired: boolean
}

/** A password sign-in's first step: signed in, or a second factor needed (answer the challenge with a code). */
export type PasswordSignInResult =
  | { readonly _tag: "SignedIn"; readonly signedIn: NewSession }
  | { readonly _tag: "SecondFactorRequired"; readonly challenge: SecondFactorChallenge }

/** Where a sign-in came from, beyond what `RequestContext` says. */
export interface SignInClient {
  readonly userAgent: string | null
}

/** The one answer to a password sign-in that fails, whatever failed: no user enumeration. */
export const WRONG_CREDENTIALS = "The email or password is not right."

/**
 * The answer to the right password of an account whose organisation turned password sign-in off. Only the right
 * password gets it: every other attempt answers `WRONG_CREDENTIALS`, so it tells nothing about which emails exist.
 */
export const LOCAL_ACCOUNTS_OFF = "Password sign-in is turned off for this organisation: sign in with its identity " +
  "provider."

/** The answer to a second step whose challenge is unknown, used or expired, or whose code is not right. */
export const SECOND_FACTOR_REFUSED = "The code is not right, or the sign-in took too long: sign in again with " +
  "your password, then enter the code the authenticator app shows."

const DEPROVISIONED = "This account was deactivated by the organisation's identity provider: it cannot sign in."

const SESSION_ENDED = "The session has ended (signed out, revoked or expired): sign in again."

/** A principal's session actor in the audit log's terms. */
const actorOfSession = (session: Session, user: User): SessionActor => ({
  id: session.id,
  email: user.email,
  identityProvider: session.identity_provider,
  subject: session.subject
})

/** The person of a new session in the audit log's terms: what a sign-in's record names on success. */
export const sessionActor = ({ session, user }: { readonly session: Session; readonly user: User }): AuditActor => ({
  organisationId: user.organisation_id,
  keyId: null,
  userId: user.id,
  session: actorOfSession(session, user)
})

type AccessError = Forbidden | NotFound | StoreError

/**
 * Who a caller is: their person (none for a service key), the workspaces they act in, with their role, and their
 * second factor (null without a person), which says whether a session may only enrol one.
 */
export interface WhoAmI {
  readonly user: User | null
  readonly workspaces: ReadonlyArray<{ readonly workspace: Workspace; readonly role: WorkspaceRole }>
  readonly secondFactor: SecondFactorState | null
}

export class Sessions extends Context.Service<
  Sessions,
  {
    /** A new session for the user (who exists): what every sign-in method calls once the person is known. */
    /** `Unauthenticated` for a user deprovisioned over SCIM. */
    readonly signIn: (
      input: SignIn,
      client: SignInClient
    ) => Effect.Effect<NewSession, Unauthenticated | NotFound | StoreError>
    /**
     * A new session for the user, written inside the caller's own audited use case: a sign-in that is part of
     * another change (by an identity provider, by accepting an invitation), whose record names the session.
     * `Unauthenticated` for a user deprovisioned over SCIM.
     */
    readonly open: (
      input: SignIn,
      user: User,
      client: SignInClient
    ) => Effect.Effect<NewSession, Unauthenticated | StoreError>
    /**
     * Signs in with a local account's email and password; any failure answers `WRONG_CREDENTIALS`, and too many
     * failures for the email or from the client's address `TooManyAttempts` (SignInAttempts.ts).
     */
    readonly passwordSignIn: (
      input: PasswordSignIn,
      client: SignInClient
    ) => Effect.Effect<PasswordSignInResult, Unauthenticated | TooManyAttempts | StoreError>
    /**
     * A password sign-in's second step: the challenge its first step answered (taken once, whatever the outcome)
     * and a current TOTP code, not used before.
     */
    readonly secondFactorSignIn: (
      input: SecondFactorSignIn,
      client: SignInClient
    ) => Effect.Effect<NewSession, Unauthenticated | TooManyAttempts | StoreError>
    /**
     * The principal a session token stands for, in the workspace `workspaceId` names when the person is a
     * member there; `Unauthenticated` for an unknown, revoked or expired session or a removed user.
     */
    readonly authenticate: (
      token: string,
      workspaceId: string | undefined
    ) => Effect.Effect<AdmittedSession, Unauthenticated | StoreError>
    /** Who the caller is: their person and workspaces. */
    readonly whoAmI: (principal: Principal) => Effect.Effect<WhoAmI, StoreError>
    /** The CSRF token of the session whose token this is. */
    readonly csrfTokenOf: (token: string) => string
    /** Ends the caller's own session. */
    readonly signOut: (principal: Principal) => Effect.Effect<Session, InvalidRequest | AccessError>
    /** Ends every session of the caller's user; answers how many. */
    readonly signOutEverywhere: (
      principal: Principal
    ) => Effect.Effect<{ readonly revoked: number }, InvalidRequest | AccessError>
    /** The caller's user's sessions still running, newest first. */
    readonly list: (principal: Principal) => Effect.Effect<ReadonlyArray<Session>, InvalidRequest | AccessError>
    /** Ends one session: the caller's own, or (organisation owners and admins) one of their organisation's. */
    readonly revoke: (principal: Principal, id: string) => Effect.Effect<Session, AccessError>
    /**
     * Sets a local account's password: a person's own (with their current password when they have one), or,
     * for an organisation owner or admin, another user's of their organisation. Ends the user's other sessions.
     */
    readonly setPassword: (
      principal: Principal,
      input: SetPassword
    ) => Effect.Effect<{ readonly user_id: string }, InvalidRequest | AccessError>
  }
>()("@gateway-control/Sessions") {
  static readonly layer = Layer.effect(
    Sessions,
    Effect.gen(function*() {
      const store = yield* SessionStore
      const users = yield* UserStore
      const members = yield* WorkspaceMemberStore
      const workspaces = yield* WorkspaceStore
      const hasher = yield* PasswordHasher
      const scim = yield* ScimStore
      const crypto = yield* PlatformCrypto
      const useCases = yield* AuditedUseCase
      const attempts = yield* makeSignInAttempts
      const localAccounts = yield* LocalAccountStore
      const totp = yield* Totp
      const cipher = yield* SecretCipher

      const signInSettingsOf = (organisationId: string) =>
        Effect.map(
          localAccounts.settingsOf(organisationId),
          Option.getOrElse(() => defaultSignInSettings(organisationId))
        )

      /** A failed sign-in's record, under the account's organisation when there is one. */
      const refusedSignIn = (user: Option.Option<User>, status: number, body: unknown) =>
        useCases.refused({
          useCase: "sessions.signIn",
          actor: Option.match(user, {
            onNone: () => ({ organisationId: null, keyId: null, userId: null }),
            onSome: (u) => ({ organisationId: u.organisation_id, keyId: null, userId: u.id })
          }),
          workspaceId: null,
          status,
          body
        })

      /** False for a user their identity provider deprovisioned over SCIM (`active: false`): they sign in nowhere. */
      const isActive = (userId: string) =>
        Effect.map(scim.getIdentity(userId), Option.match({ onNone: () => true, onSome: (i) => i.active }))

      const csrfTokenOf = (token: string) => crypto.sha256Hex(`csrf:${token}`)
      const after = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString()

      const newSession = Effect.fnUntraced(function*(input: SignIn, user: User, client: SignInClient) {
        const settings = yield* SessionSettings
        const context = yield* RequestContext
        const now = yield* nowIso
        const token = crypto.randomToken(32)
        const session = new Session({
          id: crypto.uuid(),
          user_id: user.id,
          organisation_id: user.organisation_id,
          method: input.method,
          identity_provider: input.identity_provider ?? null,
          subject: input.subject ?? null,
          created_at: now,
          last_seen_at: now,
          expires_at: after(now, settings.absoluteTimeoutMs),
          revoked_at: null,
          user_agent: client.userAgent === null ? null : client.userAgent.slice(0, 512),
          client_ip: context.clientIp
        })
        return { session, token }
      })

      const open = Effect.fnUntraced(function*(
        input: SignIn,
        user: User,
        client: SignInClient
      ): Effect.fn.Return<NewSession, Unauthenticated | StoreError> {
        if (!(yield* isActive(user.id))) return yield* new Unauthenticated({ message: DEPROVISIONED })
        const { session, token } = yield* newSession(input, user, client)
        yield* store.insert(session, crypto.sha256Hex(token))
        return { session, user, token, csrfToken: csrfTokenOf(token) }
      })

      const signIn = (input: SignIn, client: SignInClient) =>
        useCases.run(
          {
            useCase: "sessions.signIn",
            // Until the session exists, the record can name the user alone.
            actor: { organisationId: null, keyId: null, userId: input.user_id },
            successActor: sessionActor,
            resourceId: (signedIn) => signedIn.session.id,
            requestedId: null,
            workspaceId: null,
            body: { method: input.method, user_id: input.user_id, identity_provider: input.identity_provider ?? null }
          },
          Effect.gen(function*() {
            const user = yield* requireRow(yield* users.get(input.user_id), "user", input.user_id)
            return yield* open(input, user, client)
          })
        ).pipe(Effect.withSpan("Sessions.signIn"))

      const passwordSignIn = Effect.fn("Sessions.passwordSignIn")(
        function*(input: PasswordSignIn, client: SignInClient) {
          const email = input.email.trim()
          // Counted before anything is read, so a refusal for too many failures takes the same time and says
          // the same for every email.
          const attempt = yield* attempts.reserve(email)
          const candidates = yield* store.passwordsByEmail(email)
          let matched: string | undefined
          if (candidates.length === 0) yield* hasher.verifyDummy(input.password)
          for (const candidate of candidates) {
            if (yield* hasher.verify(input.password, candidate.passwordHash)) {
              matched = candidate.userId
              break
            }
          }
          const user = matched === undefined ? Option.none() : yield* users.get(matched)
          if (Option.isNone(user)) {
            // The attempt is filed under the organisation of the account named, when there is one, so its admins
            // see it; under no organisation otherwise. The password is never recorded.
            const named = candidates.length === 0 ? Option.none() : yield* users.get(candidates[0].userId)
            yield* refusedSignIn(named, 401, { method: "password", email: email.slice(0, 320) })
            return yield* new Unauthenticated({ message: WRONG_CREDENTIALS })
          }
          yield* attempt.succeeded
          const person = user.value
          if (!(yield* signInSettingsOf(person.organisation_id)).local_accounts_enabled) {
            yield* refusedSignIn(user, 401, { method: "password", email: email.slice(0, 320) })
            return yield* new Unauthenticated({ message: LOCAL_ACCOUNTS_OFF })
          }
          const factor = yield* localAccounts.totpOf(person.id)
          if (Option.isSome(factor) && factor.value.active) {
            // The second step takes a challenge, short-lived and single-use, that only this step hands out.
            const token = crypto.randomToken(32)
            const now = DateTime.toEpochMillis(yield* DateTime.now)
            const expiresAt = new Date(now + SECOND_FACTOR_CHALLENGE_MS).toISOString()
            yield* localAccounts.insertChallenge(
              crypto.sha256Hex(`challenge:${token}`),
              person.id,
              expiresAt,
              new Date(now).toISOString()
            )
            return { _tag: "SecondFactorRequired", challenge: { challenge: token, expires_at: expiresAt } } as const
          }
          // The user was just read: a NotFound here is a removal racing the sign-in, answered as a failed one.
          const signedIn = yield* signIn({ user_id: person.id, method: "password" }, client).pipe(
            // A deprovisioned account answers as a wrong password would: the answer tells nothing of the password.
            Effect.catchTags({
              NotFound: () => Effect.fail(new Unauthenticated({ message: WRONG_CREDENTIALS })),
              Unauthenticated: () => Effect.fail(new Unauthenticated({ message: WRONG_CREDENTIALS }))
            })
          )
          return { _tag: "SignedIn", signedIn } as const
        }
      )

      const secondFactorSignIn = Effect.fn("Sessions.secondFactorSignIn")(
        function*(input: SecondFactorSignIn, client: SignInClient) {
          const refused = new Unauthenticated({ message: SECOND_FACTOR_REFUSED })
          const now = yield* nowIso
          const taken = input.challenge.length === 0
            ? Option.none()
            : yield* localAccounts.takeChallenge(crypto.sha256Hex(`challenge:${input.challenge}`), now)
          const user = Option.isNone(taken) ? Option.none() : yield* users.get(taken.value)
          if (Option.isNone(user)) {
            yield* refusedSignIn(Option.none(), 401, { method: "totp" })
            return yield* refused
          }
          const person = user.value
          const attempt = yield* attempts.reserve(person.email)
          const factor = yield* localAccounts.totpOf(person.id)
          const secret = Option.isSome(factor) && factor.value.active
            ? cipher.decrypt(factor.value.encryptedSecret)
            : undefined
          const step = secret === undefined
            ? undefined
            : totp.matchingStep(secret, input.code, DateTime.toEpochMillis(yield* DateTime.now))
          // A code of a step used before (by this sign-in or another process's) is a replay, refused alike.
          if (step === undefined || !(yield* localAccounts.useTotpStep(person.id, step))) {
            yield* refusedSignIn(user, 401, { method: "totp", user_id: person.id })
            return yield* refused
          }
          yield* attempt.succeeded
          return yield* signIn({ user_id: person.id, method: "password" }, client).pipe(
            Effect.catchTag("NotFound", () => Effect.fail(refused))
          )
        }
      )

      /**
       * The person's second factor, and whether `session` may only enrol one: a session a password opened (a
       * sign-in, or an invitation accepted with one) needs an active factor where the organisation requires one.
       */
      const secondFactorOf = Effect.fnUntraced(function*(user: User, session: Option.Option<Session>) {
        const factor = yield* localAccounts.totpOf(user.id)
        const required = (yield* signInSettingsOf(user.organisation_id)).require_second_factor
        const active = Option.isSome(factor) && factor.value.active
        const byPassword = Option.isSome(session) &&
          (session.value.method === "password" || session.value.method === "invitation")
        const state: SecondFactorState = {
          totp: Option.match(factor, { onNone: () => "none", onSome: (f) => f.active ? "active" : "pending" }),
          required,
          enrolment_only: byPassword && required && !active
        }
        return state
      })

      /** The principal a session of `user` acts as, in the workspace `wanted` when they are a member there. */
      const principalOf = Effect.fnUntraced(
        function*(
          session: Session,
          user: User,
          wanted: string | undefined,
          enrolmentOnly: boolean
        ): Effect.fn.Return<Principal, StoreError> {
          const base = {
            keyId: null,
            organisationId: user.organisation_id,
            userId: user.id,
            organisationRole: user.role,
            // A session that must enrol a second factor first holds no scope: the policy refuses it everything
            // but the person's own account (their second factor, sessions and password).
            scopes: enrolmentOnly ? new Set<never>() : new Set(ScopeNames),
            expiresAt: session.expires_at,
            session: actorOfSession(session, user)
          }
          if (user.role === "owner" || user.role === "admin") {
            return { ...base, keyType: "organisation-service", workspaceId: null, workspaceRole: "manager" }
          }
          const memberships = yield* members.workspacesOf(user.id)
          const workspaceId = wanted !== undefined && memberships.includes(wanted) ? wanted : memberships[0]
          const membership = workspaceId === undefined ? Option.none() : yield* members.get(workspaceId, user.id)
          return {
            ...base,
            keyType: "workspace-user",
            workspaceId: workspaceId ?? null,
            workspaceRole: Option.match(membership, { onNone: () => null, onSome: (m) => m.role })
          }
        }
      )

      const authenticate = Effect.fn("Sessions.authenticate")(function*(token: string, wanted: string | undefined) {
        const ended = new Unauthenticated({ message: SESSION_ENDED })
        if (token.length === 0 || token.length > 256) return yield* ended
        const found = yield* store.findByTokenHash(crypto.sha256Hex(token))
        if (Option.isNone(found)) return yield* ended
        const { session } = found.value
        const settings = yield* SessionSettings
        const now = DateTime.toEpochMillis(yield* DateTime.now)
        const lastSeen = Date.parse(session.last_seen_at)
        if (
          session.revoked_at !== null || now >= Date.parse(session.expires_at) ||
          now - lastSeen >= settings.idleTimeoutMs
        ) return yield* ended
        const user = yield* users.get(session.user_id)
        // Deprovisioning ends a user's sessions; one a sign-in made as it ran ends here.
        if (Option.isNone(user) || !(yield* isActive(user.value.id))) return yield* ended
        // Idle expiry counts from the last request, kept to within a minute (or a tenth of the idle timeout).
        const slack = Math.min(60_000, settings.idleTimeoutMs / 10)
        if (now - lastSeen >= slack) yield* store.touch(session.id, new Date(now).toISOString())
        const { enrolment_only: secondFactorEnrolmentRequired } = yield* secondFactorOf(
          user.value,
          Option.some(session)
        )
        const principal = yield* principalOf(session, user.value, wanted, secondFactorEnrolmentRequired)
        return { principal, session, user: user.value, csrfToken: csrfTokenOf(token), secondFactorEnrolmentRequired }
      })

      const personOf = (principal: Principal): Effect.Effect<string, InvalidRequest> =>
        principal.userId === null
          ? Effect.fail(InvalidRequest.of("This key stands for no person: it has no sessions.", null))
          : Effect.succeed(principal.userId)

      /** The session, when the caller may end it: their own, or an owner's or admin's of their organisation. */
      const revocable = Effect.fnUntraced(function*(principal: Principal, id: string) {
        const session = yield* requireRow(yield* store.get(id), "session", id)
        // Another person's session, another organisation's included (which the policy hides): an admin's to end.
        if (session.user_id !== principal.userId) {
          yield* ensureAllowed(principal, "users.update", Target.organisation(session.organisation_id), {
            type: "session",
            id
          })
        }
        return session
      })

      const revokeOne = Effect.fnUntraced(function*(principal: Principal, id: string) {
        const session = yield* revocable(principal, id)
        const now = yield* nowIso
        yield* store.revoke(session.id, now)
        return new Session({ ...session, revoked_at: session.revoked_at ?? now })
      })

      const signOut = (principal: Principal) =>
        useCases.run(
          { useCase: "sessions.signOut", actor: principal, resourceId: principal.session?.id ?? null, body: null },
          Effect.suspend((): Effect.Effect<Session, InvalidRequest | AccessError> =>
            principal.session === undefined
              ? Effect.fail(InvalidRequest.of("Signing out ends a session; this call was made with an API key.", null))
              : revokeOne(principal, principal.session.id)
          )
        )

      const signOutEverywhere = (principal: Principal) =>
        useCases.run(
          { useCase: "sessions.signOutEverywhere", actor: principal, resourceId: principal.userId, body: null },
          Effect.gen(function*() {
            const userId = yield* personOf(principal)
            const ids = yield* store.revokeAll(userId, yield* nowIso, null)
            return { revoked: ids.length }
          })
        )

      const list = (principal: Principal) =>
        Effect.flatMap(personOf(principal), (userId) => Effect.flatMap(nowIso, (now) => store.listActive(userId, now)))

      const revoke = (principal: Principal, id: string) =>
        useCases.run(
          { useCase: "sessions.revoke", actor: principal, resourceId: id, body: null },
          revokeOne(principal, id)
        )

      const changePassword = Effect.fnUntraced(function*(principal: Principal, input: SetPassword) {
        const user = yield* requireRow(yield* users.get(input.user_id), "user", input.user_id)
        if (user.id === principal.userId) {
          const current = yield* store.passwordOf(user.id)
          if (Option.isSome(current)) {
            const given = input.current_password
            if (given === undefined || !(yield* hasher.verify(given, current.value))) {
              return yield* InvalidRequest.of("current_password is not this account's password.", "current_password")
            }
          }
        } else {
          yield* ensureAllowed(
            principal,
            user.role === "owner" ? "users.update.owner" : "users.update",
            Target.organisation(user.organisation_id),
            { type: "user", id: user.id }
          )
        }
        const now = yield* nowIso
        yield* store.setPassword(user.id, yield* hasher.hash(input.password), now)
        // A new password ends every other session of the account.
        yield* store.revokeAll(user.id, now, principal.session?.id ?? null)
        return { user_id: user.id }
      })

      const setPassword = (principal: Principal, input: SetPassword) =>
        useCases.run(
          // The body names the account only: passwords are never recorded.
          {
            useCase: "sessions.setPassword",
            actor: principal,
            resourceId: input.user_id,
            body: { user_id: input.user_id }
          },
          changePassword(principal, input)
        )

      const whoAmI = Effect.fn("Sessions.whoAmI")(function*(principal: Principal) {
        const user = principal.userId === null ? Option.none() : yield* users.get(principal.userId)
        if (Option.isNone(user)) {
          const keyWorkspace = principal.workspaceId
          const own = keyWorkspace === null ? Option.none() : yield* workspaces.get(keyWorkspace)
          return {
            user: null,
            workspaces: Option.toArray(own).map((workspace) => ({
              workspace,
              role: "member" as const
            })),
            secondFactor: null
          }
        }
        const session = principal.session === undefined ? Option.none() : yield* store.get(principal.session.id)
        const secondFactor = yield* secondFactorOf(user.value, session)
        if (user.value.role === "owner" || user.value.role === "admin") {
          const all = yield* workspaces.list(user.value.organisation_id, { limit: 1000, offset: 0 })
          return {
            user: user.value,
            workspaces: all.items.map((workspace) => ({ workspace, role: "manager" as const })),
            secondFactor
          }
        }
        const ids = yield* members.workspacesOf(user.value.id)
        const found = yield* Effect.forEach(
          ids,
          (id) => Effect.all({ workspace: workspaces.get(id), member: members.get(id, user.value.id) })
        )
        return {
          user: user.value,
          workspaces: found.flatMap(({ member, workspace }) =>
            Option.isSome(workspace) && Option.isSome(member)
              ? [{ workspace: workspace.value, role: member.value.role }]
              : []
          ),
          secondFactor
        }
      })

      return Sessions.of({
        whoAmI,
        signIn,
        open,
        passwordSignIn,
        secondFactorSignIn,
        authenticate,
        csrfTokenOf,
        signOut,
        signOutEverywhere,
        list,
        revoke,
        setPassword
      })
    })
  )
}
