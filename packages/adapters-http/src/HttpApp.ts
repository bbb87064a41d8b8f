/**
 * Every route of the service, with the edge middleware around them, ready for `HttpRouter.serve`.
 * Needs the domain services; knows nothing of storage.
 */
import { Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "./Api.ts"
import { layerDocs } from "./Docs.ts"
import { type EdgeOptions, layerEdge } from "./Edge.ts"
import { ApiKeysHandlers } from "./handlers/ApiKeys.ts"
import { AuditLogsHandlers } from "./handlers/AuditLogs.ts"
import { McpHandlers } from "./handlers/Mcp.ts"
import { PromptsHandlers } from "./handlers/Prompts.ts"
import { ProvidersHandlers } from "./handlers/Providers.ts"
import { ScopesHandlers } from "./handlers/Scopes.ts"
import { SystemHandlers } from "./handlers/System.ts"
import { UsersHandlers } from "./handlers/Users.ts"
import { WorkspacesHandlers } from "./handlers/Workspaces.ts"
import { ApiKeyAuthLive } from "./Security.ts"

export const OPENAPI_PATH = "/v1/openapi.json"

export const layerRoutes = (options: EdgeOptions) =>
  Layer.mergeAll(
    HttpApiBuilder.layer(GatewayApi, { openapiPath: OPENAPI_PATH }).pipe(
      Layer.provide([
        SystemHandlers,
        WorkspacesHandlers,
        ApiKeysHandlers,
        UsersHandlers,
        ScopesHandlers,
        AuditLogsHandlers,
        PromptsHandlers,
        McpHandlers,
        ProvidersHandlers
      ]),
      Layer.provide(ApiKeyAuthLive)
    ),
    layerDocs
  ).pipe(Layer.provide(layerEdge(options)))
