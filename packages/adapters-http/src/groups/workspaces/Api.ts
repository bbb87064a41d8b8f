import { Workspace } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { RequestInputRules } from "../../InputRules.ts"
import { ApiKeyAuth } from "../../Security.ts"
import { created, Description, listOf, PagingQuery } from "../Common.ts"

export const CreateWorkspace = Schema.Struct({
  ...Struct.pick(Workspace.fields, ["name"]),
  slug: Schema.optionalKey(Workspace.fields.slug),
  description: Schema.optionalKey(Description)
})

export const CreatedWorkspace = created(Schema.Struct({
  ...Struct.pick(Workspace.fields, ["id", "slug"]),
  object: Schema.Literal("workspace")
}))

// Every /v1 group declares `RequestInputRules` and then `ApiKeyAuth`: HttpApi runs the middleware declared last
// first, so the key is checked before the body is read and held to the input rules (InputRules.ts).

export class WorkspacesGroup extends HttpApiGroup.make("workspaces")
  .add(
    HttpApiEndpoint.post("create", "/workspaces", {
      payload: CreateWorkspace,
      success: CreatedWorkspace,
      error: CommonErrors
    }),
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
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}
