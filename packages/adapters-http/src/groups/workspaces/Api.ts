import { CreateWorkspace, UpdateWorkspace, Workspace } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { createEndpoint, deletedOf, listOf, PagingQuery, updateEndpoint, v1Group } from "../Common.ts"

export const CreatedWorkspace = Schema.Struct({
  ...Struct.pick(Workspace.fields, ["id", "slug"]),
  object: Schema.Literal("workspace")
})

/** A workspace as both our API and Portkey's `Workspace` schema describe it. */
export const WorkspaceAnswer = Schema.Struct({ ...Workspace.fields, object: Schema.Literal("workspace") })

const WorkspacePath = { workspaceId: Schema.String }

export class WorkspacesGroup extends v1Group(
  HttpApiGroup.make("workspaces")
    .add(
      createEndpoint("create", "/workspaces", CreateWorkspace, CreatedWorkspace),
      HttpApiEndpoint.get("list", "/workspaces", {
        query: PagingQuery,
        success: listOf(WorkspaceAnswer),
        error: CommonErrors
      }),
      HttpApiEndpoint.get("get", "/workspaces/:workspaceId", {
        params: WorkspacePath,
        success: WorkspaceAnswer,
        error: CommonErrors
      }),
      // Portkey's paths (`/v1/admin/workspaces…`), which its SDKs call: the same use cases as the paths above.
      createEndpoint("adminCreate", "/admin/workspaces", CreateWorkspace, WorkspaceAnswer),
      HttpApiEndpoint.get("adminList", "/admin/workspaces", {
        query: {
          ...PagingQuery,
          name: Schema.optionalKey(Schema.String.annotate({ description: "Only names containing this (with case)." })),
          exact_name: Schema.optionalKey(Schema.String.annotate({ description: "Only this name, exactly." })),
          status: Schema.optionalKey(
            Schema.String.annotate({
              description: "active, archived, comma-separated; deleted workspaces are gone, so archived lists none."
            })
          )
        },
        success: listOf(WorkspaceAnswer),
        error: CommonErrors
      }),
      HttpApiEndpoint.get("adminGet", "/admin/workspaces/:workspaceId", {
        params: WorkspacePath,
        success: WorkspaceAnswer,
        error: CommonErrors
      }),
      updateEndpoint("update", "/admin/workspaces/:workspaceId", WorkspacePath, UpdateWorkspace, WorkspaceAnswer),
      HttpApiEndpoint.delete("delete", "/admin/workspaces/:workspaceId", {
        params: WorkspacePath,
        query: {
          force: Schema.optionalKey(
            Schema.Literals(["true", "false"]).annotate({
              description: "true deletes a workspace that still holds resources: its active keys are revoked first."
            })
          )
        },
        success: deletedOf("workspace"),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Deletes an empty workspace; one that holds keys, prompts, partials, virtual keys, configs or MCP " +
          "integrations or servers answers 409 naming them, unless ?force=true."
      )
    )
) {}
