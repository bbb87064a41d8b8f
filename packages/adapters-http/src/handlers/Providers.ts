import { CurrentPrincipal, FineTuning, InvalidRequest, VirtualKeys } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../Api.ts"
import { fromDomain, upstreamError, upstreamTimeout } from "../ApiErrors.ts"
import { audited } from "../internal/audited.ts"
import { listBody, pageOf } from "../internal/listing.ts"

const principal = Effect.service(CurrentPrincipal)
const QUERY_PARAMETERS = new Set(["limit", "after"])

const header = (headers: Record<string, string | undefined>, name: string) => {
  const value = headers[name]?.trim()
  return value === undefined || value === "" ? undefined : value
}

export const ProvidersHandlers = HttpApiBuilder.group(
  GatewayApi,
  "providers",
  Effect.fnUntraced(function*(handlers) {
    const fineTuning = yield* FineTuning
    const credentials = yield* VirtualKeys
    return handlers.handleAll({
      listFineTuningJobs: ({ query, request }) =>
        Effect.gen(function*() {
          const search = new URL(request.url, "http://gateway").searchParams
          const unknown = [...search.keys()].find((key) => !QUERY_PARAMETERS.has(key))
          if (unknown !== undefined) {
            return yield* InvalidRequest.of(
              `Unknown query parameter '${unknown}': only limit and after are accepted.`,
              unknown
            )
          }
          const headers = request.headers
          const answer = yield* fineTuning.listJobs(yield* principal, {
            virtualKey: header(headers, "x-service-virtual-key"),
            provider: header(headers, "x-service-provider"),
            authorization: header(headers, "authorization"),
            config: header(headers, "x-service-config"),
            customHost: header(headers, "x-service-custom-host")
          }, { limit: query.limit ?? 20, after: query.after })
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
            InvalidRequest: (e) => Effect.fail(fromDomain(e)),
            Forbidden: (e) => Effect.fail(fromDomain(e)),
            NotFound: (e) => Effect.fail(fromDomain(e))
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
          }, credentials.createVirtualKey(p, payload))).pipe(
            Effect.map((k) => ({ id: k.id, slug: k.slug, object: "virtual-key" as const })),
            Effect.mapError(fromDomain)
          ),
      listVirtualKeys: ({ query }) =>
        Effect.gen(function*() {
          const request = pageOf(query)
          const listed = yield* credentials.listVirtualKeys(yield* principal, query.workspace_id, request)
          return listBody(listed, request)
        }).pipe(Effect.mapError(fromDomain)),
      getVirtualKey: ({ params }) =>
        Effect.flatMap(principal, (p) => credentials.getVirtualKey(p, params.id)).pipe(Effect.mapError(fromDomain)),
      deleteVirtualKey: ({ params }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "delete",
            resourceType: "virtual_key",
            resourceId: params.id,
            workspaceId: (k) => k.workspace_id,
            status: 200,
            body: null
          }, credentials.deleteVirtualKey(p, params.id))).pipe(
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
          }, credentials.createConfig(p, payload))).pipe(
            Effect.map((c) => ({ id: c.id, slug: c.slug })),
            Effect.mapError(fromDomain)
          ),
      listConfigs: ({ query }) =>
        Effect.gen(function*() {
          const request = pageOf(query)
          const listed = yield* credentials.listConfigs(yield* principal, query.workspace_id, request)
          return listBody(listed, request)
        }).pipe(Effect.mapError(fromDomain)),
      getConfig: ({ params }) =>
        Effect.flatMap(principal, (p) => credentials.getConfig(p, params.id)).pipe(Effect.mapError(fromDomain)),
      deleteConfig: ({ params }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "delete",
            resourceType: "config",
            resourceId: params.id,
            workspaceId: (c) => c.workspace_id,
            status: 200,
            body: null
          }, credentials.deleteConfig(p, params.id))).pipe(
            Effect.map((c) => ({ id: c.id, object: "config" as const, deleted: true as const })),
            Effect.mapError(fromDomain)
          )
    })
  })
)
