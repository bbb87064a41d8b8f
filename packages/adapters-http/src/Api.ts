/**
 * The HTTP contract of gateway-control, composed of its groups. Each group's definition sits beside its
 * handlers in `groups/<group>/` (`Api.ts` the endpoints and their Schemas, derived from the domain's models;
 * `Http.ts` the handlers). The OpenAPI document is generated from this definition.
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { ApiKeysGroup } from "./groups/apiKeys/Api.ts"
import { AuditLogsGroup } from "./groups/auditLogs/Api.ts"
import { CollectionsGroup } from "./groups/collections/Api.ts"
import { ConfigsGroup } from "./groups/configs/Api.ts"
import { FineTuningGroup } from "./groups/fineTuning/Api.ts"
import { IdentityProvidersGroup } from "./groups/identityProviders/Api.ts"
import { IntegrationsGroup } from "./groups/integrations/Api.ts"
import { InviteLinksGroup, InvitesGroup } from "./groups/invites/Api.ts"
import { LabelsGroup } from "./groups/labels/Api.ts"
import { SecondFactorGroup, SignInSettingsGroup } from "./groups/localAccounts/Api.ts"
import { McpConnectivityGroup } from "./groups/mcpConnectivity/Api.ts"
import { McpDirectoryGroup } from "./groups/mcpDirectory/Api.ts"
import { McpRegistryGroup } from "./groups/mcpRegistry/Api.ts"
import { PromptCompletionsGroup } from "./groups/promptCompletions/Api.ts"
import { PromptRenderGroup, PromptsGroup } from "./groups/prompts/Api.ts"
import { ProvidersGroup } from "./groups/providers/Api.ts"
import { ScimTokensGroup } from "./groups/scimTokens/Api.ts"
import { ScopesGroup } from "./groups/scopes/Api.ts"
import { SecretReferencesGroup } from "./groups/secretReferences/Api.ts"
import { SessionsGroup, SignInGroup } from "./groups/sessions/Api.ts"
import { SystemGroup } from "./groups/system/Api.ts"
import { TrustPoliciesGroup } from "./groups/trustPolicies/Api.ts"
import { UsersGroup } from "./groups/users/Api.ts"
import { VirtualKeysGroup } from "./groups/virtualKeys/Api.ts"
import { WorkspacesGroup } from "./groups/workspaces/Api.ts"
import { documentApiKeyAlias } from "./Security.ts"

export * from "./groups/apiKeys/Api.ts"
export * from "./groups/auditLogs/Api.ts"
export * from "./groups/collections/Api.ts"
export * from "./groups/Common.ts"
export * from "./groups/configs/Api.ts"
export * from "./groups/fineTuning/Api.ts"
export * from "./groups/identityProviders/Api.ts"
export * from "./groups/integrations/Api.ts"
export * from "./groups/invites/Api.ts"
export * from "./groups/labels/Api.ts"
export * from "./groups/mcpConnectivity/Api.ts"
export * from "./groups/mcpDirectory/Api.ts"
export * from "./groups/mcpRegistry/Api.ts"
export * from "./groups/promptCompletions/Api.ts"
export * from "./groups/prompts/Api.ts"
export * from "./groups/providers/Api.ts"
export * from "./groups/scimTokens/Api.ts"
export * from "./groups/scopes/Api.ts"
export * from "./groups/secretReferences/Api.ts"
export * from "./groups/sessions/Api.ts"
export * from "./groups/system/Api.ts"
export * from "./groups/trustPolicies/Api.ts"
export * from "./groups/users/Api.ts"
export * from "./groups/virtualKeys/Api.ts"
export * from "./groups/workspaces/Api.ts"

/** What HttpApi serves: every group but rendering, which a lean route serves. */
export class ServedApi extends HttpApi.make("gateway-control")
  .add(SystemGroup)
  .add(WorkspacesGroup)
  .add(ApiKeysGroup)
  .add(UsersGroup)
  .add(ScopesGroup)
  .add(AuditLogsGroup)
  .add(PromptsGroup)
  .add(LabelsGroup)
  .add(CollectionsGroup)
  .add(McpRegistryGroup)
  .add(McpConnectivityGroup)
  .add(McpDirectoryGroup)
  .add(FineTuningGroup)
  .add(PromptCompletionsGroup)
  .add(VirtualKeysGroup)
  .add(ConfigsGroup)
  .add(TrustPoliciesGroup)
  .add(SignInGroup)
  .add(SessionsGroup)
  .add(SecretReferencesGroup)
  .add(IntegrationsGroup)
  .add(ProvidersGroup)
  .add(IdentityProvidersGroup)
  .add(ScimTokensGroup)
  .add(InvitesGroup)
  .add(SignInSettingsGroup)
  .add(SecondFactorGroup)
  .add(InviteLinksGroup)
{}

/** The whole contract: what the OpenAPI document and the reference page describe. */
export class GatewayApi extends HttpApi.make("gateway-control")
  .addHttpApi(ServedApi)
  .add(PromptRenderGroup)
  .annotateMerge(
    OpenApi.annotations({
      title: "gateway-control",
      version: "2.0.0",
      description:
        "Control plane of an LLM API gateway: prompt rendering, MCP registry, fine-tuning job listing and API-key administration.",
      transform: documentApiKeyAlias
    })
  )
{}
