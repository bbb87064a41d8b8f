import {
  CreateConfig,
  CreateVirtualKey,
  GatewayConfig,
  JsonObject,
  UpdateConfig,
  UpdateVirtualKey,
  UsageLimits,
  VirtualKey
} from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadGateway, CommonErrors, GatewayTimeout } from "../../ApiErrors.ts"
import { ById, byRef, createEndpoint, deletedOf, listEndpoint, v1Group } from "../Common.ts"

export const FineTuningJobList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(JsonObject),
  has_more: Schema.Boolean
})

const createdFields = Struct.pick(VirtualKey.fields, ["id", "slug"])

/**
 * A virtual key as our API and Portkey's `VirtualKeys` schema and SDK describe it: `ai_provider_name` and
 * `masked_api_key` are Portkey's names of `provider` and `masked_key`; `usage_limits` is absent when there are
 * none; `status` is always `active` (a deleted key is gone).
 */
export const VirtualKeyAnswer = Schema.Struct({
  ...VirtualKey.fields,
  usage_limits: Schema.optionalKey(UsageLimits),
  ai_provider_name: Schema.String,
  masked_api_key: Schema.String,
  status: Schema.Literal("active"),
  object: Schema.Literal("virtual-key")
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
      listEndpoint("listVirtualKeys", "/virtual-keys", VirtualKeyAnswer),
      HttpApiEndpoint.get("getVirtualKey", "/virtual-keys/:id", byRef(ById, VirtualKeyAnswer)),
      HttpApiEndpoint.put("updateVirtualKey", "/virtual-keys/:id", {
        ...byRef(ById, VirtualKeyAnswer),
        payload: UpdateVirtualKey
      }).annotate(
        OpenApi.Description,
        "Changes the name, the provider key (stored encrypted) or the custom host. A new custom_host needs the key in the same request: a stored key only goes to the host it was stored with."
      ),
      HttpApiEndpoint.delete("deleteVirtualKey", "/virtual-keys/:id", byRef(ById, deletedOf("virtual-key"))),
      createEndpoint("createConfig", "/configs", CreateConfig, Schema.Struct(createdFields)),
      listEndpoint("listConfigs", "/configs", GatewayConfig),
      HttpApiEndpoint.get("getConfig", "/configs/:id", byRef(ById, GatewayConfig)),
      HttpApiEndpoint.put("updateConfig", "/configs/:id", {
        ...byRef(ById, Schema.Struct({ ...GatewayConfig.fields, object: Schema.Literal("config") })),
        payload: UpdateConfig
      }),
      HttpApiEndpoint.delete("deleteConfig", "/configs/:id", byRef(ById, deletedOf("config")))
    )
) {}
