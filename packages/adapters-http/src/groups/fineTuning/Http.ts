import {
  CurrentPrincipal,
  FineTuning,
  type FineTuningError,
  type InvalidRequest,
  type ProviderSelection
} from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { BadRequest, badRequest, upstreamError, upstreamTimeout } from "../../ApiErrors.ts"
import { withService } from "../../internal/groupHandlers.ts"
import { selectionFromHeaders, selectionRefusal } from "./ProviderHeaders.ts"

const principal = Effect.service(CurrentPrincipal)
const LIST_PARAMETERS: ReadonlySet<string> = new Set(["limit", "after"])
const NO_PARAMETERS: ReadonlySet<string> = new Set()

interface Request {
  readonly url: string
  readonly headers: Readonly<Record<string, string | undefined>>
}

/**
 * One call through the provider the request's headers choose: query parameters other than `allowed` refused,
 * the domain's refusals worded with the headers the client wrote, a provider's own refusal (401, 429, …) passed
 * through as it came.
 */
const through = <A>(
  request: Request,
  allowed: ReadonlySet<string>,
  run: (selection: ProviderSelection) => Effect.Effect<A, FineTuningError | InvalidRequest, CurrentPrincipal>
) =>
  Effect.gen(function*() {
    const search = new URL(request.url, "http://gateway").searchParams
    const unknown = [...search.keys()].find((key) => !allowed.has(key))
    if (unknown !== undefined) {
      const accepted = allowed.size === 0 ? "none is accepted" : `only ${[...allowed].join(" and ")} are accepted`
      return yield* Effect.fail(badRequest(`Unknown query parameter '${unknown}': ${accepted}.`, unknown))
    }
    const selection = selectionFromHeaders(request.headers)
    if (selection instanceof BadRequest) return yield* Effect.fail(selection)
    return yield* run(selection)
  }).pipe(
    Effect.catchTags({
      UpstreamRefused: (e) =>
        Effect.succeed(HttpServerResponse.text(e.body, {
          status: e.status,
          contentType: e.contentType ?? "application/json"
        })),
      UpstreamUnreachable: (e) => Effect.fail(upstreamError(e.message)),
      UpstreamInvalid: (e) => Effect.fail(upstreamError(e.message)),
      UpstreamTimedOut: (e) => Effect.fail(upstreamTimeout(e.message)),
      InvalidRequest: (e) => Effect.fail(selectionRefusal(e, request.headers)),
      NoProviderSelected: (e) => Effect.fail(selectionRefusal(e, request.headers)),
      ProviderKeyMissing: (e) => Effect.fail(selectionRefusal(e, request.headers)),
      StoredKeyElsewhere: (e) => Effect.fail(selectionRefusal(e, request.headers)),
      Forbidden: (e) => Effect.fail(selectionRefusal(e, request.headers)),
      NotFound: (e) => Effect.fail(selectionRefusal(e, request.headers)),
      StoreError: (e) => Effect.fail(selectionRefusal(e, request.headers))
    })
  )

export const FineTuningHandlers = HttpApiBuilder.group(
  GatewayApi,
  "fineTuning",
  withService(FineTuning, (handlers, fineTuning) =>
    handlers.handleAll({
      listJobs: ({ query, request }) =>
        through(request, LIST_PARAMETERS, (selection) =>
          Effect.flatMap(principal, (p) =>
            fineTuning.listJobs(p, selection, { limit: query.limit ?? 20, after: query.after }))),
      createJob: ({ payload, request }) =>
        through(request, NO_PARAMETERS, (selection) =>
          Effect.flatMap(principal, (p) =>
            fineTuning.createJob(p, selection, payload))),
      retrieveJob: ({ params, request }) =>
        through(request, NO_PARAMETERS, (selection) =>
          Effect.flatMap(principal, (p) =>
            fineTuning.retrieveJob(p, selection, params.fine_tuning_job_id))),
      cancelJob: ({ params, request }) =>
        through(request, NO_PARAMETERS, (selection) =>
          Effect.flatMap(principal, (p) =>
            fineTuning.cancelJob(p, selection, params.fine_tuning_job_id))),
      listEvents: ({ params, query, request }) =>
        through(request, LIST_PARAMETERS, (selection) =>
          Effect.flatMap(principal, (p) =>
            fineTuning.listEvents(p, selection, params.fine_tuning_job_id, {
              limit: query.limit ?? 20,
              after: query.after
            }))),
      listCheckpoints: ({ params, query, request }) =>
        through(request, LIST_PARAMETERS, (selection) =>
          Effect.flatMap(principal, (p) =>
            fineTuning.listCheckpoints(p, selection, params.fine_tuning_job_id, {
              limit: query.limit ?? 10,
              after: query.after
            })))
    }))
)
