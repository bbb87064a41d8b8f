import { JsonObject, PromptDraft } from "@gateway-control/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadGateway, CommonErrors, GatewayTimeout } from "../../ApiErrors.ts"
import { v1Group } from "../Common.ts"

/**
 * Portkey's prompt completions: a saved prompt rendered, then sent to the model through the provider the headers
 * choose. The answer is the provider's, passed through (JSON, or server-sent events with `stream: true`).
 */
export class PromptCompletionsGroup extends v1Group(
  HttpApiGroup.make("promptCompletions")
    .add(
      HttpApiEndpoint.post("complete", "/prompts/:promptId/completions", {
        params: { promptId: Schema.String },
        payload: JsonObject.annotate({
          description:
            "variables (object, required), stream (boolean), and any chat-completion or completion field at the root, as for render."
        }),
        success: JsonObject,
        error: [...CommonErrors, BadGateway, GatewayTimeout]
      }).annotate(
        OpenApi.Description,
        "Renders a saved prompt (`promptId`: id or slug, optionally with @N, @latest or @label) and sends the rendered request to the model: chat templates to {base}/chat/completions, completion templates to {base}/completions, at the provider chosen by x-service-provider: @<provider slug>, x-service-virtual-key, x-service-provider with Authorization, x-service-config, or those with x-service-custom-host (each also accepted as x-portkey-…). A stored provider key only goes to the host stored with it. The provider's answer passes through as it comes: a JSON completion, or with `stream: true` its server-sent events, ended by `data: [DONE]`; a client that closes the connection cancels the provider's request. x-service-missing-variables as for render."
      ),
      HttpApiEndpoint.post("completeDraft", "/prompts/:promptId/completions/draft", {
        params: { promptId: Schema.String },
        payload: Schema.Struct({
          draft: PromptDraft,
          request: JsonObject.annotate({ description: "The body of a completion: variables, stream, request fields." })
        }),
        success: JsonObject,
        error: [...CommonErrors, BadGateway, GatewayTimeout]
      }).annotate(
        OpenApi.Description,
        "Runs an unsaved edit of the version `promptId` names (as for completions): `draft` holds the fields that differ (string, model, parameters, type, is_raw_template), `request` the completion's body. Nothing is saved. Needs prompts.update on the prompt besides what completions need."
      )
    )
) {}
