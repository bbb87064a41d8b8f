/**
 * Signing a person in with an identity provider (OpenID Connect, the code flow with PKCE): `start` keeps
 * the flow server-side and answers the provider's URL; `callback` takes the flow once, has the provider's answer
 * validated (by the `OidcClient` adapter), matches the person to a user by verified email or creates them when
 * their domain is allowed, applies the provider's role map, and answers who signed in. The callback is one
 * audited use case: its record names the person (email, provider, subject) and every role the map changed; a
 * refusal is recorded as a failed sign-in and changes nothing.
 *
 * Users and memberships are written here without the policy's grant (GrantedWrites.ts): no principal asks; the
 * provider's configuration, written under the policy (an owner's for a map that makes owners) or by the
 * operator, is the authority, as a trust policy is for token exchange.
 */
import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import { type OrganisationRole, User, WorkspaceMember, type WorkspaceRole } from "../access/AccessModel.ts"
import { UserStore, WorkspaceMemberStore, WorkspaceStore } from "../access/AccessStores.ts"
import { AuditedUseCase, type UseCaseSpec } from "../audit/AuditedUseCase.ts"
import type { AuditActor } from "../audit/AuditRecord.ts"
import { ApiKeys } from "../credentials/ApiKeys.ts"
import type { Invite } from "../invites/Invite.ts"
import { INVITE_LINK_UNUSABLE, Invites } from "../invites/Invites.ts"
import { type NewSession, sessionActor, Sessions, type SignInClient } from "../sessions/Sessions.ts"
import { type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkEmail, checkName } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { type IdentityProvider, SignInFlow } from "./IdentityProvider.ts"
import { groupsOf, mapRoles } from "./IdentityProviderRules.ts"
import { IdentityProviders, type ResolvedIdentityProvider } from "./IdentityProviders.ts"
import { callbackUrlOf, IdentityProviderSettings, SIGN_IN_FLOW_SECONDS } from "./IdentityProviderSettings.ts"
import { SignInFlowStore } from "./IdentityProviderStore.ts"
import { OidcClient, type OidcConnection } from "./OidcClient.ts"

/** A sign-in the gateway refuses; `message` is for the person signing in, and holds no secret. */
export class SignInRefused extends Schema.TaggedError<SignInRefused>()("SignInRefused", {
  message: Schema.String
}) {}

/** A role the provider's map changed: the organisation role, or a workspace membership (null: none). */
export interface MappedRoleChange {
  readonly workspace: string | null
  readonly from: OrganisationRole | WorkspaceRole | null
  readonly to: OrganisationRole | WorkspaceRole | null
}

/** Who signed in, through which provider, and what the sign-in changed. */
export interface SignedIn {
  readonly user: User
  readonly provider: IdentityProvider
  readonly subject: string
  readonly email: string
  /** True when the user was created by this sign-in (just in time, or by the invitation it accepted). */
  readonly created: boolean
  /** The invitation this sign-in accepted, when it carried one. */
  readonly inviteId: string | null
  readonly roleChanges: ReadonlyArray<MappedRoleChange>
  /** The person's new session, opened by this sign-in (a new id and token: no fixation). */
  readonly session: NewSession
}

/** The provider of a callback, the person its answer vouched for, and the invitation the sign-in carries. */
interface Verified {
  readonly provider: IdentityProvider
  readonly person: VerifiedPerson
  readonly inviteTokenHash: string | null
}

/** What the provider vouched for. */
interface VerifiedPerson {
  readonly subject: string
  readonly email: string
  readonly name: string | null
  readonly groups: ReadonlyArray<string>
}

const refused = (message: string) => Effect.fail(new SignInRefused({ message }))

export class OidcSignIn extends Context.Service<
  OidcSignIn,
  {
    /**
     * The URL of the provider for a new sign-in, carrying the invitation link's token when given (the callback
     * then accepts it); `NotFound` for a provider unknown or disabled.
     */
    readonly start: (
      slug: string,
      inviteToken?: string | undefined
    ) => Effect.Effect<string, SignInRefused | NotFound | StoreError>
    /** Completes the sign-in from the callback's query string, and opens the person's session. */
    /**
     * `keptState` is the `state` the browser making the callback kept when it was sent off (its flow cookie): a
     * callback whose `state` is not the one its own browser holds is refused, so a callback link made by someone
     * else (who signed in at the provider as themselves) cannot sign another person in as them (login CSRF).
     */
    readonly callback: (
      search: string,
      client: SignInClient,
      keptState: string | null
    ) => Effect.Effect<SignedIn, SignInRefused | StoreError>
  }
>()("@gateway-control/OidcSignIn") {
  static readonly layer = Layer.effect(
    OidcSignIn,
    Effect.gen(function*() {
      const providers = yield* IdentityProviders
      const settings = yield* IdentityProviderSettings
      const flows = yield* SignInFlowStore
      const oidc = yield* OidcClient
      const users = yield* UserStore
      const members = yield* WorkspaceMemberStore
      const workspaces = yield* WorkspaceStore
      const apiKeys = yield* ApiKeys
      const crypto = yield* PlatformCrypto
      const useCases = yield* AuditedUseCase
      const sessions = yield* Sessions
      const invites = yield* Invites

      const connectionOf = (resolved: ResolvedIdentityProvider, publicUrl: string): OidcConnection => ({
        issuer: resolved.provider.issuer,
        clientId: resolved.provider.client_id,
        clientSecret: resolved.clientSecret,
        redirectUri: callbackUrlOf(publicUrl)
      })

      const start = Effect.fn("OidcSignIn.start")(function*(slug: string, inviteToken?: string | undefined) {
        const found = yield* requireRow(yield* providers.resolve(slug), "identity provider", slug)
        let inviteTokenHash: string | null = null
        if (inviteToken !== undefined) {
          const invite = yield* invites.lookup(inviteToken).pipe(
            Effect.catchTag("NotFound", () => refused(INVITE_LINK_UNUSABLE))
          )
          if (invite.organisation_id !== found.provider.organisation_id) {
            return yield* refused("This identity provider does not sign people in to the invitation's organisation.")
          }
          inviteTokenHash = crypto.sha256Hex(inviteToken)
        }
        const publicUrl = settings.publicUrl
        if (publicUrl === null) {
          return yield* refused("Sign-in needs the gateway's public URL: the operator must set PUBLIC_URL.")
        }
        const redirect = yield* oidc.begin(connectionOf(found, publicUrl)).pipe(
          Effect.catchTag(
            "OidcFailure",
            (failure) => refused(`The identity provider cannot be used: ${failure.message}`)
          )
        )
        const now = yield* DateTime.now
        yield* flows.insert(
          new SignInFlow({
            state_digest: crypto.sha256Hex(redirect.state),
            provider_id: found.provider.id,
            nonce: redirect.nonce,
            code_verifier: redirect.codeVerifier,
            invite_token_hash: inviteTokenHash,
            created_at: DateTime.formatIso(now),
            expires_at: DateTime.formatIso(DateTime.add(now, { seconds: SIGN_IN_FLOW_SECONDS }))
          }),
          DateTime.formatIso(now)
        )
        return redirect.url
      })

      /** The provider's answer validated, and the person it vouches for; any doubt refuses. */
      const verify = Effect.fnUntraced(function*(
        params: URLSearchParams,
        search: string,
        state: string | null,
        flow: Option.Option<SignInFlow>,
        resolved: Option.Option<ResolvedIdentityProvider>
      ): Effect.fn.Return<Verified, SignInRefused> {
        if (state === null || Option.isNone(flow)) {
          return yield* refused("This sign-in is unknown, already used or expired: start again.")
        }
        if (Option.isNone(resolved)) return yield* refused("The identity provider of this sign-in no longer exists.")
        const error = params.get("error")
        if (error !== null) {
          const description = params.get("error_description")
          return yield* refused(
            `The identity provider refused: ${error}${description === null ? "" : ` (${description})`}.`
          )
        }
        const publicUrl = settings.publicUrl
        if (publicUrl === null) return yield* refused("Sign-in needs the gateway's public URL (PUBLIC_URL).")
        const claims = yield* oidc.finish(connectionOf(resolved.value, publicUrl), search, {
          state,
          nonce: flow.value.nonce,
          codeVerifier: flow.value.code_verifier
        }).pipe(
          Effect.catchTag(
            "OidcFailure",
            (failure) => refused(`The identity provider's answer was refused: ${failure.message}`)
          )
        )
        const subject = claims.sub
        const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : null
        if (typeof subject !== "string" || subject.length === 0) return yield* refused("The ID token names no subject.")
        if (email === null) {
          return yield* refused("The identity provider gave no email address (ask for the email scope).")
        }
        if (claims.email_verified !== true) {
          return yield* refused("The identity provider has not verified this email address, so it cannot sign you in.")
        }
        yield* checkEmail(email).pipe(
          Effect.catchTag("InvalidRequest", () => refused("The email address is not valid."))
        )
        const name = typeof claims.name === "string" && claims.name.trim().length > 0 ? claims.name.trim() : null
        // A name the rules refuse is left out rather than refusing the person.
        const validName = name === null ? null : yield* Effect.as(checkName(name), name).pipe(
          Effect.orElseSucceed(() => null)
        )
        const provider = resolved.value.provider
        const person: VerifiedPerson = {
          subject,
          email,
          name: validName,
          groups: groupsOf(claims[provider.groups_claim])
        }
        return { provider, person, inviteTokenHash: flow.value.invite_token_hash }
      })

      /** The invitation the sign-in carries, accepted for the person it invited: their user, made now. */
      const acceptInvite = Effect.fnUntraced(function*(
        provider: IdentityProvider,
        person: VerifiedPerson,
        tokenHash: string
      ): Effect.fn.Return<{ readonly invite: Invite; readonly user: User }, SignInRefused | StoreError> {
        const found = yield* invites.usableByHash(tokenHash)
        if (Option.isNone(found) || found.value.organisation_id !== provider.organisation_id) {
          return yield* refused(INVITE_LINK_UNUSABLE)
        }
        // An owner link (the first start's) binds its account to whomever the provider vouches for; an invitation
        // is for its email only.
        const ownerLink = found.value.user_id !== null
        if (!ownerLink && found.value.email !== person.email) {
          return yield* refused(
            `This invitation is for ${found.value.email}, and the identity provider signed you in as ${person.email}: ` +
              "sign in there with the invited address, or ask for an invitation for this one."
          )
        }
        if (ownerLink && Option.isSome(yield* users.findByEmail(provider.organisation_id, person.email))) {
          return yield* refused(`Another user of the organisation already has the email ${person.email}.`)
        }
        const accepted = yield* invites.redeem(found.value, tokenHash, person.name).pipe(
          Effect.catchTags({
            NotFound: () => refused(INVITE_LINK_UNUSABLE),
            Conflict: (conflict) => refused(conflict.message),
            InvalidRequest: (invalid) => refused(invalid.message)
          })
        )
        if (!ownerLink || accepted.user.email === person.email) return accepted
        const now = yield* nowIso
        // Checked above; another sign-in taking the email meanwhile is refused the same way.
        yield* users.changeEmail(accepted.user.id, person.email, now).pipe(
          Effect.catchTag(
            "Conflict",
            () => refused(`Another user of the organisation already has the email ${person.email}.`)
          )
        )
        const user = new User({ ...accepted.user, email: person.email, last_updated_at: now })
        return { invite: accepted.invite, user }
      })

      /** The person matched (or created) and the map's roles applied; refusals roll everything back. */
      const admit = Effect.fnUntraced(function*(
        provider: IdentityProvider,
        person: VerifiedPerson,
        inviteTokenHash: string | null,
        client: SignInClient
      ): Effect.fn.Return<SignedIn, SignInRefused | StoreError> {
        const mapped = mapRoles(provider.role_map, person.groups)
        const now = yield* nowIso
        const changes: Array<MappedRoleChange> = []
        // An invitation makes the person's user (with its roles) first; the map then applies as at any sign-in.
        const invited = inviteTokenHash === null ? null : yield* acceptInvite(provider, person, inviteTokenHash)
        const madeByInvite = invited !== null && invited.invite.user_id === null
        if (madeByInvite) changes.push({ workspace: null, from: null, to: invited.user.role })
        const existing = invited !== null
          ? Option.some(invited.user)
          : yield* users.findByEmail(provider.organisation_id, person.email)
        let user: User
        if (Option.isSome(existing)) {
          user = existing.value
          const desired = mapped.organisationRole
          // The map never demotes an owner: an organisation keeps the owners it has.
          if (desired !== null && desired !== user.role && user.role !== "owner") {
            changes.push({ workspace: null, from: user.role, to: desired })
            user = new User({ ...user, role: desired, last_updated_at: now })
            yield* users.update(user)
          }
        } else {
          const domain = person.email.slice(person.email.lastIndexOf("@") + 1)
          if (!provider.allowed_domains.includes(domain)) {
            return yield* refused(
              `No user has the email ${person.email}, and this provider creates users only for ` +
                (provider.allowed_domains.length === 0 ? "nobody (invitation only)" : "its allowed domains") +
                ": ask an administrator for an invitation."
            )
          }
          const role = mapped.organisationRole ?? "member"
          user = new User({
            id: crypto.uuid(),
            organisation_id: provider.organisation_id,
            email: person.email,
            name: person.name,
            role,
            created_at: now,
            last_updated_at: now
          })
          yield* users.insert(user).pipe(
            Effect.catchTag("Conflict", () => refused("This person was just created by another sign-in: try again."))
          )
          changes.push({ workspace: null, from: null, to: role })
        }
        for (const [slug, role] of mapped.workspaces) {
          const workspace = yield* workspaces.findBySlug(provider.organisation_id, slug)
          if (Option.isNone(workspace)) continue
          const membership = yield* members.get(workspace.value.id, user.id)
          const from = Option.isSome(membership) ? membership.value.role : null
          if (from === role) continue
          changes.push({ workspace: slug, from, to: role })
          if (role === null) yield* members.remove(workspace.value.id, user.id)
          else {
            yield* members.upsert(
              new WorkspaceMember({
                workspace_id: workspace.value.id,
                user_id: user.id,
                role,
                created_at: Option.isSome(membership) ? membership.value.created_at : now,
                last_updated_at: now
              })
            )
          }
        }
        if (changes.length > 0) yield* apiKeys.forgetUser(user.id)
        const session = yield* sessions.open(
          { user_id: user.id, method: "oidc", identity_provider: provider.slug, subject: person.subject },
          user,
          client
        ).pipe(Effect.catchTag("Unauthenticated", (deprovisioned) => refused(deprovisioned.message)))
        const signedIn: SignedIn = {
          user,
          provider,
          subject: person.subject,
          email: person.email,
          created: invited === null ? Option.isNone(existing) : madeByInvite,
          inviteId: invited?.invite.id ?? null,
          roleChanges: changes,
          session
        }
        return signedIn
      })

      const callback = Effect.fn("OidcSignIn.callback")(function*(
        search: string,
        client: SignInClient,
        keptState: string | null
      ) {
        const params = new URLSearchParams(search)
        const state = params.get("state")
        // A callback another browser started is refused before its flow is taken: the flow stays that browser's.
        const startedHere = state !== null && keptState !== null && keptState === state
        // Taken before anything else: a flow serves one callback, whatever its outcome.
        const flow = state === null || !startedHere
          ? Option.none<SignInFlow>()
          : yield* flows.take(crypto.sha256Hex(state), yield* nowIso)
        const resolved = Option.isNone(flow)
          ? Option.none<ResolvedIdentityProvider>()
          : yield* providers.resolveId(flow.value.provider_id)
        const provider = Option.getOrUndefined(resolved)?.provider
        const actor: AuditActor = { organisationId: provider?.organisation_id ?? null, keyId: null, userId: null }
        const spec: UseCaseSpec<SignedIn> = {
          useCase: "identityProviders.signIn",
          actor,
          // The record names the person and the session the sign-in opened.
          successActor: (signedIn) => sessionActor(signedIn.session),
          resourceId: (signedIn) => signedIn.user.id,
          workspaceId: null,
          body: { identity_provider: provider?.slug ?? null },
          successBody: (signedIn) => ({
            identity_provider: signedIn.provider.slug,
            email: signedIn.email,
            subject: signedIn.subject,
            created: signedIn.created,
            ...(signedIn.inviteId === null ? {} : { invite_id: signedIn.inviteId }),
            role_changes: signedIn.roleChanges
          })
        }
        const verified = state !== null && !startedHere
          ? Effect.fail(
            new SignInRefused({
              message: "This sign-in was not started in this browser, or its cookie was lost: start again from the " +
                "sign-in page."
            })
          )
          : verify(params, search, state, flow, resolved)
        return yield* useCases.runSteps<Verified, SignedIn, SignInRefused, SignInRefused | StoreError, never, never>(
          spec,
          verified,
          (verified) => admit(verified.provider, verified.person, verified.inviteTokenHash, client)
        )
      })

      return OidcSignIn.of({ start, callback })
    })
  )
}
