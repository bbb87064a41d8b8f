import { CreateProvider, Description, Provider, RateLimit, UpdateProvider, UsageLimits } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ById, byRef, createEndpoint, deletedOf, listEndpoint, v1Group } from "../Common.ts"
import { CredentialHealthAnswer } from "../integrations/Api.ts"

/**
 * A provider as Portkey's `Providers` schema and its Node SDK describe it: `usage_limits`, `rate_limits`, `note`
 * and `expires_at` absent when none.
 */
export const ProviderAnswer = Schema.Struct({
  ...Struct.omit(Provider.fields, ["usage_limits", "rate_limits", "note", "expires_at"]),
  usage_limits: Schema.optionalKey(UsageLimits),
  rate_limits: Schema.optionalKey(Schema.Array(RateLimit)),
  note: Schema.optionalKey(Description),
  expires_at: Schema.optionalKey(Schema.String),
  /** The last check of its integration's credential, on a read of one provider; absent before the first. */
  credential_health: Schema.optionalKey(CredentialHealthAnswer),
  object: Schema.Literal("provider")
})

export class ProvidersGroup extends v1Group(
  HttpApiGroup.make("providers")
    .add(
      createEndpoint(
        "create",
        "/providers",
        CreateProvider,
        Schema.Struct({ ...Struct.pick(Provider.fields, ["id", "slug"]), object: Schema.Literal("provider") })
      ).annotate(
        OpenApi.Description,
        "A workspace's handle on an integration shared with it (integration_id: its slug or id), addressed as " +
          "@slug (x-portkey-provider, a config's provider) wherever a virtual key is; with optional limits (kept " +
          "and returned) and a restriction to some of the integration's models."
      ),
      listEndpoint("list", "/providers", ProviderAnswer),
      HttpApiEndpoint.get("get", "/providers/:id", byRef(ById, ProviderAnswer)),
      HttpApiEndpoint.put("update", "/providers/:id", { ...byRef(ById, ProviderAnswer), payload: UpdateProvider })
        .annotate(OpenApi.Description, "Changes the fields given; null clears one."),
      HttpApiEndpoint.delete("delete", "/providers/:id", byRef(ById, deletedOf("provider")))
    )
) {}
