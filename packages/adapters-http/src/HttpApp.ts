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
import { ConfigsHandlers } from "./groups/configs/Http.ts"
import { FineTuningHandlers } from "./groups/fineTuning/Http.ts"
import { IdentityProvidersHandlers } from "./groups/identityProviders/Http.ts"
import { layerSignInRoutes } from "./groups/identityProviders/SignInRoutes.ts"
import { IntegrationsHandlers } from "./groups/integrations/Http.ts"
import { InvitesHandlers, layerInviteLinksHandlers } from "./groups/invites/Http.ts"
import { LabelsHandlers } from "./groups/labels/Http.ts"
import { SecondFactorHandlers, SignInSettingsHandlers } from "./groups/localAccounts/Http.ts"
import { McpConnectivityHandlers } from "./groups/mcpConnectivity/Http.ts"
import { McpDirectoryHandlers } from "./groups/mcpDirectory/Http.ts"
import { McpRegistryHandlers } from "./groups/mcpRegistry/Http.ts"
import { PromptCompletionsHandlers } from "./groups/promptCompletions/Http.ts"
import { PromptsHandlers } from "./groups/prompts/Http.ts"
import { layerRenderRoute } from "./groups/prompts/RenderRoute.ts"
import { ProvidersHandlers } from "./groups/providers/Http.ts"
import { layerScimRoute } from "./groups/scim/ScimRoute.ts"
import { ScimTokensHandlers } from "./groups/scimTokens/Http.ts"
import { ScopesHandlers } from "./groups/scopes/Http.ts"
import { SecretReferencesHandlers } from "./groups/secretReferences/Http.ts"
import { layerSessionsHandlers, layerSignInHandlers } from "./groups/sessions/Http.ts"
import { SystemHandlers } from "./groups/system/Http.ts"
import { TrustPoliciesHandlers } from "./groups/trustPolicies/Http.ts"
import { layerTokenRoute } from "./groups/trustPolicies/TokenRoute.ts"
import { UsersHandlers } from "./groups/users/Http.ts"
import { VirtualKeysHandlers } from "./groups/virtualKeys/Http.ts"
import { WorkspacesHandlers } from "./groups/workspaces/Http.ts"
import { layerPathAndQueryRules, RequestInputRulesLive } from "./InputRulesLive.ts"
import { layerApiKeyAuth } from "./SecurityLive.ts"

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
        McpRegistryHandlers,
        McpConnectivityHandlers,
        McpDirectoryHandlers,
        FineTuningHandlers,
        PromptCompletionsHandlers,
        VirtualKeysHandlers,
        ConfigsHandlers,
        TrustPoliciesHandlers,
        layerSignInHandlers({ trustProxy: options.trustProxy, publicUrl: options.publicUrl }),
        layerSessionsHandlers({ trustProxy: options.trustProxy, publicUrl: options.publicUrl }),
        SecretReferencesHandlers,
        IntegrationsHandlers,
        ProvidersHandlers,
        IdentityProvidersHandlers,
        ScimTokensHandlers,
        InvitesHandlers,
        SignInSettingsHandlers,
        SecondFactorHandlers,
        layerInviteLinksHandlers({ trustProxy: options.trustProxy, publicUrl: options.publicUrl })
      ]),
      Layer.provide([
        layerApiKeyAuth({ trustProxy: options.trustProxy, publicUrl: options.publicUrl }),
        RequestInputRulesLive
      ])
    ),
    Layer.mergeAll(
      layerRenderRoute(options),
      layerTokenRoute(options),
      layerScimRoute(options),
      layerSignInRoutes({ trustProxy: options.trustProxy, publicUrl: options.publicUrl }),
      layerOpenApi,
      layerDocs
    ).pipe(
      Layer.provide(layerPathAndQueryRules)
    )
  ).pipe(Layer.provide(layerEdge(options)))
