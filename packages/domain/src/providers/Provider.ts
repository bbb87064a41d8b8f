/**
 * A provider (Portkey's `/providers`): a workspace's handle on an integration it may use, under a slug of its
 * own, addressed as `@slug` (`x-portkey-provider: @openai-prod`, a config's `provider: "@openai-prod"`), with
 * optional limits and a restriction to some of the integration's models. It holds no secret: calls take the
 * integration's credential, which goes only to the integration's destination.
 */
import { Schema, Struct } from "effect"
import { RateLimit } from "../credentials/ApiKey.ts"
import { UsageLimits } from "../credentials/UsageLimits.ts"
import { Description, Name, Slug } from "../shared/Rules.ts"

export const ProviderStatus = Schema.Literals(["active", "exhausted", "expired"])

export class Provider extends Schema.Class<Provider>("Provider")({
  id: Schema.String,
  organisation_id: Schema.String,
  workspace_id: Schema.String,
  /** The integration's id. */
  integration_id: Schema.String,
  name: Name,
  /** Unique in the workspace, with the virtual keys' slugs: `@slug` names one or the other. */
  slug: Slug,
  note: Schema.NullOr(Description),
  /** `expired` once `expires_at` has passed (decided when read); a provider is never `exhausted` here. */
  status: ProviderStatus,
  /** Portkey's usage limits: kept and returned, not counted against. */
  usage_limits: Schema.NullOr(UsageLimits),
  rate_limits: Schema.NullOr(Schema.Array(RateLimit)),
  expires_at: Schema.NullOr(Schema.String),
  /** The integration's models this provider may use; null: every model the integration allows. */
  models: Schema.NullOr(Schema.Array(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)))),
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/**
 * The provider a model name selects, Portkey's model catalog form `"model": "@slug/name"`: the workspace's
 * provider `slug` (as `x-portkey-provider: @slug` does) and the model's own `name`, what the provider is sent;
 * undefined for a plain model name. Pure.
 */
export const modelProviderOf = (model: unknown): { readonly slug: string; readonly model: string } | undefined => {
  if (typeof model !== "string" || !model.startsWith("@")) return undefined
  const slash = model.indexOf("/")
  return slash <= 1 || slash === model.length - 1
    ? undefined
    : { slug: model.slice(1, slash), model: model.slice(slash + 1) }
}

/** A new provider: Portkey's create body. `integration_id` names the integration by slug or id. */
export const CreateProvider = Schema.Struct({
  ...Struct.pick(Provider.fields, ["name", "integration_id"]),
  slug: Schema.optionalKey(Provider.fields.slug),
  workspace_id: Schema.optionalKey(Schema.String),
  note: Schema.optionalKey(Provider.fields.note),
  usage_limits: Schema.optionalKey(Provider.fields.usage_limits),
  rate_limits: Schema.optionalKey(Provider.fields.rate_limits),
  expires_at: Schema.optionalKey(Provider.fields.expires_at),
  models: Schema.optionalKey(Provider.fields.models)
})
export type CreateProvider = typeof CreateProvider.Type

/** A change (null clears `note`, `usage_limits`, `rate_limits`, `expires_at` or `models`). */
export const UpdateProvider = Schema.Struct({
  name: Schema.optionalKey(Provider.fields.name),
  /** Only `false` is taken: no usage is counted here, so there is none to reset. */
  reset_usage: Schema.optionalKey(Schema.Boolean),
  ...Struct.pick(CreateProvider.fields, ["note", "usage_limits", "rate_limits", "expires_at", "models"])
})
export type UpdateProvider = typeof UpdateProvider.Type
