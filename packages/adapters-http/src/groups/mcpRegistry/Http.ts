import { type IntegrationView, McpRegistry, type ServerView } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

/** The view as `McpIntegrationView` encodes it. */
const integrationView = ({ integration, workspacesCount }: IntegrationView) => {
  const { owner_id, ...rest } = integration
  return { ...rest, ...(owner_id === null ? {} : { owner_id }), workspaces_count: workspacesCount }
}

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
      listServers: ({ query }) =>
        pageAsCaller(
          query,
          (principal, request) => registry.listServers(principal, query.workspace_id, query.search, request)
        )
    })
  })
)
