/**
 * The one admission of `/v1`: the key a request presents → `ApiKeys.admit` → the caller's principal, or the
 * refusal as its envelope (401, recorded in the audit log for a mutating call; 429 with the limit's headers,
 * not recorded: recording every refused call would write to the store at the rate the limit exists to hold
 * back). A limited key's admitted answers carry what is left of its limit, and a key admitted from the store
 * outage snapshot's answers how old its store read is (`x-service-snapshot-age`).
 *
 * Both paths in use it: the HttpApi security middleware (`ApiKeyAuthLive`, SecurityLive.ts) and the lean render
 * route (groups/prompts/RenderRoute.ts), which skips HttpApi's per-request decoding. It is built once per layer
 * and adds no allocation per request beyond the admission's own.
 */
import {
  ApiKeys,
  AuditedUseCase,
  KEY_PREFIX,
  type Principal,
  type RateLimited,
  type StoreError,
  type Unauthenticated
} from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import type { HttpServerResponse } from "effect/http"
import {
  domainErrorResponse,
  errorResponse,
  rateLimitedResponse,
  withRateLimitHeaders,
  withSnapshotAge
} from "./ApiErrors.ts"
import { aliasedHeader } from "./HeaderAliases.ts"
import { countRateLimitRefusal } from "./HttpMetrics.ts"
import { type EndpointRef, makeRefusalRecorder, type UnauthenticatedRefusals } from "./internal/auditRefusals.ts"
import { API_KEY_HEADER } from "./Security.ts"

export type { EndpointRef, UnauthenticatedRefusals }

const BEARER = /^bearer\s+(\S+)\s*$/i

/**
 * A gateway key sent as `Authorization: Bearer gwc_…` (how OAuth clients present the credential token exchange
 * issues). Only a value of a gateway key's shape counts: the same header carries provider keys to the
 * fine-tuning routes, and those are never taken for the gateway's.
 */
const bearerKey = (authorization: string | undefined): string | undefined => {
  const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1]
  return token !== undefined && token.startsWith(KEY_PREFIX) ? token : undefined
}

/**
 * The key a request presents: `x-service-api-key` in either spelling, else a gateway key as the
 * `Authorization` bearer; empty when it presents none.
 */
export const presentedApiKey = (headers: Readonly<Record<string, string | undefined>>) =>
  Redacted.make(aliasedHeader(headers, API_KEY_HEADER) ?? bearerKey(headers.authorization) ?? "")

/** An endpoint as admission sees it: what its refusals are recorded as, and which unauthenticated ones are. */
export interface AdmittedEndpoint extends EndpointRef {
  readonly unauthenticatedRefusals: UnauthenticatedRefusals
}

type Response = HttpServerResponse.HttpServerResponse

export const makeAdmission = Effect.gen(function*() {
  const apiKeys = yield* ApiKeys
  const refusals = makeRefusalRecorder(yield* AuditedUseCase)

  /**
   * The admission of one endpoint. Built once per endpoint where it can be (render's, at start), so a request
   * pays for its key's admission and nothing else.
   */
  const endpointAdmission = (endpoint: AdmittedEndpoint) => {
    // A missing, unknown, revoked or expired key answers 401, after its record where the endpoint keeps one.
    // A store that cannot answer (the key's lookup, or the refusal's record) answers 503, retry later.
    const refuse = (error: Unauthenticated | RateLimited | StoreError) =>
      error._tag === "RateLimited"
        ? Effect.as(countRateLimitRefusal, rateLimitedResponse(error))
        : error._tag === "StoreError"
        ? Effect.succeed(domainErrorResponse(error))
        : Effect.as(
          refusals.unauthenticated(error, endpoint, endpoint.unauthenticatedRefusals),
          domainErrorResponse(error)
        ).pipe(
          Effect.catchTag("ServiceUnavailable", (unavailable) =>
            Effect.succeed(errorResponse(503, unavailable.error.code, unavailable.error.message)))
        )
    /**
     * Runs `respond` as the principal `key` stands for, or answers the refusal. `respond`'s own failures pass
     * through untouched: each path maps them to the envelope its own way (HttpApi encodes them; render maps
     * them before this).
     */
    return <E, R>(
      key: Redacted.Redacted<string>,
      respond: (principal: Principal) => Effect.Effect<Response, E, R>
    ): Effect.Effect<Response, E, R> =>
      Effect.matchEffect(apiKeys.admit(key), {
        onFailure: refuse,
        onSuccess: ({ principal, rateLimit, snapshotAgeMs }) =>
          rateLimit === undefined && snapshotAgeMs === undefined
            ? respond(principal)
            : Effect.map(
              respond(principal),
              (response) => withSnapshotAge(withRateLimitHeaders(response, rateLimit), snapshotAgeMs)
            )
      })
  }

  return { endpointAdmission, decodingRefusals: refusals.decodingRefusals, crossSiteRefusal: refusals.crossSite }
})
