import {
  type IntegrationView,
  McpRegistry,
  pageRequest,
  type ServerView,
  type UserAccessEntry
} from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"
import { listBody } from "../../internal/listing.ts"

/** The view as `McpIntegrationView` encodes it. */
const integrationView = ({ integration, workspacesCount }: IntegrationView) => {
  const { owner_id, ...rest } = integration
  return { ...rest, ...(owner_id === null ? {} : { owner_id }), workspaces_count: workspacesCount }
}

/** A member's access as Portkey's `McpServerUserAccessItem`. */
const userAccessItem = (entry: UserAccessEntry) => ({
  user_id: entry.user_id,
  email: entry.email,
  ...(entry.first_name === undefined ? {} : { first_name: entry.first_name }),
  ...(entry.last_name === undefined ? {} : { last_name: entry.last_name }),
  enabled: entry.enabled,
  has_override: entry.has_override,
  connection_status: entry.connected ? "connected" as const : "not_connected" as const
})

/** A person's connection as Portkey's `McpServerConnectionItem`. */
const connectionItem = (entry: UserAccessEntry) => ({
  user_id: entry.user_id,
  connected: entry.connected,
  ...(entry.created_at === undefined ? {} : { created_at: entry.created_at }),
  ...(entry.last_updated_at === undefined ? {} : { last_updated_at: entry.last_updated_at })
})

/** The view as `McpServerView` encodes it: the integration's details for service keys only. */
const serverView = ({ integration, server, showIntegrationDetails }: ServerView) =>
  showIntegrationDetails ? { ...server, mcp_integration_details: integration } : server

export const McpRegistryHandlers = HttpApiBuilder.group(
  GatewayApi,
  "mcpRegistry",
  withService(McpRegistry, (handlers, registry) => {
    /** An integration as the caller reads it, with the number of workspaces it is open to. */
    const integrationAsRead = (id: string) =>
      asCaller((principal) => registry.getIntegration(principal, id)).pipe(Effect.map(integrationView))
    return handlers.handleAll({
      createIntegration: ({ payload }) => asCaller((principal) => registry.createIntegration(principal, payload)),
      listIntegrations: ({ query }) =>
        pageAsCaller(query, (principal, request) =>
          registry.listIntegrations(principal, {
            organisationId: query.organisation_id,
            workspaceId: query.workspace_id,
            type: query.type ?? "all",
            status: query.status ?? "active",
            search: query.search
          }, request)).pipe(Effect.map((page) => ({ ...page, data: page.data.map(integrationView) }))),
      getIntegration: ({ params }) => integrationAsRead(params.id),
      // A change answers the integration as read after it, with its workspaces count.
      updateIntegration: ({ params, payload }) =>
        asCaller((principal) => registry.updateIntegration(principal, params.id, payload)).pipe(
          Effect.flatMap((integration) => integrationAsRead(integration.id))
        ),
      archiveIntegration: ({ params }) =>
        asCaller((principal) => registry.archiveIntegration(principal, params.id)).pipe(
          Effect.flatMap((integration) => integrationAsRead(integration.id))
        ),
      listIntegrationWorkspaces: ({ params, query }) =>
        asCaller((principal) => registry.integrationWorkspaces(principal, params.id)).pipe(
          Effect.map(({ integration, workspaces }) => {
            const items = workspaces.map(({ enabled, workspace }) => ({
              id: workspace.id,
              enabled,
              created_at: workspace.created_at,
              last_updated_at: workspace.last_updated_at
            }))
            const global_workspace_access = integration.workspace_id === null
              ? { enabled: integration.global_workspace_access }
              : null
            return query.version === undefined
              ? { workspaces: items, global_workspace_access }
              : { data: items, total: items.length, has_more: false, global_workspace_access }
          })
        ),
      setIntegrationWorkspaces: ({ params, payload }) =>
        asCaller((principal) => registry.setIntegrationWorkspaces(principal, params.id, payload)).pipe(
          Effect.flatMap((integration) => integrationAsRead(integration.id))
        ),
      updateServer: ({ params, payload }) =>
        asCaller((principal) => registry.updateServer(principal, params.mcpServerId, payload)),
      deleteServer: ({ params }) =>
        asCaller((principal) => registry.deleteServer(principal, params.mcpServerId)).pipe(
          Effect.map((server) => ({ id: server.id, object: "mcp_server" as const, deleted: true as const }))
        ),
      createServer: ({ payload }) => asCaller((principal) => registry.createServer(principal, payload)),
      getServer: ({ params, query }) =>
        asCaller((principal) => registry.getServer(principal, params.mcpServerId, query.workspace_id)).pipe(
          Effect.map(serverView)
        ),
      listServerUserAccess: ({ params, query }) =>
        asCaller((principal) => {
          const request = pageRequest(query.page_size ?? 100, (query.page ?? 1) - 1)
          return Effect.map(
            registry.listServerUserAccess(
              principal,
              params.mcpServerId,
              { search: query.search, workspaceId: query.workspace_id },
              request
            ),
            ({ default_user_access, page }) => ({
              ...listBody({ items: page.items.map(userAccessItem), total: page.total }, request),
              default_user_access
            })
          )
        }),
      updateServerUserAccess: ({ params, payload }) =>
        asCaller((principal) =>
          Effect.flatMap(
            registry.updateServerUserAccess(principal, params.mcpServerId, payload),
            (server) =>
              Effect.map(registry.checkServerUserAccess(principal, server.id), (access) => ({
                success: true as const,
                id: server.id,
                default_user_access: access.default_user_access
              }))
          )
        ),
      checkServerUserAccess: ({ params, query }) =>
        asCaller((principal) => registry.checkServerUserAccess(principal, params.mcpServerId, query.workspace_id)).pipe(
          Effect.map(({ default_user_access, enabled, has_override, server, user_id }) => ({
            object: "mcp_server_user_access" as const,
            server_id: server.id,
            ...(user_id === null ? {} : { user_id }),
            enabled,
            has_override,
            default_user_access
          }))
        ),
      listServerConnections: ({ params, query }) =>
        pageAsCaller(query, (principal, request) =>
          Effect.map(
            registry.listServerConnections(
              principal,
              params.mcpServerId,
              { userId: query.user_id, workspaceId: query.workspace_id },
              request
            ),
            (page) => ({ items: page.items.map(connectionItem), total: page.total })
          )),
      listServers: ({ query }) =>
        pageAsCaller(
          query,
          (principal, request) =>
            registry.listServers(
              principal,
              query.workspace_id,
              query.search,
              request,
              query.id?.split(",").map((id) => id.trim()).filter((id) => id !== "")
            )
        )
    })
  })
)
