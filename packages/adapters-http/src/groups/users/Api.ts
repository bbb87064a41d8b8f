import {
  AddMember,
  AddMembers,
  CreateUser,
  OrganisationRole,
  UpdateMember,
  UpdateUser,
  User,
  WorkspaceMember
} from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { created, createEndpoint, deletedOf, listOf, PagingQuery, updateEndpoint, v1Group } from "../Common.ts"

export const CreatedUser = Schema.Struct({ ...Struct.pick(User.fields, ["id"]), object: Schema.Literal("user") })

/** Portkey's parts of a user's name (ours is `name`), absent when there is none. */
const nameFields = {
  first_name: Schema.optionalKey(Schema.String),
  last_name: Schema.optionalKey(Schema.String)
}

/** A user as our API and Portkey's `User` schema describe it. */
export const UserAnswer = Schema.Struct({ ...User.fields, ...nameFields, object: Schema.Literal("user") })

/** One user, with the workspaces they are a member of (Portkey's `workspace_ids`). */
export const UserWithWorkspaces = Schema.Struct({ ...UserAnswer.fields, workspace_ids: Schema.Array(Schema.String) })

/**
 * A membership as our API (`user_id`, `role`) and Portkey's `WorkspaceMember` schema (`id`, `org_role`, `email`,
 * names, `status`) describe it.
 */
export const WorkspaceUser = Schema.Struct({
  ...WorkspaceMember.fields,
  ...nameFields,
  object: Schema.Literal("workspace-user"),
  id: Schema.String,
  email: User.fields.email,
  org_role: OrganisationRole,
  status: Schema.Literal("active")
})

const memberObject = { object: Schema.Literal("workspace-member") }

export const AddedMember = created(Schema.Struct({
  ...memberObject,
  ...Struct.pick(WorkspaceMember.fields, ["workspace_id", "user_id", "role"])
}))

export const RemovedMember = Schema.Struct({
  ...memberObject,
  ...Struct.pick(WorkspaceMember.fields, ["workspace_id", "user_id"]),
  deleted: Schema.Literal(true)
})

const MemberPath = { workspaceId: Schema.String }
const WorkspaceUserPath = { workspaceId: Schema.String, userId: Schema.String }
const UserPath = { userId: Schema.String }

/** Portkey's SDKs page users with `pageSize` and `currentPage`; ours are accepted too. */
const UserPagingQuery = { ...PagingQuery, pageSize: PagingQuery.page_size, currentPage: PagingQuery.current_page }

export class UsersGroup extends v1Group(
  HttpApiGroup.make("users")
    .add(
      createEndpoint("create", "/users", CreateUser, CreatedUser),
      HttpApiEndpoint.get("list", "/users", { query: PagingQuery, success: listOf(UserAnswer), error: CommonErrors }),
      HttpApiEndpoint.post("addMember", "/workspaces/:workspaceId/members", {
        params: MemberPath,
        payload: AddMember,
        success: AddedMember,
        error: CommonErrors
      }),
      HttpApiEndpoint.get("listMembers", "/workspaces/:workspaceId/members", {
        params: MemberPath,
        query: PagingQuery,
        success: listOf(WorkspaceUser),
        error: CommonErrors
      }),
      HttpApiEndpoint.delete("removeMember", "/workspaces/:workspaceId/members/:userId", {
        params: { ...MemberPath, userId: Schema.String },
        success: RemovedMember,
        error: CommonErrors
      }),
      // Portkey's paths: organisation users under /admin/users, workspace members under /admin/workspaces/{id}/users.
      HttpApiEndpoint.get("adminList", "/admin/users", {
        query: {
          ...UserPagingQuery,
          role: Schema.optionalKey(User.fields.role.annotate({ description: "Only users of this organisation role." })),
          email: Schema.optionalKey(
            Schema.String.annotate({ description: "Only the user with this email (any case)." })
          )
        },
        success: listOf(UserAnswer),
        error: CommonErrors
      }),
      HttpApiEndpoint.get("get", "/admin/users/:userId", {
        params: UserPath,
        success: UserWithWorkspaces,
        error: CommonErrors
      }),
      updateEndpoint("update", "/admin/users/:userId", UserPath, UpdateUser, UserAnswer),
      HttpApiEndpoint.delete("delete", "/admin/users/:userId", {
        params: UserPath,
        success: deletedOf("user"),
        error: CommonErrors
      }),
      HttpApiEndpoint.post("addMembers", "/admin/workspaces/:workspaceId/users", {
        params: MemberPath,
        payload: AddMembers,
        success: created(listOf(WorkspaceUser)),
        error: CommonErrors
      }),
      HttpApiEndpoint.get("listWorkspaceUsers", "/admin/workspaces/:workspaceId/users", {
        params: MemberPath,
        query: {
          ...PagingQuery,
          role: Schema.optionalKey(
            Schema.Literals(["admin", "manager", "member"]).annotate({
              description: "Only members of this workspace role (Portkey's `admin` is `manager`)."
            })
          ),
          email: Schema.optionalKey(
            Schema.String.annotate({ description: "Only the member with this email (any case)." })
          )
        },
        success: listOf(WorkspaceUser),
        error: CommonErrors
      }),
      HttpApiEndpoint.get("getMember", "/admin/workspaces/:workspaceId/users/:userId", {
        params: WorkspaceUserPath,
        success: WorkspaceUser,
        error: CommonErrors
      }),
      updateEndpoint(
        "updateMember",
        "/admin/workspaces/:workspaceId/users/:userId",
        WorkspaceUserPath,
        UpdateMember,
        WorkspaceUser
      ),
      HttpApiEndpoint.delete("removeWorkspaceUser", "/admin/workspaces/:workspaceId/users/:userId", {
        params: WorkspaceUserPath,
        success: RemovedMember,
        error: CommonErrors
      })
    )
) {}
