import { CurrentPrincipal, FineTuning } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { BadRequest, badRequest, upstreamError, upstreamTimeout } from "../../ApiErrors.ts"
import { withService } from "../../internal/groupHandlers.ts"
import { listingRefusal, selectionFromHeaders } from "./ProviderHeaders.ts"

const principal = Effect.service(CurrentPrincipal)
const QUERY_PARAMETERS = new Set(["limit", "after"])

export const FineTuningHandlers = HttpApiBuilder.group(
  GatewayApi,
  "fineTuning",
  withService(FineTuning, (handlers, fineTuning) =>
    handlers.handleAll({
      listJobs: ({ query, request }) =>
        Effect.gen(function*() {
          const search = new URL(request.url, "http://gateway").searchParams
          const unknown = [...search.keys()].find((key) => !QUERY_PARAMETERS.has(key))
          if (unknown !== undefined) {
            return yield* Effect.fail(
              badRequest(`Unknown query parameter '${unknown}': only limit and after are accepted.`, unknown)
            )
          }
          const selection = selectionFromHeaders(request.headers)
          if (selection instanceof BadRequest) return yield* Effect.fail(selection)
          const answer = yield* fineTuning.listJobs(yield* principal, selection, {
            limit: query.limit ?? 20,
            after: query.after
          })
          if (answer._tag === "Listed") return answer.body
          // A provider's refusal (401, 429, …) reaches the client as the provider gave it.
          return HttpServerResponse.text(answer.answer.body, {
            status: answer.answer.status,
            contentType: answer.answer.contentType ?? "application/json"
          })
        }).pipe(
          Effect.catchTags({
            UpstreamUnreachable: (e) => Effect.fail(upstreamError(e.message)),
            UpstreamInvalid: (e) => Effect.fail(upstreamError(e.message)),
            UpstreamTimedOut: (e) => Effect.fail(upstreamTimeout(e.message)),
            InvalidRequest: (e) => Effect.fail(listingRefusal(e, request.headers)),
            NoProviderSelected: (e) => Effect.fail(listingRefusal(e, request.headers)),
            ProviderKeyMissing: (e) => Effect.fail(listingRefusal(e, request.headers)),
            StoredKeyElsewhere: (e) => Effect.fail(listingRefusal(e, request.headers)),
            Forbidden: (e) => Effect.fail(listingRefusal(e, request.headers)),
            NotFound: (e) => Effect.fail(listingRefusal(e, request.headers)),
            StoreError: (e) => Effect.fail(listingRefusal(e, request.headers))
          })
        )
    }))
)
