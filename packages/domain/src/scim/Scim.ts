/**
 * The SCIM 2.0 service provider's users (RFC 7643/7644): an identity provider, with a SCIM token's principal
 * (scim-tokens/ScimTokens.ts), creates, reads, replaces, patches and deletes the organisation's users. Every
 * change is an audited use case under the policy, recorded under the SCIM token.
 *
 * Deprovisioning: `active` turned false revokes every key that acts as the user (their workspace-user keys and
 * any organisation key bound to them), in one unit of work with its record, and every process hears of it
 * through the change feed; turning `active` back on revives none of them. Deleting the user does the same and
 * removes them. Service keys the user created act as no one and stay; see README "SCIM".
 */
import { Context, Effect, Layer, Option, Result, Schema } from "effect"
import { nameParts, User } from "../access/AccessModel.ts"
import { UserStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { ApiKeys } from "../credentials/ApiKeys.ts"
import { SessionStore } from "../sessions/SessionStore.ts"
import { type Conflict, type Forbidden, type InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkEmail, checkName } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { everyUser, organisationOf } from "./internal/organisationUsers.ts"
import { ScimInvalid } from "./ScimErrors.ts"
import { ScimProtocol } from "./ScimProtocol.ts"
import { ScimStore } from "./ScimStore.ts"
import {
  SCIM_USER_SCHEMA,
  ScimIdentity,
  type ScimPage,
  type ScimQuery,
  type ScimResource,
  ScimUserInput
} from "./ScimUser.ts"

/** What deprovisioning a user ended: the keys revoked and the sessions ended, by id. */
interface Deprovisioned {
  readonly api_keys_revoked: ReadonlyArray<string>
  readonly sessions_ended: ReadonlyArray<string>
}

type ScimFailure = ScimInvalid | InvalidRequest | Forbidden | NotFound | Conflict | StoreError

/** The user as SCIM shows it. */
export const scimUserOf = (user: User, identity: ScimIdentity | undefined): ScimResource => {
  const parts = nameParts(user.name)
  const lastModified = identity !== undefined && identity.last_updated_at > user.last_updated_at
    ? identity.last_updated_at
    : user.last_updated_at
  return {
    schemas: [SCIM_USER_SCHEMA],
    id: user.id,
    ...(identity?.external_id == null ? {} : { externalId: identity.external_id }),
    userName: user.email,
    name: {
      ...(user.name === null ? {} : { formatted: user.name }),
      ...(parts.first_name === undefined ? {} : { givenName: parts.first_name }),
      ...(parts.last_name === undefined ? {} : { familyName: parts.last_name })
    },
    displayName: user.name ?? user.email,
    active: identity?.active ?? true,
    emails: [{ value: user.email, type: "work", primary: true }],
    meta: { resourceType: "User", created: user.created_at, lastModified }
  }
}

const decodeUser = Schema.decodeUnknownResult(ScimUserInput)

/** The input decoded, its booleans as booleans; `ScimInvalid` naming what is wrong. */
const userInput = (body: unknown) => {
  const decoded = decodeUser(body)
  if (Result.isFailure(decoded)) {
    return Effect.fail(ScimInvalid.of("invalidValue", `Not a SCIM user: ${decoded.failure.message}`))
  }
  const input = decoded.success
  const active = input.active === undefined ? true : typeof input.active === "boolean"
    ? input.active
    : input.active.toLowerCase() === "true"
  return Effect.succeed({ input, active })
}

/** The user's name from SCIM's: `name.formatted`, else given and family names, else `displayName`; blank is none. */
const nameOf = (input: ScimUserInput): string | null => {
  const joined = [input.name?.givenName, input.name?.familyName].filter((p) => p != null && p.trim() !== "").join(" ")
  const name = input.name?.formatted?.trim() || joined || input.displayName?.trim() || ""
  return name === "" ? null : name
}

export class Scim extends Context.Service<
  Scim,
  {
    readonly listUsers: (principal: Principal, query: ScimQuery) => Effect.Effect<ScimPage, ScimFailure>
    readonly getUser: (principal: Principal, id: string) => Effect.Effect<ScimResource, ScimFailure>
    readonly createUser: (principal: Principal, body: unknown) => Effect.Effect<ScimResource, ScimFailure>
    /** PUT: the user's attributes replaced by the body's. `active: false` deprovisions. */
    readonly replaceUser: (principal: Principal, id: string, body: unknown) => Effect.Effect<ScimResource, ScimFailure>
    /** PATCH (RFC 7644 §3.5.2): the operations applied all or none, then as a replacement. */
    readonly patchUser: (principal: Principal, id: string, body: unknown) => Effect.Effect<ScimResource, ScimFailure>
    /** Removes the user, revoking every key acting as them. */
    readonly deleteUser: (principal: Principal, id: string) => Effect.Effect<void, ScimFailure>
  }
>()("@gateway-control/Scim") {
  static readonly layer = Layer.effect(
    Scim,
    Effect.gen(function*() {
      const users = grantedWrites(yield* UserStore, {
        insert: "users.create",
        update: ["users.update", "users.update.owner"],
        remove: ["users.delete", "users.delete.owner"]
      })
      const identities = grantedWrites(yield* ScimStore, {
        putIdentity: ["users.create", "users.update", "users.update.owner"],
        removeIdentity: ["users.delete", "users.delete.owner"]
      })
      const protocol = yield* ScimProtocol
      const apiKeys = yield* ApiKeys
      const sessions = yield* SessionStore
      const crypto = yield* PlatformCrypto
      const useCases = yield* AuditedUseCase

      /** The user and their SCIM identity; another organisation's user is hidden by the policy. */
      const found = Effect.fnUntraced(function*(id: string) {
        const user = yield* requireRow(yield* users.get(id), "user", id)
        const identity = Option.getOrUndefined(yield* identities.getIdentity(id))
        return { identity, user }
      })

      /**
       * The user, when the principal may `action` them. An owner is an owner's to change or remove (Users.ts):
       * a SCIM token, which has no user, never is one.
       */
      const userFor = Effect.fnUntraced(function*<A extends "users.update" | "users.delete">(
        principal: Principal,
        id: string,
        action: A
      ) {
        const { identity, user } = yield* found(id)
        const grant = yield* ensureAllowed(
          principal,
          user.role === "owner" ? (`${action}.owner` as `${A}.owner`) : action,
          Target.organisation(user.organisation_id),
          { type: "user", id }
        )
        return { grant, identity, user }
      })

      const listUsers = Effect.fn("Scim.listUsers")(function*(principal: Principal, query: ScimQuery) {
        const { resource, target } = organisationOf(principal)
        yield* ensureAllowed(principal, "users.list", target, resource)
        const matches = query.filter === undefined ? () => true : yield* protocol.compileFilter(query.filter)
        const byUser = new Map(
          (yield* identities.identities(principal.organisationId)).map((identity) => [identity.user_id, identity])
        )
        const all = (yield* everyUser(users, principal.organisationId))
          .map((user) => scimUserOf(user, byUser.get(user.id)))
          .filter(matches)
        const start = Math.max(1, query.startIndex)
        return {
          totalResults: all.length,
          startIndex: start,
          resources: all.slice(start - 1, start - 1 + Math.max(0, query.count))
        }
      })

      const getUser = Effect.fn("Scim.getUser")(function*(principal: Principal, id: string) {
        const { identity, user } = yield* found(id)
        yield* ensureAllowed(principal, "users.read", Target.organisation(user.organisation_id), { type: "user", id })
        return scimUserOf(user, identity)
      })

      const createUser = Effect.fn("Scim.createUser")(function*(principal: Principal, body: unknown) {
        const { resource, target } = organisationOf(principal)
        const grant = yield* ensureAllowed(principal, "users.create", target, resource)
        const { active, input } = yield* userInput(body)
        const email = input.userName.trim().toLowerCase()
        yield* checkEmail(email, "userName")
        const name = nameOf(input)
        if (name !== null) yield* checkName(name)
        const now = yield* nowIso
        // Roles come from groups (the role mapping); a user provisioned alone is a member.
        const user = new User({
          id: crypto.uuid(),
          organisation_id: principal.organisationId,
          email,
          name,
          role: "member",
          created_at: now,
          last_updated_at: now
        })
        yield* users.insert(grant, user)
        const identity = new ScimIdentity({
          user_id: user.id,
          organisation_id: user.organisation_id,
          external_id: input.externalId ?? null,
          active,
          created_at: now,
          last_updated_at: now
        })
        yield* identities.putIdentity(grant, identity)
        return scimUserOf(user, identity)
      })

      /**
       * Ends every session of the user and revokes every key acting as them, and tells every process (sessions
       * are read from the store at each request, keys through the change feed). Answers what it ended, for the
       * record.
       */
      const deprovision = Effect.fnUntraced(function*(principal: Principal, userId: string) {
        const userKeys = yield* apiKeys.revokeAll(principal, { userId, type: "workspace-user" })
        const boundKeys = yield* apiKeys.revokeAll(principal, { userId, type: "organisation-service" })
        const ended = yield* sessions.revokeAll(userId, yield* nowIso, null)
        yield* apiKeys.forgetUser(userId)
        return { api_keys_revoked: [...userKeys, ...boundKeys], sessions_ended: ended }
      })

      const replace = Effect.fnUntraced(function*(principal: Principal, id: string, body: unknown) {
        const { grant, identity, user } = yield* userFor(principal, id, "users.update")
        const { active, input } = yield* userInput(body)
        if (input.userName.trim().toLowerCase() !== user.email) {
          return yield* ScimInvalid.of(
            "mutability",
            "userName is the user's email here and cannot be changed over SCIM; deprovision the user and provision a new one."
          )
        }
        const name = nameOf(input)
        if (name !== null) yield* checkName(name)
        const now = yield* nowIso
        const changed = name === user.name ? user : new User({ ...user, name, last_updated_at: now })
        if (changed !== user) yield* users.update(grant, changed)
        const wasActive = identity?.active ?? true
        const next = new ScimIdentity({
          user_id: user.id,
          organisation_id: user.organisation_id,
          external_id: input.externalId === undefined ? identity?.external_id ?? null : input.externalId,
          active,
          created_at: identity?.created_at ?? now,
          last_updated_at: now
        })
        yield* identities.putIdentity(grant, next)
        const deprovisioned = wasActive && !active ? yield* deprovision(principal, user.id) : null
        return { resource: scimUserOf(changed, next), deprovisioned }
      })

      const replaceUser = Effect.fn("Scim.replaceUser")(replace)

      const patchUser = Effect.fn("Scim.patchUser")(function*(principal: Principal, id: string, body: unknown) {
        const { identity, user } = yield* userFor(principal, id, "users.update")
        const patched = yield* protocol.applyPatch(scimUserOf(user, identity), body)
        return yield* replace(principal, id, patched)
      })

      const deleteUser = Effect.fn("Scim.deleteUser")(function*(principal: Principal, id: string) {
        const { grant } = yield* userFor(principal, id, "users.delete")
        const deprovisioned = yield* deprovision(principal, id)
        yield* identities.removeIdentity(grant, id)
        yield* users.remove(grant, id)
        yield* apiKeys.forgetUser(id)
        return { deprovisioned }
      })

      /** The record of a change: the request, and what deprovisioning ended (sessions and keys), if it ran. */
      const recorded = (body: unknown) => (result: { readonly deprovisioned: Deprovisioned | null }) =>
        result.deprovisioned === null ? body : { request: body, deprovisioned: result.deprovisioned }

      const change = (
        useCase: "scim.replaceUser" | "scim.patchUser",
        principal: Principal,
        id: string,
        body: unknown
      ) => ({
        useCase,
        actor: principal,
        resourceId: id,
        workspaceId: null,
        body,
        successBody: recorded(body)
      })

      return Scim.of({
        listUsers,
        getUser,
        createUser: (principal, body) =>
          useCases.run(
            {
              useCase: "scim.createUser",
              actor: principal,
              resourceId: (created) => String(created.id),
              workspaceId: null,
              body
            },
            createUser(principal, body)
          ),
        replaceUser: (principal, id, body) =>
          Effect.map(
            useCases.run(change("scim.replaceUser", principal, id, body), replaceUser(principal, id, body)),
            (changed) => changed.resource
          ),
        patchUser: (principal, id, body) =>
          Effect.map(
            useCases.run(change("scim.patchUser", principal, id, body), patchUser(principal, id, body)),
            (changed) => changed.resource
          ),
        deleteUser: (principal, id) =>
          Effect.asVoid(useCases.run(
            {
              useCase: "scim.deleteUser",
              actor: principal,
              resourceId: id,
              workspaceId: null,
              body: null,
              successBody: recorded(null)
            },
            deleteUser(principal, id)
          ))
      })
    })
  )
}
