/**
 * `ApiKeyAuth` (Security.ts) on the server: the key resolved into the request's `CurrentPrincipal`. Mutating
 * calls it refuses (401), and mutating calls whose request does not decode (400), get their audit records
 * here, as no handler runs for them.
 */
import { ApiKeys, Audit, CurrentPrincipal } from "@gateway-control/domain"
import { Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import {
  rateLimitedResponse,
  storeUnavailable,
  unauthenticatedMessage,
  unauthorized,
  withRateLimitHeaders
} from "./ApiErrors.ts"
import { aliasedHeader } from "./HeaderAliases.ts"
import { makeRefusalRecorder } from "./internal/auditRefusals.ts"
import { API_KEY_HEADER, ApiKeyAuth } from "./Security.ts"

/** The key a request presents, in either spelling of the header; empty when it presents none. */
export const presentedApiKey = (headers: Readonly<Record<string, string | undefined>>) =>
  Redacted.make(aliasedHeader(headers, API_KEY_HEADER) ?? "")

export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    const refusals = makeRefusalRecorder(yield* Audit)
    // HttpApi decodes `x-service-api-key` alone: without it, the key may come in Portkey's spelling. A missing
    // key arrives as an empty credential, which `admit` rejects.
    const admit = (credential: Redacted.Redacted<string>) =>
      Redacted.value(credential) !== ""
        ? apiKeys.admit(credential)
        : Effect.flatMap(
          Effect.service(HttpServerRequest.HttpServerRequest),
          (request) => apiKeys.admit(presentedApiKey(request.headers))
        )
    return ApiKeyAuth.of({
      // A call over a rate limit is answered here, with its headers, and not audited: recording every refused
      // call would write to the store at the rate the limit exists to hold back.
      serviceApiKey: (httpEffect, { credential, endpoint, group }) =>
        Effect.matchEffect(admit(credential), {
          onFailure: (error) =>
            error._tag === "RateLimited"
              ? Effect.succeed(rateLimitedResponse(error))
              // The key could not be looked up: no refusal to record, and none to make; 503, retry later.
              : error._tag === "StoreError"
              ? Effect.fail(storeUnavailable(error))
              : Effect.andThen(
                refusals.unauthenticated(error, { endpoint, group }),
                Effect.fail(unauthorized(unauthenticatedMessage(error)))
              ),
          onSuccess: ({ principal, rateLimit }) =>
            Effect.provideService(
              refusals.decodingRefusals(httpEffect, principal, { endpoint, group }),
              CurrentPrincipal,
              principal
            ).pipe(Effect.map((response) => withRateLimitHeaders(response, rateLimit)))
        })
    })
  })
)
