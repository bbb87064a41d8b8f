/**
 * Invitations: create, list, read, resend and revoke (organisation owners' and admins' admin keys, through the
 * policy), and accept (whoever holds the link). Every change is an audited use case.
 *
 * Authority: creating an invitation needs what creating its user and adding its memberships need
 * (`users.create`, and `members.create` in each workspace), checked then. Accepting it runs on that authority:
 * no key asks, and the invitation, written under the policy by an owner or admin, is what allows the user and
 * memberships it names, as a trust policy allows the credentials token exchange issues. It is single use,
 * expires, and can be revoked until it is used.
 */
import { Context, Effect, Layer, Option } from "effect"
import { User, WorkspaceMember, type WorkspaceRole } from "../access/AccessModel.ts"
import { UserStore, WorkspaceMemberStore, WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { ApiKeys } from "../credentials/ApiKeys.ts"
import { Conflict, type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkEmail, checkName } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { refuseUnsupported } from "../shared/Unsupported.ts"
import {
  type AcceptInvite,
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
    /** The pending invitation a link's token stands for; `NotFound` for any link that cannot be used. */
    readonly lookup: (token: string) => Effect.Effect<Invite, NotFound | StoreError>
    /**
     * Accepts the invitation: makes its user with its organisation role and workspace roles, once. `also` runs in
     * the same unit of work with the new user (a sign-in method's own writes, such as a password).
     */
    readonly accept: <E = never>(
      input: AcceptInvite,
      also?: (user: User) => Effect.Effect<void, E>
    ) => Effect.Effect<AcceptedInvite, E | InvalidRequest | Conflict | NotFound | StoreError>
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
      const apiKeys = yield* ApiKeys
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
      const usable = Effect.fnUntraced(function*(token: string) {
        const now = yield* nowIso
        const found = token.length === 0 || token.length > 256
          ? Option.none<Invite>()
          : yield* rawStore.findByTokenHash(crypto.sha256Hex(token))
        return yield* requireRow(Option.filter(found, (invite) => statusAt(invite, now) === "pending"), "invite", LINK)
      })

      const lookup = Effect.fn("Invites.lookup")(function*(token: string) {
        return yield* usable(token)
      })

      const acceptChange = <E>(invite: Invite, input: AcceptInvite, also: (user: User) => Effect.Effect<void, E>) =>
        Effect.gen(function*() {
          const name = input.name?.trim() || null
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
          const accepted = yield* rawStore.accept(invite.id, crypto.sha256Hex(input.token), user.id, now)
          yield* requireRow(accepted ? Option.some(invite) : Option.none(), "invite", LINK)
          for (const { workspace_id, role } of invite.workspaces) {
            // A workspace deleted since the invitation was sent is skipped: it answers as if it never existed.
            if (Option.isNone(yield* workspaces.get(workspace_id))) continue
            yield* members.upsert(
              new WorkspaceMember({ workspace_id, user_id: user.id, role, created_at: now, last_updated_at: now })
            )
          }
          yield* apiKeys.forgetUser(user.id)
          yield* also(user)
          return {
            invite: new Invite({
              ...invite,
              status: "accepted",
              accepted_at: now,
              accepted_user_id: user.id,
              last_updated_at: now
            }),
            user
          }
        })

      const accept = <E = never>(input: AcceptInvite, also?: (user: User) => Effect.Effect<void, E>) =>
        Effect.gen(function*() {
          const found = yield* Effect.catchTag(usable(input.token), "NotFound", (notFound) =>
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
          return yield* useCases.run(
            {
              useCase: "invites.accept",
              actor: { organisationId: found.organisation_id, keyId: null, userId: null },
              successActor: ({ user }) => ({ organisationId: user.organisation_id, keyId: null, userId: user.id }),
              resourceId: found.id,
              workspaceId: null,
              // The token is never recorded: the body names the invitation and the person.
              body: { invite_id: found.id, email: found.email, name: input.name ?? null }
            },
            acceptChange(found, input, also ?? (() => Effect.void)).pipe(
              Effect.catchTag("Conflict", () =>
                Effect.fail(
                  new Conflict({
                    message: `A user with the email '${found.email}' is already in the organisation.`,
                    param: null
                  })
                ))
            )
          )
        })

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
        lookup,
        accept
      })
    })
  )
}
