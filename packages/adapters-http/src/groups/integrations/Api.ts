import {
  CreateIntegration,
  CredentialHealth,
  Description,
  GlobalWorkspaceAccess,
  Integration,
  IntegrationModel,
  IntegrationWorkspaceAccess,
  UpdateIntegration,
  UpdateIntegrationModels,
  UpdateIntegrationWorkspaces
} from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { createEndpoint, deletedOf, listOf, PagingQuery, v1Group } from "../Common.ts"

/** An integration's credential health, as reads and tests show it. */
export const CredentialHealthAnswer = Schema.Struct(Struct.omit(CredentialHealth.fields, ["integration_id"]))

/**
 * An integration as Portkey's `IntegrationList` and `IntegrationDetailResponse` describe it: `description`,
 * `masked_key` and `global_workspace_access_settings` absent when there are none, with how many workspaces may
 * use it.
 */
export const IntegrationAnswer = Schema.Struct({
  ...Struct.omit(Integration.fields, ["description", "masked_key", "global_workspace_access_settings"]),
  description: Schema.optionalKey(Description),
  masked_key: Schema.optionalKey(Schema.String),
  global_workspace_access_settings: Schema.optionalKey(GlobalWorkspaceAccess),
  workspace_count: Schema.Int,
  /** The last check of its credential (CredentialHealthChecks.ts), on reads and lists alike; absent before the first. */
  credential_health: Schema.optionalKey(CredentialHealthAnswer),
  object: Schema.Literal("integration")
})

/** Portkey's `IntegrationWorkspacesResponse`. */
export const IntegrationWorkspacesAnswer = Schema.Struct({
  total: Schema.Int,
  workspaces: Schema.Array(IntegrationWorkspaceAccess)
})

/** Portkey's `IntegrationModelsResponse`: each model with its name (its slug). */
export const IntegrationModelsAnswer = Schema.Struct({
  total: Schema.Int,
  allow_all_models: Schema.Boolean,
  models: Schema.Array(Schema.Struct({ ...IntegrationModel.fields, name: Schema.String }))
})

const BySlug = { slug: Schema.String }

export const IntegrationListQuery = {
  workspace_id: Schema.optionalKey(
    Schema.String.annotate({ description: "Only the integrations this workspace (id or slug) may use." })
  ),
  type: Schema.optionalKey(
    Schema.Literals(["workspace", "organisation", "all"]).annotate({
      description: "workspace: workspace-level integrations only; organisation: organisation-level only; all (default)."
    })
  ),
  ...PagingQuery
}

export class IntegrationsGroup extends v1Group(
  HttpApiGroup.make("integrations")
    .add(
      createEndpoint(
        "create",
        "/integrations",
        CreateIntegration,
        Schema.Struct({ ...Struct.pick(Integration.fields, ["id", "slug"]), object: Schema.Literal("integration") })
      ).annotate(
        OpenApi.Description,
        "An organisation's credential for one AI provider (ai_provider_id openai, azure-openai, bedrock, vertex-ai, " +
          "together-ai or fireworks-ai), with the provider's own configurations, checked per type. Without " +
          "workspace_id it is organisation-level (admin keys) and shared with workspaces by PUT .../workspaces; with " +
          "one, the workspace's own. key and the secret configuration fields are write-only (answered masked), or " +
          "taken from a secret reference (secret_mappings)."
      ),
      HttpApiEndpoint.get("list", "/integrations", {
        query: IntegrationListQuery,
        success: listOf(IntegrationAnswer),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "The integrations a workspace may use, or an admin key's whole catalogue; each with its credential_health " +
          "once a check has run (the page's, read in one go)."
      ),
      HttpApiEndpoint.get("get", "/integrations/:slug", {
        params: BySlug,
        success: IntegrationAnswer,
        error: CommonErrors
      })
        .annotate(OpenApi.Description, "An integration by slug or id; its secrets masked."),
      HttpApiEndpoint.put("update", "/integrations/:slug", {
        params: BySlug,
        payload: UpdateIntegration,
        success: IntegrationAnswer,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Changes the fields given. configurations replaces the stored ones, keeping stored secret fields not given; " +
          "a change of destination (custom_host, Azure's resource, Bedrock's or Vertex's region) must give the " +
          "secrets again: a stored secret only goes to the destination it was stored with."
      ),
      HttpApiEndpoint.delete("delete", "/integrations/:slug", {
        params: BySlug,
        success: deletedOf("integration"),
        error: CommonErrors
      }),
      HttpApiEndpoint.get("getWorkspaces", "/integrations/:slug/workspaces", {
        params: BySlug,
        success: IntegrationWorkspacesAnswer,
        error: CommonErrors
      }).annotate(OpenApi.Description, "The workspaces given access, each with its usage and rate limits."),
      HttpApiEndpoint.put("updateWorkspaces", "/integrations/:slug/workspaces", {
        params: BySlug,
        payload: UpdateIntegrationWorkspaces,
        success: IntegrationWorkspacesAnswer,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Shares an organisation-level integration: workspaces (id or slug) merged in by id, or replacing the list " +
          "with override_existing_workspace_access; global_workspace_access opens it to every workspace. Limits " +
          "are kept and returned, not counted."
      ),
      HttpApiEndpoint.get("getModels", "/integrations/:slug/models", {
        params: BySlug,
        success: IntegrationModelsAnswer,
        error: CommonErrors
      }),
      HttpApiEndpoint.put("updateModels", "/integrations/:slug/models", {
        params: BySlug,
        payload: UpdateIntegrationModels,
        success: IntegrationModelsAnswer,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Models merged in by slug; allow_all_models allows every model of the provider."
      ),
      HttpApiEndpoint.post("test", "/integrations/:slug/test", {
        params: BySlug,
        success: CredentialHealthAnswer,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Tries the integration's credential now with a cheap authenticated call to its provider (listing its " +
          "models; OpenAI-compatible types), and answers the credential's health: active, failing (with the " +
          "provider's error) or expired. The provider refusing the credential is an answer, not an error. Audited."
      ),
      HttpApiEndpoint.delete("deleteModels", "/integrations/:slug/models", {
        params: BySlug,
        query: {
          slugs: Schema.String.check(Schema.isMinLength(1)).annotate({
            description: "Comma-separated slugs of custom models to remove."
          })
        },
        success: IntegrationModelsAnswer,
        error: CommonErrors
      })
    )
) {}
