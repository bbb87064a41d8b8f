import { JsonObject } from "@gateway-control/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadGateway, CommonErrors, GatewayTimeout } from "../../ApiErrors.ts"
import { v1Group } from "../Common.ts"

export const FineTuningJobList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(JsonObject),
  has_more: Schema.Boolean
})

export class FineTuningGroup extends v1Group(
  HttpApiGroup.make("fineTuning")
    .add(
      HttpApiEndpoint.get("listJobs", "/fine_tuning/jobs", {
        query: {
          limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))),
          after: Schema.optionalKey(Schema.String)
        },
        success: FineTuningJobList,
        error: [...CommonErrors, BadGateway, GatewayTimeout]
      }).annotate(
        OpenApi.Description,
        "Lists fine-tuning jobs at the provider chosen by x-service-virtual-key, x-service-provider with Authorization, x-service-config, or those with x-service-custom-host (each also accepted as x-portkey-…). A non-2xx answer of the provider is passed through."
      )
    )
) {}
