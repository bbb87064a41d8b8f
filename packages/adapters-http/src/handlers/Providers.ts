import { Configs, CurrentPrincipal, FineTuning, VirtualKeys } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../Api.ts"
import { BadRequest, badRequest, fromDomain, upstreamError, upstreamTimeout } from "../ApiErrors.ts"
import { audited } from "../internal/audited.ts"
import { listBody, pageOf } from "../internal/listing.ts"
import { listingRefusal, selectionFromHeaders } from "./ProviderHeaders.ts"

const principal = Effect.service(CurrentPrincipal)
const QUERY_PARAMETERS = new Set(["limit", "after"])

export const ProvidersHandlers = HttpApiBuilder.group(
  GatewayApi,
  "providers",
  Effect.fnUntraced(function*(handlers) {
    const fineTuning = yield* FineTuning
    const virtualKeys = yield* VirtualKeys
    const configs = yield* Configs
    return handlers.handleAll({
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
            InvalidRequest: (e) => Effect.fail(listingRefusal(e)),
            NoProviderSelected: (e) => Effect.fail(listingRefusal(e)),
            ProviderKeyMissing: (e) => Effect.fail(listingRefusal(e)),
            StoredKeyElsewhere: (e) => Effect.fail(listingRefusal(e)),
            Forbidden: (e) => Effect.fail(listingRefusal(e)),
            NotFound: (e) => Effect.fail(listingRefusal(e))
          })
        ),
      createVirtualKey: ({ payload }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "create",
            resourceType: "virtual_key",
            resourceId: (k) => k.id,
            workspaceId: (k) => k.workspace_id,
            status: 201,
            body: payload
          }, virtualKeys.createVirtualKey(p, payload))).pipe(
            Effect.map((k) => ({ id: k.id, slug: k.slug, object: "virtual-key" as const })),
            Effect.mapError(fromDomain)
          ),
      listVirtualKeys: ({ query }) =>
        Effect.gen(function*() {
          const request = pageOf(query)
          const listed = yield* virtualKeys.listVirtualKeys(yield* principal, query.workspace_id, request)
          return listBody(listed, request)
        }).pipe(Effect.mapError(fromDomain)),
      getVirtualKey: ({ params }) =>
        Effect.flatMap(principal, (p) => virtualKeys.getVirtualKey(p, params.id)).pipe(Effect.mapError(fromDomain)),
      deleteVirtualKey: ({ params }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "delete",
            resourceType: "virtual_key",
            resourceId: params.id,
            workspaceId: (k) => k.workspace_id,
            status: 200,
            body: null
          }, virtualKeys.deleteVirtualKey(p, params.id))).pipe(
            Effect.map((k) => ({ id: k.id, object: "virtual-key" as const, deleted: true as const })),
            Effect.mapError(fromDomain)
          ),
      createConfig: ({ payload }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "create",
            resourceType: "config",
            resourceId: (c) => c.id,
            workspaceId: (c) => c.workspace_id,
            status: 201,
            body: payload
          }, configs.createConfig(p, payload))).pipe(
            Effect.map((c) => ({ id: c.id, slug: c.slug })),
            Effect.mapError(fromDomain)
          ),
      listConfigs: ({ query }) =>
        Effect.gen(function*() {
          const request = pageOf(query)
          const listed = yield* configs.listConfigs(yield* principal, query.workspace_id, request)
          return listBody(listed, request)
        }).pipe(Effect.mapError(fromDomain)),
      getConfig: ({ params }) =>
        Effect.flatMap(principal, (p) => configs.getConfig(p, params.id)).pipe(Effect.mapError(fromDomain)),
      deleteConfig: ({ params }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "delete",
            resourceType: "config",
            resourceId: params.id,
            workspaceId: (c) => c.workspace_id,
            status: 200,
            body: null
          }, configs.deleteConfig(p, params.id))).pipe(
            Effect.map((c) => ({ id: c.id, object: "config" as const, deleted: true as const })),
            Effect.mapError(fromDomain)
          )
    })
  })
)
