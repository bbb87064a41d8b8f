/**
 * Users of an organisation, and their membership of workspaces. Self-hosted: users are created directly,
 * without invitation mail.
 */
import { Context, Effect, Layer, Option, Schema, Struct } from "effect"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { ApiKeys } from "../credentials/ApiKeys.ts"
import { type Conflict, type Forbidden, type InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkEmail, checkName } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { User, WorkspaceMember } from "./AccessModel.ts"
import { UserStore, WorkspaceMemberStore, WorkspaceStore } from "./AccessStores.ts"
import { grantedWrites } from "./GrantedWrites.ts"
import { ensureAllowed, Target } from "./Policy.ts"
import type { Principal } from "./Principal.ts"

/** A membership as a caller asks for it: the member's fields in the API's casing. */
export const AddMember = Schema.Struct(Struct.pick(WorkspaceMember.fields, ["user_id", "role"]))
export type AddMemberInput = typeof AddMember.Type

/** A user as a caller asks for one: the entity's fields a caller chooses, in the API's casing. */
export const CreateUser = Schema.Struct({
  ...Struct.pick(User.fields, ["email", "role"]),
  /** Blank means no name; the service holds a name to the shared rule. */
  name: Schema.optionalKey(Schema.String)
})
export type CreateUserInput = typeof CreateUser.Type

export class Users extends Context.Service<
  Users,
  {
    readonly create: (
      principal: Principal,
      input: CreateUserInput
    ) => Effect.Effect<User, InvalidRequest | Forbidden | NotFound | Conflict | StoreError>
    readonly list: (
      principal: Principal,
      page: PageRequest
    ) => Effect.Effect<Page<User>, Forbidden | NotFound | StoreError>
    readonly addMember: (
      principal: Principal,
      workspaceId: string,
      input: AddMemberInput
    ) => Effect.Effect<WorkspaceMember, Forbidden | NotFound | StoreError>
    readonly listMembers: (
      principal: Principal,
      workspaceId: string,
      page: PageRequest
    ) => Effect.Effect<Page<WorkspaceMember>, Forbidden | NotFound | StoreError>
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
      const users = grantedWrites(yield* UserStore, { insert: ["users.create", "users.create.owner"] })
      const members = grantedWrites(yield* WorkspaceMemberStore, { upsert: "members.create", remove: "members.delete" })
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

      const list = Effect.fn("Users.list")(function*(principal: Principal, page: PageRequest) {
        yield* ensureAllowed(principal, "users.list", organisationTarget(principal), {
          type: "organisation",
          id: principal.organisationId
        })
        return yield* users.list(principal.organisationId, page)
      })

      /** The workspace, if it exists, and the policy's grant of the action there. */
      const workspaceFor = Effect.fnUntraced(
        function*<A extends "members.create" | "members.list" | "members.delete">(
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
          const member = new WorkspaceMember({
            workspace_id: workspace.id,
            user_id: user.id,
            role: input.role,
            created_at: yield* nowIso
          })
          yield* members.upsert(allowed, member)
          yield* apiKeys.forgetUser(user.id)
          return Option.getOrElse(yield* members.get(workspace.id, user.id), () => member)
        }
      )

      const listMembers = Effect.fn("Users.listMembers")(
        function*(principal: Principal, workspaceId: string, page: PageRequest) {
          const { workspace } = yield* workspaceFor(principal, workspaceId, "members.list")
          return yield* members.list(workspace.id, page)
        }
      )

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
        removeMember: (principal, workspaceId, userId) =>
          useCases.run(
            { useCase: "users.removeMember", actor: principal, resourceId: userId, workspaceId, body: null },
            removeMember(principal, workspaceId, userId)
          )
      })
    })
  )
}
