import {
  CreateMcpIntegration,
  CreateMcpServer,
  McpIntegration,
  McpIntegrationListStatus,
  McpServer,
  SetMcpIntegrationWorkspaces,
  UpdateMcpIntegration,
  UpdateMcpServer
} from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import {
  ById,
  createEndpoint,
  deleteByIdEndpoint,
  deletedOf,
  getByIdEndpoint,
  pagedList,
  PagingQuery,
  updateEndpoint,
  v1Group
} from "../Common.ts"

/**
 * An integration as reads show it: without its organisation, with how many workspaces can use it, and without
 * `owner_id` when no user made it.
 */
export const McpIntegrationView = Schema.Struct({
  ...Struct.omit(McpIntegration.fields, ["organisation_id", "owner_id"]),
  /** Who created it; absent for a key acting as no user (Portkey declares a string, not null). */
  owner_id: Schema.optionalKey(Schema.String),
  workspaces_count: Schema.Int
})

/** A server as reads show it, with its integration's connection details for service keys. */
export const McpServerView = Schema.Struct({
  ...Struct.omit(McpServer.fields, ["organisation_id"]),
  mcp_integration_details: Schema.optionalKey(
    Schema.Struct(
      Struct.pick(McpIntegration.fields, ["id", "slug", "status", "url", "transport", "auth_type", "configurations"])
    ).annotate({ description: "Present for service keys (organisation-service, workspace-service) only." })
  )
})

/** A workspace as Portkey lists an integration's: whether the integration is open to it. */
export const McpIntegrationWorkspaceItem = Schema.Struct({
  id: Schema.String,
  enabled: Schema.Boolean,
  created_at: Schema.String,
  last_updated_at: Schema.String
})

/** Open to every workspace or not; null for a workspace-level integration. */
const GlobalWorkspaceAccess = Schema.NullOr(Schema.Struct({ enabled: Schema.Boolean }))

/** Portkey's two answers: `workspaces` (what its SDKs read), or with `?version=` the list envelope. */
export const McpIntegrationWorkspaces = Schema.Union([
  Schema.Struct({
    data: Schema.Array(McpIntegrationWorkspaceItem),
    total: Schema.Int,
    has_more: Schema.Boolean,
    global_workspace_access: GlobalWorkspaceAccess
  }),
  Schema.Struct({
    workspaces: Schema.Array(McpIntegrationWorkspaceItem),
    global_workspace_access: GlobalWorkspaceAccess
  })
])

const CreatedMcpEntity = Schema.Struct(Struct.pick(McpIntegration.fields, ["id", "slug"]))

export class McpRegistryGroup extends v1Group(
  HttpApiGroup.make("mcpRegistry")
    .add(
      createEndpoint("createIntegration", "/mcp-integrations", CreateMcpIntegration, CreatedMcpEntity),
      HttpApiEndpoint.get("listIntegrations", "/mcp-integrations", {
        query: {
          organisation_id: Schema.optionalKey(Schema.String),
          workspace_id: Schema.optionalKey(Schema.String),
          type: Schema.optionalKey(Schema.Literals(["workspace", "organisation", "all"])),
          status: Schema.optionalKey(McpIntegrationListStatus.annotate({
            description: "active (default): every integration in use, healthy or unhealthy; archived: the others."
          })),
          search: Schema.optionalKey(Schema.String),
          ...PagingQuery
        },
        success: pagedList(McpIntegrationView),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "MCP integrations of the organisation or workspace. organisation_id is required with an admin key."
      ),
      getByIdEndpoint("getIntegration", "/mcp-integrations/:id", McpIntegrationView),
      updateEndpoint("updateIntegration", "/mcp-integrations/:id", ById, UpdateMcpIntegration, McpIntegrationView),
      deleteByIdEndpoint("archiveIntegration", "/mcp-integrations/:id", McpIntegrationView).annotate(
        OpenApi.Description,
        "Archives the integration: hidden from lists unless status=archived is asked."
      ),
      HttpApiEndpoint.get("listIntegrationWorkspaces", "/mcp-integrations/:id/workspaces", {
        params: ById,
        query: { version: Schema.optionalKey(Schema.String) },
        success: McpIntegrationWorkspaces,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Every workspace of the organisation the key sees, and whether the integration is open to it. " +
          "Without `version`, as `{workspaces, global_workspace_access}` (Portkey's SDKs); with it, as a list."
      ),
      updateEndpoint(
        "setIntegrationWorkspaces",
        "/mcp-integrations/:id/workspaces",
        ById,
        SetMcpIntegrationWorkspaces,
        McpIntegrationView
      ).annotate(
        OpenApi.Description,
        "Opens or closes an organisation-level integration to the named workspaces (the update of workspace_ids " +
          "and global_workspace_access); the others keep their access unless override_existing_workspace_access."
      ),
      createEndpoint("createServer", "/mcp-servers", CreateMcpServer, CreatedMcpEntity),
      HttpApiEndpoint.put("updateServer", "/mcp-servers/:mcpServerId", {
        params: { mcpServerId: Schema.String },
        payload: UpdateMcpServer,
        success: McpServerView,
        error: CommonErrors
      }).annotate(OpenApi.Description, "Renames the server or changes its description (null clears it)."),
      HttpApiEndpoint.delete("deleteServer", "/mcp-servers/:mcpServerId", {
        params: { mcpServerId: Schema.String },
        success: deletedOf("mcp_server"),
        error: CommonErrors
      }).annotate(OpenApi.Description, "Deletes the server; its integration stays."),
      HttpApiEndpoint.get("getServer", "/mcp-servers/:mcpServerId", {
        params: { mcpServerId: Schema.String },
        query: { workspace_id: Schema.optionalKey(Schema.String) },
        success: McpServerView,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "One MCP server by UUID or slug (a slug is looked up in the caller's workspace, or workspace_id with an admin key)."
      ),
      HttpApiEndpoint.get("listServers", "/mcp-servers", {
        query: {
          workspace_id: Schema.optionalKey(Schema.String),
          search: Schema.optionalKey(Schema.String),
          ...PagingQuery
        },
        success: pagedList(McpServerView),
        error: CommonErrors
      })
    )
) {}
