import {
  CreateMcpIntegration,
  CreateMcpServer,
  McpIntegration,
  McpIntegrationListStatus,
  McpServer,
  McpUserAccessDefault,
  SetMcpIntegrationWorkspaces,
  UpdateMcpIntegration,
  UpdateMcpServer,
  UpdateMcpServerUserAccess
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
  listOf,
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

/** One member of a server's workspace and whether they may use it (Portkey's `McpServerUserAccessItem`). */
export const McpServerUserAccessItem = Schema.Struct({
  user_id: Schema.String,
  email: Schema.String,
  first_name: Schema.optionalKey(Schema.String),
  last_name: Schema.optionalKey(Schema.String),
  enabled: Schema.Boolean,
  has_override: Schema.Boolean,
  connection_status: Schema.Literals(["connected", "not_connected"])
})

/** A person connected to a server (Portkey's `McpServerConnectionItem`; derived, see the README). */
export const McpServerConnectionItem = Schema.Struct({
  user_id: Schema.String,
  connected: Schema.Boolean,
  /** When the person's access override was set, if they have one. */
  created_at: Schema.optionalKey(Schema.String),
  last_updated_at: Schema.optionalKey(Schema.String)
})

const ServerRef = { mcpServerId: Schema.String }
const ServerWorkspaceQuery = { workspace_id: Schema.optionalKey(Schema.String) }

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
      HttpApiEndpoint.get("listServerUserAccess", "/mcp-servers/:mcpServerId/user-access", {
        params: ServerRef,
        query: {
          ...ServerWorkspaceQuery,
          search: Schema.optionalKey(Schema.String.annotate({ description: "Part of a name or email, any case." })),
          page: Schema.optionalKey(
            Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({ description: "Page from 1; default 1." })
          ),
          page_size: Schema.optionalKey(
            Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 500 })).annotate({
              description: "Items per page, 1 to 500; default 100."
            })
          )
        },
        success: Schema.Struct({
          ...listOf(McpServerUserAccessItem).fields,
          default_user_access: McpUserAccessDefault
        }),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Who may use the server: every member of its workspace, with their override if any, and the server's default."
      ),
      HttpApiEndpoint.put("updateServerUserAccess", "/mcp-servers/:mcpServerId/user-access", {
        params: ServerRef,
        payload: UpdateMcpServerUserAccess,
        success: Schema.Struct({
          success: Schema.Literal(true),
          id: Schema.String,
          default_user_access: McpUserAccessDefault
        }),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Sets members' overrides (all or none; each a member of the server's workspace) and the default: a manager's change."
      ),
      HttpApiEndpoint.get("checkServerUserAccess", "/mcp-servers/:mcpServerId/user-access/check", {
        params: ServerRef,
        query: ServerWorkspaceQuery,
        success: Schema.Struct({
          object: Schema.Literal("mcp_server_user_access"),
          server_id: Schema.String,
          user_id: Schema.optionalKey(Schema.String),
          enabled: Schema.Boolean,
          has_override: Schema.Boolean,
          default_user_access: McpUserAccessDefault
        }),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Whether the calling key's user may use the server (keys acting as no user are not bound by user access)."
      ),
      HttpApiEndpoint.get("listServerConnections", "/mcp-servers/:mcpServerId/connections", {
        params: ServerRef,
        query: {
          ...ServerWorkspaceQuery,
          user_id: Schema.optionalKey(Schema.String),
          ...PagingQuery
        },
        success: listOf(McpServerConnectionItem),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "The members who may use the server; each connected when its integration needs no per-user authorisation."
      ),
      HttpApiEndpoint.get("listServers", "/mcp-servers", {
        query: {
          workspace_id: Schema.optionalKey(Schema.String),
          search: Schema.optionalKey(Schema.String),
          id: Schema.optionalKey(Schema.String.annotate({ description: "Only these servers: ids, comma-separated." })),
          ...PagingQuery
        },
        success: pagedList(McpServerView),
        error: CommonErrors
      })
    )
) {}
