import { CurrentPrincipal, hasMore, type IntegrationView, McpRegistry, type ServerView } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../Api.ts"
import { fromDomain } from "../ApiErrors.ts"
import { audited } from "../internal/audited.ts"
import { pageOf } from "../internal/listing.ts"

const principal = Effect.service(CurrentPrincipal)

const integrationJson = ({ integration: i, workspacesCount }: IntegrationView) => ({
  id: i.id,
  name: i.name,
  slug: i.slug,
  owner_id: i.owner_id,
  status: i.status,
  url: i.url,
  description: i.description,
  workspace_id: i.workspace_id,
  workspaces_count: workspacesCount,
  configurations: i.configurations,
  created_at: i.created_at,
  last_updated_at: i.last_updated_at,
  secret_mappings: i.secret_mappings,
  auth_type: i.auth_type,
  transport: i.transport,
  global_workspace_access: i.global_workspace_access,
  workspace_ids: i.workspace_ids
})

const serverJson = (server: ServerView["server"]) => ({
  id: server.id,
  slug: server.slug,
  name: server.name,
  status: server.status,
  description: server.description,
  created_at: server.created_at,
  mcp_integration_id: server.mcp_integration_id,
  workspace_id: server.workspace_id
})

export const McpHandlers = HttpApiBuilder.group(
  GatewayApi,
  "mcp",
  Effect.fnUntraced(function*(handlers) {
    const registry = yield* McpRegistry
    const withCount = (p: Parameters<typeof registry.getIntegration>[0], id: string) => registry.getIntegration(p, id)
    return handlers.handleAll({
      createIntegration: ({ payload }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "create",
            resourceType: "mcp_integration",
            resourceId: (i) => i.id,
            workspaceId: (i) => i.workspace_id,
            status: 201,
            body: payload
          }, registry.createIntegration(p, payload))).pipe(
            Effect.map((i) => ({ id: i.id, slug: i.slug })),
            Effect.mapError(fromDomain)
          ),
      listIntegrations: ({ query }) =>
        Effect.gen(function*() {
          const request = pageOf(query)
          const page = yield* registry.listIntegrations(yield* principal, {
            organisationId: query.organisation_id,
            workspaceId: query.workspace_id,
            type: query.type ?? "all",
            status: query.status ?? "active",
            search: query.search
          }, request)
          return { data: page.items.map(integrationJson), total: page.total, has_more: hasMore(page, request) }
        }).pipe(Effect.mapError(fromDomain)),
      getIntegration: ({ params }) =>
        Effect.flatMap(principal, (p) => withCount(p, params.id)).pipe(
          Effect.map(integrationJson),
          Effect.mapError(fromDomain)
        ),
      updateIntegration: ({ params, payload }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "update",
            resourceType: "mcp_integration",
            resourceId: (i) => i.id,
            workspaceId: (i) => i.workspace_id,
            status: 200,
            body: payload
          }, registry.updateIntegration(p, params.id, payload)).pipe(Effect.flatMap((i) => withCount(p, i.id)))).pipe(
            Effect.map(integrationJson),
            Effect.mapError(fromDomain)
          ),
      archiveIntegration: ({ params }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "archive",
            resourceType: "mcp_integration",
            resourceId: (i) => i.id,
            workspaceId: (i) => i.workspace_id,
            status: 200,
            body: null
          }, registry.archiveIntegration(p, params.id)).pipe(Effect.flatMap((i) => withCount(p, i.id)))).pipe(
            Effect.map(integrationJson),
            Effect.mapError(fromDomain)
          ),
      createServer: ({ payload }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "create",
            resourceType: "mcp_server",
            resourceId: (s) => s.id,
            workspaceId: (s) => s.workspace_id,
            status: 201,
            body: payload
          }, registry.createServer(p, payload))).pipe(
            Effect.map((s) => ({ id: s.id, slug: s.slug })),
            Effect.mapError(fromDomain)
          ),
      getServer: ({ params, query }) =>
        Effect.flatMap(principal, (p) => registry.getServer(p, params.mcpServerId, query.workspace_id)).pipe(
          Effect.map(({ integration: i, server, showIntegrationDetails }) =>
            showIntegrationDetails
              ? {
                ...serverJson(server),
                mcp_integration_details: {
                  id: i.id,
                  slug: i.slug,
                  status: i.status,
                  url: i.url,
                  transport: i.transport,
                  auth_type: i.auth_type,
                  configurations: i.configurations
                }
              }
              : serverJson(server)
          ),
          Effect.mapError(fromDomain)
        ),
      listServers: ({ query }) =>
        Effect.gen(function*() {
          const request = pageOf(query)
          const page = yield* registry.listServers(yield* principal, query.workspace_id, query.search, request)
          return { data: page.items.map(serverJson), total: page.total, has_more: hasMore(page, request) }
        }).pipe(Effect.mapError(fromDomain))
    })
  })
)
