import { Configs, CurrentPrincipal, FineTuning, type VirtualKey, VirtualKeys } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { BadRequest, badRequest, upstreamError, upstreamTimeout } from "../../ApiErrors.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withServices } from "../../internal/groupHandlers.ts"
import { listingRefusal, selectionFromHeaders } from "./ProviderHeaders.ts"

const principal = Effect.service(CurrentPrincipal)
const QUERY_PARAMETERS = new Set(["limit", "after"])

/** A virtual key in the answer's shape: also under Portkey's field names, usage limits left out when none. */
const virtualKeyAnswer = (key: VirtualKey) => {
  const { usage_limits, ...rest } = key
  return {
    ...rest,
    ...(usage_limits === null ? {} : { usage_limits }),
    ai_provider_name: key.provider,
    masked_api_key: key.masked_key,
    status: "active" as const,
    object: "virtual-key" as const
  }
}

export const ProvidersHandlers = HttpApiBuilder.group(
  GatewayApi,
  "providers",
  withServices(
    Effect.all({
      fineTuning: Effect.service(FineTuning),
      virtualKeys: Effect.service(VirtualKeys),
      configs: Effect.service(Configs)
    }),
    (handlers, { configs, fineTuning, virtualKeys }) =>
      handlers.handleAll({
        listFineTuningJobs: ({ query, request }) =>
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
          ),
        createVirtualKey: ({ payload }) =>
          asCaller((principal) => virtualKeys.createVirtualKey(principal, payload)).pipe(
            Effect.map((k) => ({ ...k, object: "virtual-key" as const }))
          ),
        listVirtualKeys: ({ query }) =>
          pageAsCaller(
            query,
            (principal, request) =>
              Effect.map(
                virtualKeys.listVirtualKeys(principal, query.workspace_id, request),
                (page) => ({ ...page, items: page.items.map(virtualKeyAnswer) })
              )
          ),
        getVirtualKey: ({ params, query }) =>
          asCaller((principal) => virtualKeys.getVirtualKey(principal, params.id, query.workspace_id)).pipe(
            Effect.map(virtualKeyAnswer)
          ),
        updateVirtualKey: ({ params, payload, query }) =>
          asCaller((principal) => virtualKeys.updateVirtualKey(principal, params.id, payload, query.workspace_id)).pipe(
            Effect.map(virtualKeyAnswer)
          ),
        deleteVirtualKey: ({ params, query }) =>
          asCaller((principal) => virtualKeys.deleteVirtualKey(principal, params.id, query.workspace_id)).pipe(
            Effect.map((k) => ({ ...k, object: "virtual-key" as const, deleted: true as const }))
          ),
        createConfig: ({ payload }) => asCaller((principal) => configs.createConfig(principal, payload)),
        listConfigs: ({ query }) =>
          pageAsCaller(query, (principal, request) => configs.listConfigs(principal, query.workspace_id, request)),
        getConfig: ({ params, query }) =>
          asCaller((principal) => configs.getConfig(principal, params.id, query.workspace_id)),
        updateConfig: ({ params, payload, query }) =>
          asCaller((principal) => configs.updateConfig(principal, params.id, payload, query.workspace_id)).pipe(
            Effect.map((c) => ({ ...c, object: "config" as const }))
          ),
        deleteConfig: ({ params, query }) =>
          asCaller((principal) => configs.deleteConfig(principal, params.id, query.workspace_id)).pipe(
            Effect.map((c) => ({ ...c, object: "config" as const, deleted: true as const }))
          )
      })
  )
)
