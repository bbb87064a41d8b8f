/**
 * Users of an organisation, and their membership of workspaces. Self-hosted: users are created directly,
 * without invitation mail.
 */
import { Context, Effect, Layer, Option } from "effect"
import { ApiKeys } from "../credentials/ApiKeys.ts"
import type { InvalidRequest } from "../shared/Errors.ts"
import { type Conflict, Forbidden, NotFound } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkEmail, checkName } from "../shared/Rules.ts"
import { type OrganisationRole, User, WorkspaceMember, type WorkspaceRole } from "./AccessModel.ts"
import { UserStore, WorkspaceMemberStore, WorkspaceStore } from "./AccessStores.ts"
import { ensureAllowed } from "./Policy.ts"
import type { Principal } from "./Principal.ts"

export interface CreateUserInput {
  readonly email: string
  readonly name?: string | undefined
  readonly role: OrganisationRole
}

export class Users extends Context.Service<
  Users,
  {
    readonly create: (
      principal: Principal,
      input: CreateUserInput
    ) => Effect.Effect<User, InvalidRequest | Forbidden | NotFound | Conflict>
    readonly list: (principal: Principal, page: PageRequest) => Effect.Effect<Page<User>, Forbidden | NotFound>
    readonly addMember: (
      principal: Principal,
      workspaceId: string,
      input: { readonly userId: string; readonly role: WorkspaceRole }
    ) => Effect.Effect<WorkspaceMember, Forbidden | NotFound>
    readonly listMembers: (
      principal: Principal,
      workspaceId: string,
      page: PageRequest
    ) => Effect.Effect<Page<WorkspaceMember>, Forbidden | NotFound>
    readonly removeMember: (
      principal: Principal,
      workspaceId: string,
      userId: string
    ) => Effect.Effect<void, Forbidden | NotFound>
  }
>()("@gateway-control/Users") {
  static readonly layer = Layer.effect(
    Users,
    Effect.gen(function*() {
      const users = yield* UserStore
      const members = yield* WorkspaceMemberStore
      const workspaces = yield* WorkspaceStore
      const crypto = yield* PlatformCrypto
      // The user's keys act with their memberships: a change must not wait for the key cache to lapse.
      const apiKeys = yield* ApiKeys

      const organisationTarget = (principal: Principal) => ({
        organisationId: principal.organisationId,
        workspaceId: null
      })

      const create = Effect.fn("Users.create")(function*(principal: Principal, input: CreateUserInput) {
        yield* ensureAllowed(principal, "users.create", organisationTarget(principal), {
          type: "organisation",
          id: principal.organisationId
        })
        // No escalation: only an owner makes owners.
        if (input.role === "owner" && principal.organisationRole !== "owner") {
          return yield* new Forbidden({ message: "Only an organisation owner can create another owner." })
        }
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
        yield* users.insert(user)
        return user
      })

      const list = Effect.fn("Users.list")(function*(principal: Principal, page: PageRequest) {
        yield* ensureAllowed(principal, "users.list", organisationTarget(principal), {
          type: "organisation",
          id: principal.organisationId
        })
        return yield* users.list(principal.organisationId, page)
      })

      /** The workspace, if the principal's organisation has it; another organisation's answers not found. */
      const findWorkspace = Effect.fnUntraced(function*(principal: Principal, workspaceId: string) {
        const workspace = yield* workspaces.get(workspaceId)
        if (Option.isNone(workspace) || workspace.value.organisation_id !== principal.organisationId) {
          return yield* new NotFound({ resource: "workspace", id: workspaceId })
        }
        return workspace.value
      })

      const addMember = Effect.fn("Users.addMember")(
        function*(
          principal: Principal,
          workspaceId: string,
          input: { readonly userId: string; readonly role: WorkspaceRole }
        ) {
          const workspace = yield* findWorkspace(principal, workspaceId)
          yield* ensureAllowed(principal, "members.create", {
            organisationId: workspace.organisation_id,
            workspaceId: workspace.id
          }, { type: "workspace", id: workspaceId })
          const user = yield* users.get(input.userId)
          if (Option.isNone(user) || user.value.organisation_id !== principal.organisationId) {
            return yield* new NotFound({ resource: "user", id: input.userId })
          }
          const member = new WorkspaceMember({
            workspace_id: workspace.id,
            user_id: user.value.id,
            role: input.role,
            created_at: yield* nowIso
          })
          yield* members.upsert(member)
          yield* apiKeys.forgetUser(user.value.id)
          return Option.getOrElse(yield* members.get(workspace.id, user.value.id), () => member)
        }
      )

      const listMembers = Effect.fn("Users.listMembers")(
        function*(principal: Principal, workspaceId: string, page: PageRequest) {
          const workspace = yield* findWorkspace(principal, workspaceId)
          yield* ensureAllowed(principal, "members.list", {
            organisationId: workspace.organisation_id,
            workspaceId: workspace.id
          }, { type: "workspace", id: workspaceId })
          return yield* members.list(workspace.id, page)
        }
      )

      const removeMember = Effect.fn("Users.removeMember")(
        function*(principal: Principal, workspaceId: string, userId: string) {
          const workspace = yield* findWorkspace(principal, workspaceId)
          yield* ensureAllowed(principal, "members.delete", {
            organisationId: workspace.organisation_id,
            workspaceId: workspace.id
          }, { type: "workspace", id: workspaceId })
          const removed = yield* members.remove(workspace.id, userId)
          if (!removed) return yield* new NotFound({ resource: "workspace member", id: userId })
          yield* apiKeys.forgetUser(userId)
        }
      )

      return Users.of({ create, list, addMember, listMembers, removeMember })
    })
  )
}
