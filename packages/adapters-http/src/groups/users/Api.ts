import { AddMember, CreateUser, User, WorkspaceMember } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { created, createEndpoint, listOf, PagingQuery, v1Group } from "../Common.ts"

export const CreatedUser = Schema.Struct({ ...Struct.pick(User.fields, ["id"]), object: Schema.Literal("user") })

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

export class UsersGroup extends v1Group(
  HttpApiGroup.make("users")
    .add(
      createEndpoint("create", "/users", CreateUser, CreatedUser),
      HttpApiEndpoint.get("list", "/users", { query: PagingQuery, success: listOf(User), error: CommonErrors }),
      HttpApiEndpoint.post("addMember", "/workspaces/:workspaceId/members", {
        params: MemberPath,
        payload: AddMember,
        success: AddedMember,
        error: CommonErrors
      }),
      HttpApiEndpoint.get("listMembers", "/workspaces/:workspaceId/members", {
        params: MemberPath,
        query: PagingQuery,
        success: listOf(WorkspaceMember),
        error: CommonErrors
      }),
      HttpApiEndpoint.delete("removeMember", "/workspaces/:workspaceId/members/:userId", {
        params: { ...MemberPath, userId: Schema.String },
        success: RemovedMember,
        error: CommonErrors
      })
    )
) {}
