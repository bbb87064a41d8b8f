/**
 * The SCIM 2.0 service provider's groups (RFC 7643 §4.2, RFC 7644): an identity provider, with a SCIM token's
 * principal, creates, reads, replaces, patches and deletes the organisation's groups and their members. Every
 * change is an audited use case under the policy, in one unit of work with its record.
 *
 * Roles: a group's name (and the identity provider's id for it) is looked up in the role maps of the
 * organisation's identity providers, the maps OIDC sign-in applies (identity-providers/IdentityProviderRules.ts
 * `mapRoles`). When a change adds or removes members, or renames or deletes a group, each user it touches gets
 * the organisation and workspace roles the maps give their groups now, and the record lists every role it
 * changed. Like sign-in, the maps never demote an owner; unlike sign-in, SCIM never makes one (a SCIM token has
 * no owner action, Policy.ts): a map's `owner` is recorded as not applied, left to an owner, and the person
 * gets the highest other role the maps give them.
 */
import { Context, Effect, Layer, Option, Result, Schema } from "effect"
import { type OrganisationRole, User, WorkspaceMember, type WorkspaceRole } from "../access/AccessModel.ts"
import { UserStore, WorkspaceMemberStore, WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { ApiKeys } from "../credentials/ApiKeys.ts"
import type { RoleMap } from "../identity-providers/IdentityProvider.ts"
import { mapRolesAll } from "../identity-providers/IdentityProviderRules.ts"
import { IdentityProviders } from "../identity-providers/IdentityProviders.ts"
import { type Conflict, type Forbidden, type InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { everyUser, organisationOf } from "./internal/organisationUsers.ts"
import { ScimInvalid } from "./ScimErrors.ts"
import { MAX_GROUP_MEMBERS, ScimGroup, ScimGroupInput } from "./ScimGroup.ts"
import { ScimProtocol } from "./ScimProtocol.ts"
import { ScimStore } from "./ScimStore.ts"
import { SCIM_GROUP_SCHEMA, type ScimPage, type ScimQuery, type ScimResource } from "./ScimUser.ts"

type ScimFailure = ScimInvalid | InvalidRequest | Forbidden | NotFound | Conflict | StoreError

/** A role a group change changed for a user: the organisation role (workspace null) or a workspace's. */
export interface ScimRoleChange {
  readonly user_id: string
  readonly workspace: string | null
  readonly from: OrganisationRole | WorkspaceRole | null
  readonly to: OrganisationRole | WorkspaceRole | null
  /** False for a change the maps ask for that SCIM does not make: making an owner. */
  readonly applied: boolean
}

/** A group change's result: the group as SCIM shows it (none once deleted), and the roles it changed. */
interface GroupChange {
  readonly resource: ScimResource | null
  readonly role_changes: ReadonlyArray<ScimRoleChange>
}

/** The group as SCIM shows it; each member with their email as `display`. */
export const scimGroupOf = (group: ScimGroup, emails: ReadonlyMap<string, string>): ScimResource => ({
  schemas: [SCIM_GROUP_SCHEMA],
  id: group.id,
  ...(group.external_id === null ? {} : { externalId: group.external_id }),
  displayName: group.display_name,
  members: group.member_ids.map((id) => ({
    value: id,
    type: "User",
    ...(emails.has(id) ? { display: emails.get(id) } : {})
  })),
  meta: { resourceType: "Group", created: group.created_at, lastModified: group.last_updated_at }
})

const decodeGroup = Schema.decodeUnknownResult(ScimGroupInput)

/** The names the role maps know a group by: its name, and the identity provider's id for it. */
const namesOf = (group: ScimGroup): ReadonlyArray<string> =>
  group.external_id === null ? [group.display_name] : [group.display_name, group.external_id]

/** The map without the owner role: an entry that names it names no organisation role. */
const withoutOwner = (roleMap: RoleMap): RoleMap =>
  Object.fromEntries(
    Object.entries(roleMap).map(([group, entry]) => {
      if (entry.organisation_role !== "owner") return [group, entry]
      const { organisation_role: _owner, ...rest } = entry
      return [group, rest]
    })
  )

export class ScimGroups extends Context.Service<
  ScimGroups,
  {
    readonly listGroups: (principal: Principal, query: ScimQuery) => Effect.Effect<ScimPage, ScimFailure>
    readonly getGroup: (principal: Principal, id: string) => Effect.Effect<ScimResource, ScimFailure>
    readonly createGroup: (principal: Principal, body: unknown) => Effect.Effect<ScimResource, ScimFailure>
    /** PUT: the group's name, external id and members replaced by the body's. */
    readonly replaceGroup: (principal: Principal, id: string, body: unknown) => Effect.Effect<ScimResource, ScimFailure>
    /** PATCH (RFC 7644 §3.5.2): the operations applied all or none, then as a replacement. */
    readonly patchGroup: (principal: Principal, id: string, body: unknown) => Effect.Effect<ScimResource, ScimFailure>
    /** Removes the group; its members get the roles their other groups give. */
    readonly deleteGroup: (principal: Principal, id: string) => Effect.Effect<void, ScimFailure>
  }
>()("@gateway-control/ScimGroups") {
  static readonly layer = Layer.effect(
    ScimGroups,
    Effect.gen(function*() {
      const store = grantedWrites(yield* ScimStore, {
        insertGroup: "users.update",
        updateGroup: "users.update",
        removeGroup: "users.update"
      })
      const users = grantedWrites(yield* UserStore, { update: "users.update" })
      const members = grantedWrites(yield* WorkspaceMemberStore, {
        upsert: ["members.create", "members.update"],
        remove: "members.delete"
      })
      const workspaces = yield* WorkspaceStore
      const providers = yield* IdentityProviders
      const protocol = yield* ScimProtocol
      const apiKeys = yield* ApiKeys
      const crypto = yield* PlatformCrypto
      const useCases = yield* AuditedUseCase

      /** Every user's email in the organisation, by id: what members show as `display`. */
      const emailsOf = (organisationId: string) =>
        Effect.map(
          everyUser(users, organisationId),
          (all) => new Map(all.map((user): [string, string] => [user.id, user.email]))
        )

      /** The group; another organisation's is hidden by the policy. */
      const groupFor = Effect.fnUntraced(function*<A extends "users.read" | "users.update">(
        principal: Principal,
        id: string,
        action: A
      ) {
        const group = yield* requireRow(yield* store.getGroup(id), "group", id)
        const grant = yield* ensureAllowed(principal, action, Target.organisation(group.organisation_id), {
          type: "group",
          id
        })
        return { grant, group }
      })

      /** The body as a group: its name checked, its members users of the organisation, each once. */
      const groupInput = Effect.fnUntraced(function*(principal: Principal, body: unknown) {
        const decoded = decodeGroup(body)
        if (Result.isFailure(decoded)) {
          return yield* ScimInvalid.of("invalidValue", `Not a SCIM group: ${decoded.failure.message}`)
        }
        const input = decoded.success
        const displayName = input.displayName.trim()
        if (displayName.length === 0 || displayName.length > 255) {
          return yield* ScimInvalid.of("invalidValue", "displayName must be 1 to 255 characters.")
        }
        const memberIds = [...new Set((input.members ?? []).map((member) => member.value))]
        if (memberIds.length > MAX_GROUP_MEMBERS) {
          return yield* ScimInvalid.of("invalidValue", `A group has at most ${MAX_GROUP_MEMBERS} members here.`)
        }
        for (const memberId of memberIds) {
          const user = yield* users.get(memberId)
          // Another organisation's user is hidden by the policy, as a missing one is.
          const visible = Option.isSome(user) && Result.isSuccess(
            yield* Effect.result(
              ensureAllowed(principal, "users.read", Target.organisation(user.value.organisation_id), {
                type: "user",
                id: memberId
              })
            )
          )
          if (!visible) {
            return yield* ScimInvalid.of("invalidValue", `members: '${memberId}' is not a user of this organisation.`)
          }
        }
        return { displayName, externalId: input.externalId, memberIds }
      })

      /**
       * Gives each user the roles the organisation's role maps give their groups now, as sign-in does; answers
       * what changed. A user whose roles changed is forgotten by every process's key cache.
       */
      const applyRoles = Effect.fnUntraced(function*(principal: Principal, userIds: Iterable<string>) {
        const changes: Array<ScimRoleChange> = []
        const roleMaps = yield* providers.roleMaps(principal.organisationId)
        if (roleMaps.length === 0) return changes
        const now = yield* nowIso
        for (const userId of userIds) {
          const found = yield* users.get(userId)
          if (Option.isNone(found)) continue
          let user = found.value
          const before = changes.filter((c) => c.applied).length
          const groups = (yield* store.groupsOf(userId)).flatMap(namesOf)
          const mapped = mapRolesAll(roleMaps, groups)
          // The maps never demote an owner. SCIM never makes one: a map's owner is recorded as not applied, and
          // the person gets the highest other role the maps give them.
          let desired = mapped.organisationRole
          if (desired === "owner") {
            if (user.role !== "owner") {
              changes.push({ user_id: userId, workspace: null, from: user.role, to: desired, applied: false })
            }
            desired = mapRolesAll(roleMaps.map(withoutOwner), groups).organisationRole
          }
          if (desired !== null && desired !== user.role && user.role !== "owner") {
            const grant = yield* ensureAllowed(principal, "users.update", Target.organisation(user.organisation_id), {
              type: "user",
              id: userId
            })
            changes.push({ user_id: userId, workspace: null, from: user.role, to: desired, applied: true })
            user = new User({ ...user, role: desired, last_updated_at: now })
            yield* users.update(grant, user)
          }
          for (const [slug, role] of mapped.workspaces) {
            const workspace = yield* workspaces.findBySlug(user.organisation_id, slug)
            if (Option.isNone(workspace)) continue
            const target = Target.workspace(workspace.value.organisation_id, workspace.value.id)
            const ref = { type: "workspace", id: workspace.value.id }
            const membership = yield* members.get(workspace.value.id, userId)
            const from = Option.isSome(membership) ? membership.value.role : null
            if (from === role) continue
            changes.push({ user_id: userId, workspace: slug, from, to: role, applied: true })
            if (role === null) {
              yield* members.remove(
                yield* ensureAllowed(principal, "members.delete", target, ref),
                workspace.value.id,
                userId
              )
            } else {
              const grant = yield* ensureAllowed(
                principal,
                from === null ? "members.create" : "members.update",
                target,
                ref
              )
              yield* members.upsert(
                grant,
                new WorkspaceMember({
                  workspace_id: workspace.value.id,
                  user_id: userId,
                  role,
                  created_at: Option.isSome(membership) ? membership.value.created_at : now,
                  last_updated_at: now
                })
              )
            }
          }
          if (changes.filter((c) => c.applied).length > before) yield* apiKeys.forgetUser(userId)
        }
        return changes
      })

      const listGroups = Effect.fn("ScimGroups.listGroups")(function*(principal: Principal, query: ScimQuery) {
        const { resource, target } = organisationOf(principal)
        yield* ensureAllowed(principal, "users.list", target, resource)
        const matches = query.filter === undefined ? () => true : yield* protocol.compileFilter(query.filter)
        const emails = yield* emailsOf(principal.organisationId)
        const all = (yield* store.groups(principal.organisationId))
          .map((group) => scimGroupOf(group, emails))
          .filter(matches)
        const start = Math.max(1, query.startIndex)
        return {
          totalResults: all.length,
          startIndex: start,
          resources: all.slice(start - 1, start - 1 + Math.max(0, query.count))
        }
      })

      const getGroup = Effect.fn("ScimGroups.getGroup")(function*(principal: Principal, id: string) {
        const { group } = yield* groupFor(principal, id, "users.read")
        return scimGroupOf(group, yield* emailsOf(group.organisation_id))
      })

      const createGroup = Effect.fn("ScimGroups.createGroup")(function*(principal: Principal, body: unknown) {
        const { resource, target } = organisationOf(principal)
        const grant = yield* ensureAllowed(principal, "users.update", target, resource)
        const input = yield* groupInput(principal, body)
        const now = yield* nowIso
        const group = new ScimGroup({
          id: crypto.uuid(),
          organisation_id: principal.organisationId,
          display_name: input.displayName,
          external_id: input.externalId ?? null,
          member_ids: input.memberIds,
          created_at: now,
          last_updated_at: now
        })
        yield* store.insertGroup(grant, group)
        const role_changes = yield* applyRoles(principal, group.member_ids)
        return { resource: scimGroupOf(group, yield* emailsOf(group.organisation_id)), role_changes }
      })

      const replace = Effect.fnUntraced(function*(principal: Principal, id: string, body: unknown) {
        const { grant, group } = yield* groupFor(principal, id, "users.update")
        const input = yield* groupInput(principal, body)
        const now = yield* nowIso
        const next = new ScimGroup({
          ...group,
          display_name: input.displayName,
          external_id: input.externalId === undefined ? group.external_id : input.externalId,
          member_ids: input.memberIds,
          last_updated_at: now
        })
        yield* store.updateGroup(grant, next)
        // A new name or id can mean other roles for every member; otherwise only those who joined or left.
        const renamed = next.display_name !== group.display_name || next.external_id !== group.external_id
        const before = new Set(group.member_ids)
        const after = new Set(next.member_ids)
        const touched = renamed
          ? new Set([...before, ...after])
          : new Set([
            ...next.member_ids.filter((m) => !before.has(m)),
            ...group.member_ids.filter((m) => !after.has(m))
          ])
        const role_changes = yield* applyRoles(principal, touched)
        return { resource: scimGroupOf(next, yield* emailsOf(group.organisation_id)), role_changes }
      })

      const replaceGroup = Effect.fn("ScimGroups.replaceGroup")(replace)

      const patchGroup = Effect.fn("ScimGroups.patchGroup")(function*(principal: Principal, id: string, body: unknown) {
        const { group } = yield* groupFor(principal, id, "users.update")
        // Members are patched as `{value}` alone, so a removal naming a member by value finds them.
        const patched = yield* protocol.applyPatch(
          { ...scimGroupOf(group, new Map()), members: group.member_ids.map((value) => ({ value })) },
          body
        )
        return yield* replace(principal, id, patched)
      })

      const deleteGroup = Effect.fn("ScimGroups.deleteGroup")(function*(principal: Principal, id: string) {
        const { grant, group } = yield* groupFor(principal, id, "users.update")
        yield* store.removeGroup(grant, id)
        const role_changes = yield* applyRoles(principal, group.member_ids)
        return { resource: null, role_changes }
      })

      /** The record of a change: the request, and the roles it changed, if any. */
      const recorded = (body: unknown) => (result: GroupChange) =>
        result.role_changes.length === 0 ? body : { request: body, role_changes: result.role_changes }

      const change = (
        useCase: "scim.replaceGroup" | "scim.patchGroup" | "scim.deleteGroup",
        principal: Principal,
        id: string,
        body: unknown
      ) => ({ useCase, actor: principal, resourceId: id, workspaceId: null, body, successBody: recorded(body) })

      const resourceOf = (result: GroupChange): ScimResource => result.resource ?? {}

      return ScimGroups.of({
        listGroups,
        getGroup,
        createGroup: (principal, body) =>
          Effect.map(
            useCases.run(
              {
                useCase: "scim.createGroup",
                actor: principal,
                resourceId: (created) => String(created.resource?.id),
                workspaceId: null,
                body,
                successBody: recorded(body)
              },
              createGroup(principal, body)
            ),
            resourceOf
          ),
        replaceGroup: (principal, id, body) =>
          Effect.map(
            useCases.run(change("scim.replaceGroup", principal, id, body), replaceGroup(principal, id, body)),
            resourceOf
          ),
        patchGroup: (principal, id, body) =>
          Effect.map(
            useCases.run(change("scim.patchGroup", principal, id, body), patchGroup(principal, id, body)),
            resourceOf
          ),
        deleteGroup: (principal, id) =>
          Effect.asVoid(useCases.run(change("scim.deleteGroup", principal, id, null), deleteGroup(principal, id)))
      })
    })
  )
}
