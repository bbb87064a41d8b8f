/**
 * Users of an organisation, and their membership of workspaces. Self-hosted: users are created directly,
 * without invitation mail.
 */
import { Context, Effect, Layer, Option, Schema, Struct } from "effect"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { ApiKeys } from "../credentials/ApiKeys.ts"
import { type Conflict, type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkEmail, checkName } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { type OrganisationRole, User, WorkspaceMember, type WorkspaceRole } from "./AccessModel.ts"
import { type MemberFilter, type UserFilter, UserStore, WorkspaceMemberStore, WorkspaceStore } from "./AccessStores.ts"
import { grantedWrites } from "./GrantedWrites.ts"
import { ensureAllowed, Target } from "./Policy.ts"
import type { Principal } from "./Principal.ts"

/** A membership as a caller asks for it: the member's fields in the API's casing. */
export const AddMember = Schema.Struct(Struct.pick(WorkspaceMember.fields, ["user_id", "role"]))
export type AddMemberInput = typeof AddMember.Type

/**
 * A workspace role in Portkey's words as well as ours: Portkey's workspace `admin` is what this gateway calls a
 * workspace manager, and is stored as `manager`.
 */
export const MemberRole = Schema.Literals(["admin", "manager", "member"])
export type MemberRole = typeof MemberRole.Type

const roleOf = (role: MemberRole): WorkspaceRole => role === "admin" ? "manager" : role

/** Several users added to a workspace at once, as Portkey's SDKs add them: `{users: [{id, role}]}`. */
export const AddMembers = Schema.Struct({
  users: Schema.Array(Schema.Struct({ id: Schema.String, role: MemberRole })).check(Schema.isMinLength(1))
})
export type AddMembersInput = typeof AddMembers.Type

/** A member's new role. */
export const UpdateMember = Schema.Struct({ role: MemberRole })
export type UpdateMemberInput = typeof UpdateMember.Type

/** A user's new organisation role. */
export const UpdateUser = Schema.Struct(Struct.pick(User.fields, ["role"]))
export type UpdateUserInput = typeof UpdateUser.Type

/** A user, and the workspaces they are a member of. */
export interface UserWithWorkspaces {
  readonly user: User
  readonly workspace_ids: ReadonlyArray<string>
}

/** A membership, with the user it is of. */
export interface MemberWithUser {
  readonly member: WorkspaceMember
  readonly user: User
}

/** A user as a caller asks for one: the entity's fields a caller chooses, in the API's casing. */
export const CreateUser = Schema.Struct({
  ...Struct.pick(User.fields, ["email", "role"]),
  /** Blank means no name; the service holds a name to the shared rule. */
  name: Schema.optionalKey(Schema.String)
})
export type CreateUserInput = typeof CreateUser.Type

/** The filter as the store compares it: the email lower case, without surrounding spaces. */
const stored = <F extends { readonly email?: string | undefined }>(filter: F): F =>
  filter.email === undefined ? filter : { ...filter, email: filter.email.trim().toLowerCase() }

export class Users extends Context.Service<
  Users,
  {
    readonly create: (
      principal: Principal,
      input: CreateUserInput
    ) => Effect.Effect<User, InvalidRequest | Forbidden | NotFound | Conflict | StoreError>
    /** The organisation's users; with a filter, only those of that `role` and/or that `email` (any case). */
    readonly list: (
      principal: Principal,
      page: PageRequest,
      filter?: UserFilter
    ) => Effect.Effect<Page<User>, Forbidden | NotFound | StoreError>
    readonly addMember: (
      principal: Principal,
      workspaceId: string,
      input: AddMemberInput
    ) => Effect.Effect<WorkspaceMember, Forbidden | NotFound | StoreError>
    /** The workspace's members; with a filter, only those of that workspace `role` and/or `email` (any case). */
    readonly listMembers: (
      principal: Principal,
      workspaceId: string,
      page: PageRequest,
      filter?: MemberFilter
    ) => Effect.Effect<Page<MemberWithUser>, Forbidden | NotFound | StoreError>
    readonly get: (
      principal: Principal,
      id: string
    ) => Effect.Effect<UserWithWorkspaces, Forbidden | NotFound | StoreError>
    /** Changes the user's organisation role; making an owner, or changing an owner, is an owner's. */
    readonly update: (
      principal: Principal,
      id: string,
      input: UpdateUserInput
    ) => Effect.Effect<User, InvalidRequest | Forbidden | NotFound | StoreError>
    /**
     * Removes the user from the organisation and every workspace, and revokes their `workspace-user` keys; any
     * other key acting as them stops working, as the user no longer exists (KeyResolution.ts). Removing an owner
     * is an owner's; no key removes its own user.
     */
    readonly remove: (
      principal: Principal,
      id: string
    ) => Effect.Effect<User, InvalidRequest | Forbidden | NotFound | StoreError>
    /** Adds several users at once, all or none. */
    readonly addMembers: (
      principal: Principal,
      workspaceId: string,
      input: AddMembersInput
    ) => Effect.Effect<ReadonlyArray<MemberWithUser>, Forbidden | NotFound | StoreError>
    readonly getMember: (
      principal: Principal,
      workspaceId: string,
      userId: string
    ) => Effect.Effect<MemberWithUser, Forbidden | NotFound | StoreError>
    readonly updateMember: (
      principal: Principal,
      workspaceId: string,
      userId: string,
      input: UpdateMemberInput
    ) => Effect.Effect<MemberWithUser, Forbidden | NotFound | StoreError>
    readonly removeMember: (
      principal: Principal,
      workspaceId: string,
      userId: string
    ) => Effect.Effect<void, Forbidden | NotFound | StoreError>
  }
>()("@gateway-control/Users") {
  static readonly layer = Layer.effect(
    Users,
    Effect.gen(function*() {
      const users = grantedWrites(yield* UserStore, {
        insert: ["users.create", "users.create.owner"],
        update: ["users.update", "users.update.owner"],
        remove: ["users.delete", "users.delete.owner"]
      })
      const members = grantedWrites(yield* WorkspaceMemberStore, {
        upsert: ["members.create", "members.update"],
        remove: "members.delete"
      })
      const workspaces = yield* WorkspaceStore
      const crypto = yield* PlatformCrypto
      // The user's keys act with their memberships: a change must not wait for the key cache to lapse.
      const apiKeys = yield* ApiKeys

      const organisationTarget = (principal: Principal) => Target.organisation(principal.organisationId)

      const create = Effect.fn("Users.create")(function*(principal: Principal, input: CreateUserInput) {
        // No escalation: only an owner makes owners.
        const action = input.role === "owner" ? "users.create.owner" : "users.create"
        const creating = yield* ensureAllowed(principal, action, organisationTarget(principal), {
          type: "organisation",
          id: principal.organisationId
        })
        yield* checkEmail(input.email)
        const email = input.email.trim().toLowerCase()
        // A blank name is no name.
        const name = input.name?.trim() || null
        if (name !== null) yield* checkName(name)
        const now = yield* nowIso
        const user = new User({
          id: crypto.uuid(),
          organisation_id: principal.organisationId,
          email,
          name,
          role: input.role,
          created_at: now,
          last_updated_at: now
        })
        yield* users.insert(creating, user)
        return user
      })

      const list = Effect.fn("Users.list")(function*(principal: Principal, page: PageRequest, filter: UserFilter = {}) {
        yield* ensureAllowed(principal, "users.list", organisationTarget(principal), {
          type: "organisation",
          id: principal.organisationId
        })
        return yield* users.list(principal.organisationId, page, stored(filter))
      })

      /** The workspace, if it exists, and the policy's grant of the action there. */
      const workspaceFor = Effect.fnUntraced(
        function*<A extends "members.create" | "members.list" | "members.read" | "members.update" | "members.delete">(
          principal: Principal,
          workspaceId: string,
          action: A
        ) {
          const workspace = yield* requireRow(yield* workspaces.get(workspaceId), "workspace", workspaceId)
          const allowed = yield* ensureAllowed(
            principal,
            action,
            Target.workspace(workspace.organisation_id, workspace.id),
            { type: "workspace", id: workspaceId }
          )
          return { allowed, workspace }
        }
      )

      const addMember = Effect.fn("Users.addMember")(
        function*(
          principal: Principal,
          workspaceId: string,
          input: AddMemberInput
        ) {
          const { allowed, workspace } = yield* workspaceFor(principal, workspaceId, "members.create")
          const user = yield* requireRow(yield* users.get(input.user_id), "user", input.user_id)
          // A user of another organisation cannot join: hidden, like everything of another organisation.
          yield* ensureAllowed(principal, "members.create", Target.organisation(user.organisation_id), {
            type: "user",
            id: input.user_id
          })
          const now = yield* nowIso
          const member = new WorkspaceMember({
            workspace_id: workspace.id,
            user_id: user.id,
            role: input.role,
            created_at: now,
            last_updated_at: now
          })
          yield* members.upsert(allowed, member)
          yield* apiKeys.forgetUser(user.id)
          return Option.getOrElse(yield* members.get(workspace.id, user.id), () => member)
        }
      )

      /** The membership with its user; a membership whose user is gone reads as no membership. */
      const withUser = Effect.fnUntraced(function*(member: WorkspaceMember) {
        const user = yield* users.get(member.user_id)
        return Option.map(user, (found): MemberWithUser => ({ member, user: found }))
      })

      const listMembers = Effect.fn("Users.listMembers")(
        function*(principal: Principal, workspaceId: string, page: PageRequest, filter: MemberFilter = {}) {
          const { workspace } = yield* workspaceFor(principal, workspaceId, "members.list")
          const listed = yield* members.list(workspace.id, page, stored(filter))
          const items = yield* Effect.forEach(listed.items, withUser)
          return { items: items.flatMap(Option.toArray), total: listed.total }
        }
      )

      const getMember = Effect.fn("Users.getMember")(
        function*(principal: Principal, workspaceId: string, userId: string) {
          const { workspace } = yield* workspaceFor(principal, workspaceId, "members.read")
          const member = yield* requireRow(yield* members.get(workspace.id, userId), "workspace member", userId)
          return yield* requireRow(yield* withUser(member), "workspace member", userId)
        }
      )

      const updateMember = Effect.fn("Users.updateMember")(
        function*(principal: Principal, workspaceId: string, userId: string, input: UpdateMemberInput) {
          const { allowed, workspace } = yield* workspaceFor(principal, workspaceId, "members.update")
          const member = yield* requireRow(yield* members.get(workspace.id, userId), "workspace member", userId)
          const changed = new WorkspaceMember({ ...member, role: roleOf(input.role), last_updated_at: yield* nowIso })
          yield* members.upsert(allowed, changed)
          yield* apiKeys.forgetUser(userId)
          return yield* requireRow(yield* withUser(changed), "workspace member", userId)
        }
      )

      const addMembers = Effect.fn("Users.addMembers")(
        function*(principal: Principal, workspaceId: string, input: AddMembersInput) {
          const added: Array<MemberWithUser> = []
          for (const { id, role } of input.users) {
            const member = yield* addMember(principal, workspaceId, { user_id: id, role: roleOf(role) })
            added.push(yield* requireRow(yield* withUser(member), "user", id))
          }
          return added
        }
      )

      /** The user, if the principal may `action` them, and the grant; owners are an owner's to change or remove. */
      const userFor = Effect.fnUntraced(
        function*<A extends "users.update" | "users.delete">(
          principal: Principal,
          id: string,
          action: A,
          newRole?: OrganisationRole
        ) {
          const user = yield* requireRow(yield* users.get(id), "user", id)
          const ownerAction = user.role === "owner" || newRole === "owner"
          const allowed = yield* ensureAllowed(
            principal,
            ownerAction ? (`${action}.owner` as `${A}.owner`) : action,
            Target.organisation(user.organisation_id),
            { type: "user", id }
          )
          return { allowed, user }
        }
      )

      const get = Effect.fn("Users.get")(function*(principal: Principal, id: string) {
        const user = yield* requireRow(yield* users.get(id), "user", id)
        yield* ensureAllowed(principal, "users.read", Target.organisation(user.organisation_id), { type: "user", id })
        return { user, workspace_ids: yield* members.workspacesOf(user.id) }
      })

      /** No key changes or removes its own user: an organisation always keeps the user who could undo it. */
      const notSelf = (principal: Principal, id: string) =>
        principal.userId === id
          ? Effect.fail(InvalidRequest.of("A key cannot change or remove the user it acts as.", "userId"))
          : Effect.void

      const update = Effect.fn("Users.update")(function*(principal: Principal, id: string, input: UpdateUserInput) {
        const { allowed, user } = yield* userFor(principal, id, "users.update", input.role)
        yield* notSelf(principal, id)
        const changed = new User({ ...user, role: input.role, last_updated_at: yield* nowIso })
        yield* users.update(allowed, changed)
        yield* apiKeys.forgetUser(id)
        return changed
      })

      const remove = Effect.fn("Users.remove")(function*(principal: Principal, id: string) {
        const { allowed, user } = yield* userFor(principal, id, "users.delete")
        yield* notSelf(principal, id)
        yield* apiKeys.revokeAll(principal, { userId: id, type: "workspace-user" })
        yield* users.remove(allowed, id)
        yield* apiKeys.forgetUser(id)
        return user
      })

      const removeMember = Effect.fn("Users.removeMember")(
        function*(principal: Principal, workspaceId: string, userId: string) {
          const { allowed, workspace } = yield* workspaceFor(principal, workspaceId, "members.delete")
          const removed = yield* members.remove(allowed, workspace.id, userId)
          yield* requireRow(removed ? Option.some(userId) : Option.none(), "workspace member", userId)
          yield* apiKeys.forgetUser(userId)
        }
      )

      const useCases = yield* AuditedUseCase
      return Users.of({
        create: (principal, input) =>
          useCases.run(
            {
              useCase: "users.create",
              actor: principal,
              resourceId: (user) => user.id,
              workspaceId: null,
              body: input
            },
            create(principal, input)
          ),
        list,
        addMember: (principal, workspaceId, input) =>
          useCases.run(
            { useCase: "users.addMember", actor: principal, resourceId: input.user_id, workspaceId, body: input },
            addMember(principal, workspaceId, input)
          ),
        listMembers,
        get,
        update: (principal, id, input) =>
          useCases.run(
            { useCase: "users.update", actor: principal, resourceId: id, workspaceId: null, body: input },
            update(principal, id, input)
          ),
        remove: (principal, id) =>
          useCases.run(
            { useCase: "users.delete", actor: principal, resourceId: id, workspaceId: null, body: null },
            remove(principal, id)
          ),
        addMembers: (principal, workspaceId, input) =>
          useCases.run(
            { useCase: "users.addMembers", actor: principal, resourceId: workspaceId, workspaceId, body: input },
            addMembers(principal, workspaceId, input)
          ),
        getMember,
        updateMember: (principal, workspaceId, userId, input) =>
          useCases.run(
            { useCase: "users.updateMember", actor: principal, resourceId: userId, workspaceId, body: input },
            updateMember(principal, workspaceId, userId, input)
          ),
        removeMember: (principal, workspaceId, userId) =>
          useCases.run(
            { useCase: "users.removeMember", actor: principal, resourceId: userId, workspaceId, body: null },
            removeMember(principal, workspaceId, userId)
          )
      })
    })
  )
}
