/**
 * Invitations: create, list, read, resend and revoke (organisation owners' and admins' admin keys, through the
 * policy), and accept (whoever holds the link). Every change is an audited use case.
 *
 * Authority: creating an invitation needs what creating its user and adding its memberships need
 * (`users.create`, and `members.create` in each workspace), checked then. Accepting it runs on that authority:
 * no key asks, and the invitation, written under the policy by an owner or admin, is what allows the user and
 * memberships it names, as a trust policy allows the credentials token exchange issues. It is single use,
 * expires, and can be revoked until it is used.
 *
 * A person accepts it by setting a password (`acceptWithPassword`: the local account and a session, in the
 * acceptance's unit of work) or by signing in with the organisation's identity provider (OidcSignIn.ts carries
 * the link through the provider and calls `redeem` in its callback's unit of work).
 */
import { Context, Effect, Layer, Option } from "effect"
import { type Organisation, User, type Workspace, WorkspaceMember, type WorkspaceRole } from "../access/AccessModel.ts"
import { OrganisationStore, UserStore, WorkspaceMemberStore, WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import type { AuditActor } from "../audit/AuditRecord.ts"
import { ApiKeys } from "../credentials/ApiKeys.ts"
import { PasswordHasher } from "../sessions/PasswordHasher.ts"
import { type NewSession, sessionActor, Sessions, type SignInClient } from "../sessions/Sessions.ts"
import { SessionStore } from "../sessions/SessionStore.ts"
import {
  Conflict,
  type Forbidden,
  InvalidRequest,
  type NotFound,
  requireRow,
  type Unauthenticated
} from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkEmail, checkName } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { refuseUnsupported } from "../shared/Unsupported.ts"
import {
  type AcceptInvite,
  type AcceptInviteWithPassword,
  type CreateInvite,
  Invite,
  type InviteFilter,
  type InviteWorkspace,
  type IssuedInvite,
  statusAt,
  UNSUPPORTED_INVITE_FIELDS
} from "./Invite.ts"
import { InviteStore } from "./InviteStore.ts"

export interface InviteSettingsShape {
  /** How long an invitation's link works, from its creation or its last resend (an embedder may provide another). */
  readonly ttlMs: number
}

export const DEFAULT_INVITE_SETTINGS: InviteSettingsShape = { ttlMs: 7 * 24 * 3_600_000 }

/** How long the first start's owner link works: an hour. */
export const OWNER_LINK_TTL_MS = 3_600_000

export const InviteSettings = Context.Reference<InviteSettingsShape>("@gateway-control/domain/InviteSettings", {
  defaultValue: () => DEFAULT_INVITE_SETTINGS
})

/** The one answer to a link that cannot be used, whatever the reason: unknown, used, revoked or expired. */
export const INVITE_LINK_UNUSABLE = "This invitation link cannot be used: it is unknown, used, revoked or expired. " +
  "Ask for a new one."

/** An accepted invitation and the user it made. */
export interface AcceptedInvite {
  readonly invite: Invite
  readonly user: User
}

/** What the page of a link shows the person before they accept: who invited them where, with which roles. */
export interface InvitePreview {
  readonly invite: Invite
  readonly organisation: Organisation
  /** The workspaces the person joins (those still there), with their role in each. */
  readonly workspaces: ReadonlyArray<{ readonly workspace: Workspace; readonly role: WorkspaceRole }>
}

type AccessError = Forbidden | NotFound | StoreError

export class Invites extends Context.Service<
  Invites,
  {
    readonly create: (
      principal: Principal,
      input: CreateInvite
    ) => Effect.Effect<IssuedInvite, InvalidRequest | AccessError>
    readonly list: (
      principal: Principal,
      filter: InviteFilter,
      page: PageRequest
    ) => Effect.Effect<Page<Invite>, AccessError>
    readonly get: (principal: Principal, id: string) => Effect.Effect<Invite, AccessError>
    /** A new link (and a new expiry) for a pending invitation; the old link stops working. */
    readonly resend: (principal: Principal, id: string) => Effect.Effect<IssuedInvite, Conflict | AccessError>
    /** Revokes a pending invitation: its link stops working. */
    readonly revoke: (principal: Principal, id: string) => Effect.Effect<Invite, Conflict | AccessError>
    /**
     * The first start's link for the organisation's owner, whom bootstrap made with no way to sign in: an
     * invitation to their existing account, valid for `OWNER_LINK_TTL_MS`. Only for an owner with no password
     * yet (`Conflict` otherwise); the operator's, at the first start (no principal asks).
     */
    readonly ownerLink: (userId: string) => Effect.Effect<IssuedInvite, Conflict | NotFound | StoreError>
    /** The pending invitation a link's token stands for; `NotFound` for any link that cannot be used. */
    readonly lookup: (token: string) => Effect.Effect<Invite, NotFound | StoreError>
    /** What the link's page shows: the invitation, its organisation and workspaces; `NotFound` as `lookup`. */
    readonly preview: (token: string) => Effect.Effect<InvitePreview, NotFound | StoreError>
    /**
     * Accepts the invitation by setting the new account's password, and signs the person in: the user, the
     * password and a new session in one audited unit of work.
     */
    readonly acceptWithPassword: (
      input: AcceptInviteWithPassword,
      client: SignInClient
    ) => Effect.Effect<
      AcceptedInvite & { readonly session: NewSession },
      InvalidRequest | Conflict | NotFound | Unauthenticated | StoreError
    >
    /**
     * The pending, unexpired invitation whose link's token hashes to `tokenHash` (a sign-in carrying the link
     * keeps only the hash).
     */
    readonly usableByHash: (tokenHash: string) => Effect.Effect<Option.Option<Invite>, StoreError>
    /**
     * Accepts the invitation inside the caller's own audited use case (a sign-in by an identity provider that
     * carried the link): makes its user and memberships, once; `NotFound` when the link was used, revoked or
     * expired meanwhile, `Conflict` when the organisation already has a user with its email.
     */
    readonly redeem: (
      invite: Invite,
      tokenHash: string,
      name: string | null
    ) => Effect.Effect<AcceptedInvite, InvalidRequest | Conflict | NotFound | StoreError>
    /** Accepts the invitation: makes its user with its organisation role and workspace roles, once. */
    readonly accept: (
      input: AcceptInvite
    ) => Effect.Effect<AcceptedInvite, InvalidRequest | Conflict | NotFound | StoreError>
  }
>()("@gateway-control/Invites") {
  static readonly layer = Layer.effect(
    Invites,
    Effect.gen(function*() {
      const rawStore = yield* InviteStore
      const store = grantedWrites(rawStore, {
        insert: "users.create",
        renew: "users.create",
        cancel: ["users.create", "users.delete"]
      })
      const workspaces = yield* WorkspaceStore
      // Accepting writes on the invitation's authority (see the module's comment), through the stores themselves.
      const users = yield* UserStore
      const members = yield* WorkspaceMemberStore
      const organisations = yield* OrganisationStore
      const apiKeys = yield* ApiKeys
      const sessions = yield* Sessions
      const sessionStore = yield* SessionStore
      const hasher = yield* PasswordHasher
      const crypto = yield* PlatformCrypto
      const useCases = yield* AuditedUseCase

      const expiryFrom = Effect.fnUntraced(function*(now: string) {
        const { ttlMs } = yield* InviteSettings
        return new Date(Date.parse(now) + ttlMs).toISOString()
      })

      /** A workspace of the principal's organisation by id or slug; one it cannot see answers not found. */
      const workspaceOf = Effect.fnUntraced(function*(principal: Principal, ref: string) {
        // An id finds the workspace wherever it is (the policy hides another organisation's); else a slug of the
        // caller's organisation.
        const byId = yield* workspaces.get(ref)
        const found = Option.isSome(byId) ? byId : yield* workspaces.findBySlug(principal.organisationId, ref)
        const workspace = yield* requireRow(found, "workspace", ref)
        yield* ensureAllowed(principal, "members.create", Target.workspace(workspace.organisation_id, workspace.id), {
          type: "workspace",
          id: ref
        })
        return workspace
      })

      const create = Effect.fn("Invites.create")(function*(principal: Principal, input: CreateInvite) {
        const grant = yield* ensureAllowed(principal, "users.create", Target.organisation(principal.organisationId), {
          type: "organisation",
          id: principal.organisationId
        })
        yield* refuseUnsupported(
          input,
          UNSUPPORTED_INVITE_FIELDS,
          "accepting an invitation issues no API key (the person signs in and acts with their roles)."
        )
        yield* checkEmail(input.email)
        const chosen = new Map<string, WorkspaceRole>()
        for (const wanted of input.workspaces) {
          const workspace = yield* workspaceOf(principal, wanted.id)
          if (chosen.has(workspace.id)) {
            return yield* InvalidRequest.of(`workspaces names workspace '${wanted.id}' twice.`, "workspaces")
          }
          chosen.set(workspace.id, wanted.role === "admin" ? "manager" : wanted.role)
        }
        const now = yield* nowIso
        const token = crypto.randomToken(32)
        const invite = new Invite({
          id: crypto.uuid(),
          organisation_id: principal.organisationId,
          email: input.email.trim().toLowerCase(),
          role: input.role,
          user_id: null,
          workspaces: [...chosen].map(([workspace_id, role]): InviteWorkspace => ({ workspace_id, role })),
          status: "pending",
          created_at: now,
          expires_at: yield* expiryFrom(now),
          accepted_at: null,
          accepted_user_id: null,
          invited_by: principal.userId,
          invited_by_api_key_id: principal.keyId,
          last_updated_at: now
        })
        yield* store.insert(grant, invite, crypto.sha256Hex(token))
        return { invite, token }
      })

      /** The invitation, when the principal may `action` it; another organisation's answers not found. */
      const visible = Effect.fnUntraced(function*<A extends "users.read" | "users.create" | "users.delete">(
        principal: Principal,
        id: string,
        action: A
      ) {
        const invite = yield* requireRow(yield* store.get(id), "invite", id)
        const grant = yield* ensureAllowed(principal, action, Target.organisation(invite.organisation_id), {
          type: "invite",
          id
        })
        return { grant, invite }
      })

      const list = Effect.fn("Invites.list")(function*(principal: Principal, filter: InviteFilter, page: PageRequest) {
        yield* ensureAllowed(principal, "users.list", Target.organisation(principal.organisationId), {
          type: "organisation",
          id: principal.organisationId
        })
        return yield* store.list(principal.organisationId, filter, yield* nowIso, page)
      })

      const get = (principal: Principal, id: string) =>
        Effect.map(visible(principal, id, "users.read"), ({ invite }) => invite)

      const notPending = (invite: Invite) =>
        new Conflict({ message: `The invitation is ${invite.status}: only a pending one can change.`, param: null })

      const resend = Effect.fn("Invites.resend")(function*(principal: Principal, id: string) {
        const { grant, invite } = yield* visible(principal, id, "users.create")
        const now = yield* nowIso
        const token = crypto.randomToken(32)
        const expires_at = yield* expiryFrom(now)
        if (!(yield* store.renew(grant, id, crypto.sha256Hex(token), expires_at, now))) {
          return yield* notPending(invite)
        }
        return { invite: new Invite({ ...invite, expires_at, last_updated_at: now }), token }
      })

      const revoke = Effect.fn("Invites.revoke")(function*(principal: Principal, id: string) {
        const { grant, invite } = yield* visible(principal, id, "users.delete")
        const now = yield* nowIso
        if (!(yield* store.cancel(grant, id, now))) return yield* notPending(invite)
        return new Invite({ ...invite, status: "cancelled", last_updated_at: now })
      })

      /** The link's name in a refusal: never the token. */
      const LINK = "(link)"

      /** The pending, unexpired invitation the token stands for; any other link answers not found, alike. */
      const usableByHash = Effect.fnUntraced(function*(tokenHash: string) {
        const now = yield* nowIso
        const found = yield* rawStore.findByTokenHash(tokenHash)
        return Option.filter(found, (invite) => statusAt(invite, now) === "pending")
      })

      const usable = Effect.fnUntraced(function*(token: string) {
        const found = token.length === 0 || token.length > 256
          ? Option.none<Invite>()
          : yield* usableByHash(crypto.sha256Hex(token))
        return yield* requireRow(found, "invite", LINK)
      })

      const lookup = Effect.fn("Invites.lookup")(function*(token: string) {
        return yield* usable(token)
      })

      const preview = Effect.fn("Invites.preview")(function*(token: string) {
        const invite = yield* usable(token)
        const organisation = yield* requireRow(yield* organisations.get(invite.organisation_id), "invite", LINK)
        const joined = yield* Effect.forEach(
          invite.workspaces,
          ({ role, workspace_id }) =>
            Effect.map(workspaces.get(workspace_id), Option.map((workspace) => ({ workspace, role })))
        )
        return { invite, organisation, workspaces: joined.flatMap(Option.toArray) }
      })

      /** The account an owner link sets up, marked accepted: no user is made. */
      const acceptAccount = Effect.fnUntraced(function*(
        invite: Invite,
        userId: string,
        tokenHash: string,
        givenName: string | null
      ) {
        const found = yield* requireRow(yield* users.get(userId), "invite", LINK)
        const now = yield* nowIso
        const accepted = yield* rawStore.accept(invite.id, tokenHash, found.id, now)
        yield* requireRow(accepted ? Option.some(invite) : Option.none(), "invite", LINK)
        // The account takes the name its person gives (on the invitation page, or from their identity provider).
        const name = givenName?.trim() || null
        if (name !== null) yield* checkName(name)
        const user = name === null || name === found.name ? found : new User({ ...found, name, last_updated_at: now })
        if (user !== found) yield* users.update(user)
        const acceptedInvite: AcceptedInvite = {
          invite: new Invite({
            ...invite,
            status: "accepted",
            accepted_at: now,
            accepted_user_id: user.id,
            last_updated_at: now
          }),
          user
        }
        return acceptedInvite
      })

      const acceptChange = (invite: Invite, tokenHash: string, givenName: string | null) =>
        invite.user_id !== null ? acceptAccount(invite, invite.user_id, tokenHash, givenName) : Effect.gen(function*() {
          const name = givenName?.trim() || null
          if (name !== null) yield* checkName(name)
          const now = yield* nowIso
          const user = new User({
            id: crypto.uuid(),
            organisation_id: invite.organisation_id,
            email: invite.email,
            name,
            role: invite.role,
            created_at: now,
            last_updated_at: now
          })
          yield* users.insert(user)
          // Another acceptance, a revocation or the expiry may have come first: then the user made above is rolled
          // back with the refusal.
          const accepted = yield* rawStore.accept(invite.id, tokenHash, user.id, now)
          yield* requireRow(accepted ? Option.some(invite) : Option.none(), "invite", LINK)
          for (const { workspace_id, role } of invite.workspaces) {
            // A workspace deleted since the invitation was sent is skipped: it answers as if it never existed.
            if (Option.isNone(yield* workspaces.get(workspace_id))) continue
            yield* members.upsert(
              new WorkspaceMember({ workspace_id, user_id: user.id, role, created_at: now, last_updated_at: now })
            )
          }
          yield* apiKeys.forgetUser(user.id)
          const acceptedInvite: AcceptedInvite = {
            invite: new Invite({
              ...invite,
              status: "accepted",
              accepted_at: now,
              accepted_user_id: user.id,
              last_updated_at: now
            }),
            user
          }
          return acceptedInvite
        }).pipe(
          Effect.catchTag("Conflict", () =>
            Effect.fail(
              new Conflict({
                message: `A user with the email '${invite.email}' is already in the organisation.`,
                param: null
              })
            ))
        )

      /**
       * Accepts the link's invitation as one audited use case: `then` runs in the same unit of work with the
       * accepted invitation (a sign-in method's own writes); the record names `actorOf` its result on success.
       */
      const acceptAs = <A extends AcceptedInvite, E>(
        token: string,
        name: string | null,
        then: (accepted: AcceptedInvite) => Effect.Effect<A, E>,
        actorOf: (result: A) => AuditActor
      ) =>
        Effect.gen(function*() {
          const found = yield* Effect.catchTag(usable(token), "NotFound", (notFound) =>
            Effect.andThen(
              // A link nobody can use names no organisation: the attempt is the operator's to see, token left out.
              useCases.refused({
                useCase: "invites.accept",
                actor: { organisationId: null, keyId: null, userId: null },
                workspaceId: null,
                status: 404,
                body: null
              }),
              Effect.fail(notFound)
            ))
          return yield* useCases.run<A, E | InvalidRequest | Conflict | NotFound | StoreError, never>(
            {
              useCase: "invites.accept",
              actor: { organisationId: found.organisation_id, keyId: null, userId: null },
              successActor: actorOf,
              resourceId: found.id,
              workspaceId: null,
              // The token and any password are never recorded: the body names the invitation and the person.
              body: { invite_id: found.id, email: found.email, name }
            },
            Effect.flatMap(acceptChange(found, crypto.sha256Hex(token), name), then)
          )
        })

      const userActor = ({ user }: AcceptedInvite): AuditActor => ({
        organisationId: user.organisation_id,
        keyId: null,
        userId: user.id
      })

      const accept = (input: AcceptInvite) =>
        acceptAs(input.token, input.name ?? null, Effect.succeed, userActor).pipe(Effect.withSpan("Invites.accept"))

      const acceptWithPassword = (input: AcceptInviteWithPassword, client: SignInClient) =>
        acceptAs(
          input.token,
          input.name ?? null,
          (accepted) =>
            Effect.gen(function*() {
              yield* sessionStore.setPassword(accepted.user.id, yield* hasher.hash(input.password), yield* nowIso)
              const session = yield* sessions.open(
                { user_id: accepted.user.id, method: "invitation" },
                accepted.user,
                client
              )
              return { ...accepted, session }
            }),
          ({ session }) => sessionActor(session)
        ).pipe(Effect.withSpan("Invites.acceptWithPassword"))

      const redeem = (invite: Invite, tokenHash: string, name: string | null) => acceptChange(invite, tokenHash, name)

      const ownerLink = (userId: string) =>
        useCases.run(
          {
            useCase: "invites.ownerLink",
            actor: { organisationId: null, keyId: null, userId: null },
            successActor: ({ invite }: IssuedInvite) => ({
              organisationId: invite.organisation_id,
              keyId: null,
              userId: null
            }),
            resourceId: ({ invite }: IssuedInvite) => invite.id,
            workspaceId: null,
            body: { user_id: userId }
          },
          Effect.gen(function*() {
            const user = yield* requireRow(yield* users.get(userId), "user", userId)
            if (user.role !== "owner" || Option.isSome(yield* sessionStore.passwordOf(user.id))) {
              return yield* new Conflict({
                message: "An owner link is for an organisation owner who has no password yet.",
                param: null
              })
            }
            const now = yield* nowIso
            const token = crypto.randomToken(32)
            const invite = new Invite({
              id: crypto.uuid(),
              organisation_id: user.organisation_id,
              email: user.email,
              role: user.role,
              user_id: user.id,
              workspaces: [],
              status: "pending",
              created_at: now,
              expires_at: new Date(Date.parse(now) + OWNER_LINK_TTL_MS).toISOString(),
              accepted_at: null,
              accepted_user_id: null,
              invited_by: null,
              invited_by_api_key_id: null,
              last_updated_at: now
            })
            yield* rawStore.insert(invite, crypto.sha256Hex(token))
            const issued: IssuedInvite = { invite, token }
            return issued
          })
        ).pipe(Effect.withSpan("Invites.ownerLink"))

      const issued = (spec: { readonly useCase: "invites.create" | "invites.resend" }, principal: Principal) => ({
        useCase: spec.useCase,
        actor: principal,
        resourceId: ({ invite }: IssuedInvite) => invite.id,
        workspaceId: null
      })

      return Invites.of({
        create: (principal, input) =>
          useCases.run({ ...issued({ useCase: "invites.create" }, principal), body: input }, create(principal, input)),
        list,
        get,
        resend: (principal, id) =>
          useCases.run(
            { ...issued({ useCase: "invites.resend" }, principal), requestedId: id, body: null },
            resend(principal, id)
          ),
        revoke: (principal, id) =>
          useCases.run(
            { useCase: "invites.revoke", actor: principal, resourceId: id, workspaceId: null, body: null },
            revoke(principal, id)
          ),
        ownerLink,
        lookup,
        preview,
        accept,
        acceptWithPassword,
        usableByHash,
        redeem
      })
    })
  )
}
