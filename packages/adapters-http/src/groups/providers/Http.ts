import { Configs, CurrentPrincipal, FineTuning, VirtualKeys } from "@gateway-control/domain"
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
            (principal, request) => virtualKeys.listVirtualKeys(principal, query.workspace_id, request)
          ),
        getVirtualKey: ({ params, query }) =>
          asCaller((principal) => virtualKeys.getVirtualKey(principal, params.id, query.workspace_id)),
        updateVirtualKey: ({ params, payload, query }) =>
          asCaller((principal) => virtualKeys.updateVirtualKey(principal, params.id, payload, query.workspace_id)).pipe(
            Effect.map((k) => ({ ...k, object: "virtual-key" as const }))
          ),
        deleteVirtualKey: ({ params, query }) =>
          asCaller((principal) => virtualKeys.deleteVirtualKey(principal, params.id, query.workspace_id)).pipe(
            Effect.map((k) => ({ ...k, object: "virtual-key" as const, deleted: true as const }))
          ),
        createConfig: ({ payload }) =>
          asCaller((principal) => configs.createConfig(principal, payload)).pipe(
            Effect.map((c) => ({ id: c.id, slug: c.slug, version_id: c.version_id, object: "config" as const }))
          ),
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
          ),
        listConfigVersions: ({ params, query }) =>
          asCaller((principal) => configs.listConfigVersions(principal, params.id, query.workspace_id)).pipe(
            Effect.map(({ config, versions }) => ({
              object: "list" as const,
              total: versions.length,
              has_more: false,
              data: versions.map((version) => ({
                id: config.id,
                organisation_id: config.organisation_id,
                workspace_id: config.workspace_id,
                slug: config.slug,
                is_default: config.is_default,
                status: config.status,
                name: version.name,
                version: version.version,
                created_at: version.created_at,
                last_updated_at: version.created_at,
                // Portkey's answer carries each version's config as a JSON string.
                config: JSON.stringify(version.config),
                format: "json" as const,
                version_id: version.id,
                object: "config" as const
              }))
            }))
          )
      })
  )
)
