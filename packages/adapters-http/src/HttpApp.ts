/**
 * Every route of the service, with the edge middleware around them, ready for `HttpRouter.serve`.
 * Needs the domain services; knows nothing of storage.
 */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, OpenApi } from "effect/http-api"
import { GatewayApi, ServedApi } from "./Api.ts"
import { layerDocs } from "./Docs.ts"
import { type EdgeOptions, layerEdge } from "./Edge.ts"
import { ApiKeysHandlers } from "./groups/apiKeys/Http.ts"
import { AuditLogsHandlers } from "./groups/auditLogs/Http.ts"
import { CollectionsHandlers } from "./groups/collections/Http.ts"
import { LabelsHandlers } from "./groups/labels/Http.ts"
import { McpHandlers } from "./groups/mcp/Http.ts"
import { McpLiveHandlers } from "./groups/mcpLive/Http.ts"
import { PromptsHandlers } from "./groups/prompts/Http.ts"
import { layerRenderRoute } from "./groups/prompts/RenderRoute.ts"
import { ProvidersHandlers } from "./groups/providers/Http.ts"
import { RegistryHandlers } from "./groups/registry/Http.ts"
import { ScopesHandlers } from "./groups/scopes/Http.ts"
import { SystemHandlers } from "./groups/system/Http.ts"
import { UsersHandlers } from "./groups/users/Http.ts"
import { WorkspacesHandlers } from "./groups/workspaces/Http.ts"
import { layerPathAndQueryRules, RequestInputRulesLive } from "./InputRulesLive.ts"
import { ApiKeyAuthLive } from "./SecurityLive.ts"

export const OPENAPI_PATH = "/v1/openapi.json"

/** The OpenAPI document of the whole contract, lean routes included; built on first request. */
const layerOpenApi = HttpRouter.use((router) => {
  let document: HttpServerResponse.HttpServerResponse | undefined
  return router.add(
    "GET",
    OPENAPI_PATH,
    Effect.sync(() => document ??= HttpServerResponse.jsonUnsafe(OpenApi.fromApi(GatewayApi)))
  )
})

export const layerRoutes = (options: EdgeOptions) =>
  Layer.mergeAll(
    HttpApiBuilder.layer(ServedApi).pipe(
      Layer.provide([
        SystemHandlers,
        WorkspacesHandlers,
        ApiKeysHandlers,
        UsersHandlers,
        ScopesHandlers,
        AuditLogsHandlers,
        PromptsHandlers,
        LabelsHandlers,
        CollectionsHandlers,
        McpHandlers,
        McpLiveHandlers,
        RegistryHandlers,
        ProvidersHandlers
      ]),
      Layer.provide([ApiKeyAuthLive, RequestInputRulesLive])
    ),
    Layer.mergeAll(layerRenderRoute(options), layerOpenApi, layerDocs).pipe(Layer.provide(layerPathAndQueryRules))
  ).pipe(Layer.provide(layerEdge(options)))
