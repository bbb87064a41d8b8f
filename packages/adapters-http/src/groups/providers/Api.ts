import { GatewayConfig, JsonObject, VirtualKey } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadGateway, CommonErrors, GatewayTimeout } from "../../ApiErrors.ts"
import { createEndpoint, deleteByIdEndpoint, deletedOf, getByIdEndpoint, listEndpoint, v1Group } from "../Common.ts"

export const FineTuningJobList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(JsonObject),
  has_more: Schema.Boolean
})

/** A new credential's name, slug (made from the name when absent) and workspace (the caller's by default). */
const credentialFields = {
  ...Struct.pick(VirtualKey.fields, ["name"]),
  slug: Schema.optionalKey(VirtualKey.fields.slug),
  workspace_id: Schema.optionalKey(Schema.String)
}

export const CreateVirtualKey = Schema.Struct({
  ...credentialFields,
  ...Struct.pick(VirtualKey.fields, ["provider"]),
  key: Schema.String,
  custom_host: Schema.optionalKey(Schema.String)
})

export const CreateConfig = Schema.Struct({
  ...credentialFields,
  config: JsonObject.annotate({
    description:
      "provider + api_key, or virtual_key; optionally custom_host and request_timeout (ms). One target at most."
  })
})

const createdFields = Struct.pick(VirtualKey.fields, ["id", "slug"])

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
      getByIdEndpoint("getVirtualKey", "/virtual-keys/:id", VirtualKey),
      deleteByIdEndpoint("deleteVirtualKey", "/virtual-keys/:id", deletedOf("virtual-key")),
      createEndpoint("createConfig", "/configs", CreateConfig, Schema.Struct(createdFields)),
      listEndpoint("listConfigs", "/configs", GatewayConfig),
      getByIdEndpoint("getConfig", "/configs/:id", GatewayConfig),
      deleteByIdEndpoint("deleteConfig", "/configs/:id", deletedOf("config"))
    )
) {}
