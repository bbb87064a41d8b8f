import { JsonObject } from "@gateway-control/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadGateway, CommonErrors, GatewayTimeout } from "../../ApiErrors.ts"
import { v1Group } from "../Common.ts"

/** OpenAI's list wrapper; `first_id` and `last_id` where the provider gives them (checkpoints). */
export const FineTuningList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(JsonObject),
  has_more: Schema.Boolean,
  first_id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  last_id: Schema.optionalKey(Schema.NullOr(Schema.String))
})
const ListQuery = (limit: number) => ({
  limit: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 })).annotate({
      description: `How many (1-100; ${limit} when absent).`
    })
  ),
  after: Schema.optionalKey(Schema.String)
})

const JobId = { fine_tuning_job_id: Schema.String }
const errors = [...CommonErrors, BadGateway, GatewayTimeout]

const CHOICE = "at the provider chosen by x-service-provider: @slug (or x-service-virtual-key), x-service-provider " +
  "with Authorization, x-service-config, or those with x-service-custom-host (each also accepted as " +
  "x-portkey-…). A non-2xx answer of the provider is passed through."

export class FineTuningGroup extends v1Group(
  HttpApiGroup.make("fineTuning")
    .add(
      HttpApiEndpoint.get("listJobs", "/fine_tuning/jobs", {
        query: ListQuery(20),
        success: FineTuningList,
        error: errors
      }).annotate(OpenApi.Description, `Lists fine-tuning jobs ${CHOICE}`),
      HttpApiEndpoint.post("createJob", "/fine_tuning/jobs", {
        payload: JsonObject,
        success: JsonObject,
        error: errors
      }).annotate(
        OpenApi.Description,
        "Creates a fine-tuning job (OpenAI's body: model, training_file, hyperparameters, suffix, validation_file, " +
          `integrations, seed, method, metadata; Bedrock's job_name, role_arn, output_file, provider_options) ${CHOICE} ` +
          "Audited (fineTuning.createJob)."
      ),
      HttpApiEndpoint.get("retrieveJob", "/fine_tuning/jobs/:fine_tuning_job_id", {
        params: JobId,
        success: JsonObject,
        error: errors
      }).annotate(OpenApi.Description, `Reads a fine-tuning job ${CHOICE}`),
      HttpApiEndpoint.post("cancelJob", "/fine_tuning/jobs/:fine_tuning_job_id/cancel", {
        params: JobId,
        success: JsonObject,
        error: errors
      }).annotate(OpenApi.Description, `Cancels a fine-tuning job ${CHOICE} Audited (fineTuning.cancelJob).`),
      HttpApiEndpoint.get("listEvents", "/fine_tuning/jobs/:fine_tuning_job_id/events", {
        params: JobId,
        query: ListQuery(20),
        success: FineTuningList,
        error: errors
      }).annotate(OpenApi.Description, `Lists a fine-tuning job's events ${CHOICE}`),
      HttpApiEndpoint.get("listCheckpoints", "/fine_tuning/jobs/:fine_tuning_job_id/checkpoints", {
        params: JobId,
        query: ListQuery(10),
        success: FineTuningList,
        error: errors
      }).annotate(OpenApi.Description, `Lists a fine-tuning job's checkpoints ${CHOICE}`)
    )
) {}
