import { CurrentPrincipal, PromptCompletions, type PromptDraft } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { BadRequest, fromDomain, upstreamError, upstreamTimeout } from "../../ApiErrors.ts"
import { withService } from "../../internal/groupHandlers.ts"
import { encodedHeaderList } from "../../internal/headerList.ts"
import { selectionFromHeaders, selectionRefusal } from "../fineTuning/ProviderHeaders.ts"

const principal = Effect.service(CurrentPrincipal)

/** The missing variables' names, as render answers them (RenderRoute.ts). */
const missingHeaders = (missing: ReadonlyArray<string>): Record<string, string> => {
  if (missing.length === 0) return {}
  const { omitted, value } = encodedHeaderList(missing)
  return {
    ...(value.length > 0 ? { "x-service-missing-variables": value } : {}),
    ...(omitted > 0 ? { "x-service-missing-variables-omitted": String(omitted) } : {})
  }
}

export const PromptCompletionsHandlers = HttpApiBuilder.group(
  GatewayApi,
  "promptCompletions",
  withService(PromptCompletions, (handlers, completions) => {
    const complete = (
      promptId: string,
      body: Record<string, unknown>,
      request: { readonly headers: Readonly<Record<string, string | undefined>> },
      draft?: PromptDraft
    ) =>
      Effect.gen(function*() {
        const selection = selectionFromHeaders(request.headers)
        if (selection instanceof BadRequest) return yield* Effect.fail(selection)
        const answer = yield* completions.complete(yield* principal, promptId, body, selection, draft)
        if (answer._tag === "Refused") {
          // A provider's refusal (401, 429, …) reaches the client as the provider gave it.
          return HttpServerResponse.text(answer.body, { status: answer.status, contentType: answer.contentType })
        }
        // The provider's connection lives in the request's scope: handed to the body, it closes when the stream
        // ends or the client goes away, which cancels the provider's request.
        return HttpEffect.scopeTransferToStream(
          HttpServerResponse.stream(answer.body, {
            status: answer.status,
            contentType: answer.contentType,
            headers: { "cache-control": "no-store", ...missingHeaders(answer.missingVariables) }
          })
        )
      }).pipe(
        Effect.catchTags({
          UpstreamUnreachable: (e) => Effect.fail(upstreamError(e.message)),
          UpstreamInvalid: (e) => Effect.fail(upstreamError(e.message)),
          UpstreamTimedOut: (e) => Effect.fail(upstreamTimeout(e.message)),
          InvalidRequest: (e) => Effect.fail(selectionRefusal(e, request.headers)),
          NoProviderSelected: (e) => Effect.fail(selectionRefusal(e, request.headers)),
          ProviderKeyMissing: (e) => Effect.fail(selectionRefusal(e, request.headers)),
          StoredKeyElsewhere: (e) => Effect.fail(selectionRefusal(e, request.headers)),
          Forbidden: (e) => Effect.fail(fromDomain(e)),
          NotFound: (e) => Effect.fail(fromDomain(e)),
          StoreError: (e) => Effect.fail(fromDomain(e))
        })
      )
    return handlers.handleAll({
      complete: ({ params, payload, request }) => complete(params.promptId, { ...payload }, request),
      completeDraft: ({ params, payload, request }) =>
        complete(params.promptId, { ...payload.request }, request, payload.draft)
    })
  })
)
