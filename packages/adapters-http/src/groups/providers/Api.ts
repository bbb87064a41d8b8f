import {
  ConfigVersion,
  CreateConfig,
  CreateVirtualKey,
  GatewayConfig,
  JsonObject,
  UpdateConfig,
  UpdateVirtualKey,
  VirtualKey
} from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadGateway, CommonErrors, GatewayTimeout } from "../../ApiErrors.ts"
import { ById, byRef, createEndpoint, deletedOf, listEndpoint, listOf, v1Group } from "../Common.ts"

export const FineTuningJobList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(JsonObject),
  has_more: Schema.Boolean
})

const createdFields = Struct.pick(VirtualKey.fields, ["id", "slug"])

/** A version of a config as Portkey lists them: the config's fields, the version's body serialized. */
export const ConfigVersionDetails = Schema.Struct({
  ...Struct.pick(GatewayConfig.fields, ["id", "organisation_id", "workspace_id", "slug", "is_default", "status"]),
  ...Struct.pick(ConfigVersion.fields, ["name", "version", "created_at"]),
  last_updated_at: GatewayConfig.fields.last_updated_at,
  config: Schema.String.annotate({ description: "The version's config, serialized as JSON (never its api_key)." }),
  format: Schema.Literal("json"),
  version_id: ConfigVersion.fields.id,
  object: Schema.Literal("config")
})

export class ProvidersGroup extends v1Group(
  HttpApiGroup.make("providers")
    .add(
      HttpApiEndpoint.get("listFineTuningJobs", "/fine_tuning/jobs", {
        query: {
          limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))),
          after: Schema.optionalKey(Schema.String)
        },
        success: FineTuningJobList,
        error: [...CommonErrors, BadGateway, GatewayTimeout]
      }).annotate(
        OpenApi.Description,
        "Lists fine-tuning jobs at the provider chosen by x-service-virtual-key, x-service-provider with Authorization, x-service-config, or those with x-service-custom-host (each also accepted as x-portkey-…). A non-2xx answer of the provider is passed through."
      ),
      createEndpoint(
        "createVirtualKey",
        "/virtual-keys",
        CreateVirtualKey,
        Schema.Struct({ ...createdFields, object: Schema.Literal("virtual-key") })
      ),
      listEndpoint("listVirtualKeys", "/virtual-keys", VirtualKey),
      HttpApiEndpoint.get("getVirtualKey", "/virtual-keys/:id", byRef(ById, VirtualKey)),
      HttpApiEndpoint.put("updateVirtualKey", "/virtual-keys/:id", {
        ...byRef(ById, Schema.Struct({ ...VirtualKey.fields, object: Schema.Literal("virtual-key") })),
        payload: UpdateVirtualKey
      }).annotate(
        OpenApi.Description,
        "Changes the name, the provider key (stored encrypted) or the custom host. A new custom_host needs the key in the same request: a stored key only goes to the host it was stored with."
      ),
      HttpApiEndpoint.delete("deleteVirtualKey", "/virtual-keys/:id", byRef(ById, deletedOf("virtual-key"))),
      createEndpoint(
        "createConfig",
        "/configs",
        CreateConfig,
        Schema.Struct({
          ...createdFields,
          ...Struct.pick(GatewayConfig.fields, ["version_id"]),
          object: Schema.Literal("config")
        })
      ),
      listEndpoint("listConfigs", "/configs", GatewayConfig),
      HttpApiEndpoint.get("getConfig", "/configs/:id", byRef(ById, GatewayConfig)),
      HttpApiEndpoint.put("updateConfig", "/configs/:id", {
        ...byRef(ById, Schema.Struct({ ...GatewayConfig.fields, object: Schema.Literal("config") })),
        payload: UpdateConfig
      }),
      HttpApiEndpoint.delete("deleteConfig", "/configs/:id", byRef(ById, deletedOf("config"))),
      HttpApiEndpoint.get("listConfigVersions", "/configs/:id/versions", byRef(ById, listOf(ConfigVersionDetails)))
        .annotate(
          OpenApi.Description,
          "The config's versions, oldest first: one per create and update, with the config then as serialized JSON (Portkey's shape)."
        )
    )
) {}
