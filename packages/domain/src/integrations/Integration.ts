/**
 * An integration (Portkey's `/integrations`): an organisation's credential for one AI provider (an OpenAI key,
 * an Azure OpenAI resource and its deployments, a Bedrock login, a Vertex AI service account, …), at
 * organisation level and shared with the workspaces it names, or a workspace's own. Workspaces use it through
 * their providers (providers/).
 *
 * One schema for the entity; what callers give derives from it. The credential (`key`) and the secret fields of
 * `configurations` are write-only: the record carries them masked (`masked_key`, `masked_<field>`), and the store
 * keeps them encrypted beside it (`StoredIntegration`), or the record maps them to a secret reference
 * (`secret_mappings`), fetched only when the integration is used.
 */
import { Schema, Struct } from "effect"
import { RateLimit } from "../credentials/ApiKey.ts"
import { UsageLimits } from "../credentials/UsageLimits.ts"
import { JsonObject } from "../prompts/Prompt.ts"
import { Description, Name, Slug } from "../shared/Rules.ts"
import { unsupportedFields } from "../shared/Unsupported.ts"

/**
 * Portkey's request fields this gateway does not act on, refused by name when sent: default providers (a
 * workspace makes its providers itself; `create_default_provider: false` is accepted), pricing (the control plane
 * counts no cost), a usage reset (no usage is counted).
 */
export const UNSUPPORTED_INTEGRATION_FIELDS = ["default_provider_slug", "pricing_adjustments"] as const
export const UNSUPPORTED_MODEL_FIELDS = ["configurations", "pricing_config"] as const
export const UNSUPPORTED_WORKSPACE_FIELDS = ["default_provider_slug", "reset_usage"] as const

/** The provider types an integration may be of: Portkey's `ai_provider_id`. */
export const IntegrationProviderIds = [
  "openai",
  "azure-openai",
  "bedrock",
  "vertex-ai",
  "together-ai",
  "fireworks-ai"
] as const
export const AiProviderId = Schema.Literals(IntegrationProviderIds)
export type AiProviderId = typeof AiProviderId.Type

/** Providers whose API is OpenAI's (fine-tuning included): their calls go to a base URL, or a custom one. */
export const OPENAI_COMPATIBLE: ReadonlySet<AiProviderId> = new Set(["openai", "together-ai", "fireworks-ai"])

/** The secret fields of `configurations`, by provider type: stored encrypted, answered as `masked_<field>`. */
export const CONFIGURATION_SECRETS = [
  "azure_entra_client_secret",
  "aws_secret_access_key",
  "vertex_service_account_json",
  "custom_headers"
] as const
export type ConfigurationSecret = typeof CONFIGURATION_SECRETS[number]

/** The fields of a creation or update body that hold secrets: never stored, logged or audited in clear. */
export const INTEGRATION_SECRET_FIELDS: ReadonlyArray<ReadonlyArray<string>> = [
  ["key"],
  ...CONFIGURATION_SECRETS.map((field) => ["configurations", field])
]

/** What a masked secret reads as. */
export const MASKED = "********"

/** Portkey's `SecretMapping`: a secret field of the integration taken from a secret reference when it is used. */
export const IntegrationSecretMapping = Schema.Struct({
  /** `key`, or `configurations.<secret field>`. */
  target_field: Schema.String,
  /** The reference's id or slug. */
  secret_reference_id: Schema.String,
  /** The field of a JSON secret, instead of the reference's own `secret_key`. */
  secret_key: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type IntegrationSecretMapping = typeof IntegrationSecretMapping.Type

/** A workspace's access to an organisation-level integration, with its limits (kept and returned, not counted). */
export const IntegrationWorkspaceAccess = Schema.Struct({
  /** The workspace's id. */
  id: Schema.String,
  enabled: Schema.Boolean,
  usage_limits: Schema.NullOr(Schema.Array(UsageLimits).check(Schema.isMaxLength(1))),
  rate_limits: Schema.NullOr(Schema.Array(RateLimit).check(Schema.isMaxLength(1)))
})
export type IntegrationWorkspaceAccess = typeof IntegrationWorkspaceAccess.Type

/** Portkey's `GlobalWorkspaceAccess`: open to every workspace, present and future, with default limits. */
export const GlobalWorkspaceAccess = Schema.Struct({
  enabled: Schema.Boolean,
  usage_limits: Schema.optionalKey(Schema.NullOr(Schema.Array(UsageLimits).check(Schema.isMaxLength(1)))),
  rate_limits: Schema.optionalKey(Schema.NullOr(Schema.Array(RateLimit).check(Schema.isMaxLength(1))))
})
export type GlobalWorkspaceAccess = typeof GlobalWorkspaceAccess.Type

/** A model the integration allows (Portkey's `IntegrationModel`, without pricing). */
export const IntegrationModel = Schema.Struct({
  slug: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)),
  enabled: Schema.Boolean,
  is_custom: Schema.optionalKey(Schema.NullOr(Schema.Boolean)),
  is_finetune: Schema.optionalKey(Schema.NullOr(Schema.Boolean)),
  base_model_slug: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type IntegrationModel = typeof IntegrationModel.Type

export const IntegrationStatus = Schema.Literals(["active", "archived"])

export class Integration extends Schema.Class<Integration>("Integration")({
  id: Schema.String,
  organisation_id: Schema.String,
  /** The workspace of a workspace-level integration; null at organisation level. */
  workspace_id: Schema.NullOr(Schema.String),
  name: Name,
  /** Unique in the organisation. */
  slug: Slug,
  ai_provider_id: AiProviderId,
  description: Schema.NullOr(Description),
  status: IntegrationStatus,
  /** The credential, masked; null when there is none (a mapped or keyless login). */
  masked_key: Schema.NullOr(Schema.String),
  /** The provider's own fields, checked per type; secret ones as `masked_<field>`. */
  configurations: JsonObject,
  secret_mappings: Schema.Array(IntegrationSecretMapping),
  /** Organisation level: open to every workspace, present and future. */
  global_workspace_access_settings: Schema.NullOr(GlobalWorkspaceAccess),
  /** Organisation level: the workspaces given access (or refused it), each with its limits. */
  workspaces: Schema.Array(IntegrationWorkspaceAccess),
  /** Every model of the provider allowed, or only the enabled ones of `models`. */
  allow_all_models: Schema.Boolean,
  models: Schema.Array(IntegrationModel),
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/** An integration as stored: the record, and its secrets (`key`, `configurations.<field>`) encrypted. */
export interface StoredIntegration {
  readonly record: Integration
  readonly encryptedSecrets: Readonly<Record<string, string>>
}

/** A new integration: Portkey's `CreateIntegrationRequest`. */
export const CreateIntegration = Schema.Struct({
  ...Struct.pick(Integration.fields, ["name", "ai_provider_id"]),
  slug: Schema.optionalKey(Integration.fields.slug),
  key: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Integration.fields.description),
  /** A workspace (id or slug) for a workspace-level integration; absent for organisation level. */
  workspace_id: Schema.optionalKey(Schema.String),
  configurations: Schema.optionalKey(JsonObject),
  secret_mappings: Schema.optionalKey(Integration.fields.secret_mappings),
  /** Only `false` is taken: a workspace makes its own providers. */
  create_default_provider: Schema.optionalKey(Schema.Boolean),
  ...unsupportedFields(UNSUPPORTED_INTEGRATION_FIELDS)
})
export type CreateIntegration = typeof CreateIntegration.Type

/**
 * A change: Portkey's `UpdateIntegrationRequest`. `configurations` replaces the
 * stored ones, its secret fields kept unless given again (or when the destination changes: the rule of stored
 * secrets); `secret_mappings` replaces the list.
 */
export const UpdateIntegration = Schema.Struct({
  ...Struct.map(Struct.pick(CreateIntegration.fields, ["name"]), Schema.optionalKey),
  ...Struct.pick(CreateIntegration.fields, ["key", "description", "configurations"]),
  secret_mappings: Schema.optionalKey(Integration.fields.secret_mappings),
  status: Schema.optionalKey(IntegrationStatus),
  pricing_adjustments: Schema.optionalKey(Schema.Unknown)
})
export type UpdateIntegration = typeof UpdateIntegration.Type

/** Portkey's `BulkUpdateWorkspacesRequest`, without default providers (a workspace makes its own providers). */
export const UpdateIntegrationWorkspaces = Schema.Struct({
  workspaces: Schema.optionalKey(Schema.Array(Schema.Struct({
    ...Struct.pick(IntegrationWorkspaceAccess.fields, ["id", "enabled"]),
    ...Struct.map(Struct.pick(IntegrationWorkspaceAccess.fields, ["usage_limits", "rate_limits"]), Schema.optionalKey),
    create_default_provider: Schema.optionalKey(Schema.Boolean),
    ...unsupportedFields(UNSUPPORTED_WORKSPACE_FIELDS)
  }))),
  create_default_provider: Schema.optionalKey(Schema.Boolean),
  ...unsupportedFields(["default_provider_slug"]),
  global_workspace_access: Schema.optionalKey(GlobalWorkspaceAccess),
  /** Replace the list of workspaces instead of merging the given ones into it (by id). */
  override_existing_workspace_access: Schema.optionalKey(Schema.Boolean)
})
export type UpdateIntegrationWorkspaces = typeof UpdateIntegrationWorkspaces.Type

/** Portkey's `BulkUpdateModelsRequest`: models merged in by slug. */
export const UpdateIntegrationModels = Schema.Struct({
  models: Schema.Array(Schema.Struct({ ...IntegrationModel.fields, ...unsupportedFields(UNSUPPORTED_MODEL_FIELDS) })),
  allow_all_models: Schema.optionalKey(Schema.Boolean)
})
export type UpdateIntegrationModels = typeof UpdateIntegrationModels.Type

/** Which integrations a list asks for. */
export interface IntegrationFilter {
  /** Only those this workspace may use: its own, and organisation-level ones open to it. */
  readonly usableBy: string | null
  readonly level: "workspace" | "organisation" | "all"
}
