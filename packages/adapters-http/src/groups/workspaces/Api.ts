import { CreateWorkspace, Workspace } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { createEndpoint, listOf, PagingQuery, v1Group } from "../Common.ts"

export const CreatedWorkspace = Schema.Struct({
  ...Struct.pick(Workspace.fields, ["id", "slug"]),
  object: Schema.Literal("workspace")
})

export class WorkspacesGroup extends v1Group(
  HttpApiGroup.make("workspaces")
    .add(
      createEndpoint("create", "/workspaces", CreateWorkspace, CreatedWorkspace),
      HttpApiEndpoint.get("list", "/workspaces", {
        query: PagingQuery,
        success: listOf(Workspace),
        error: CommonErrors
      }),
      HttpApiEndpoint.get("get", "/workspaces/:workspaceId", {
        params: { workspaceId: Schema.String },
        success: Workspace,
        error: CommonErrors
      })
    )
) {}
