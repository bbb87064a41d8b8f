/**
 * `ApiKeyAuth` (Security.ts) on the server: the key resolved into the request's `CurrentPrincipal`. Mutating
 * calls it refuses (401), and mutating calls whose request does not decode (400), get their audit records
 * here, as no handler runs for them.
 */
import { ApiKeys, Audit, CurrentPrincipal } from "@gateway-control/domain"
import { Effect, Layer } from "effect"
import { rateLimitedResponse, unauthenticatedMessage, unauthorized, withRateLimitHeaders } from "./ApiErrors.ts"
import { makeRefusalRecorder } from "./internal/auditRefusals.ts"
import { ApiKeyAuth } from "./Security.ts"

export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    const refusals = makeRefusalRecorder(yield* Audit)
    return ApiKeyAuth.of({
      // A missing header arrives as an empty credential; `authenticate` rejects it.
      // A call over a rate limit is answered here, with its headers, and not audited: recording every refused
      // call would write to the store at the rate the limit exists to hold back.
      serviceApiKey: (httpEffect, { credential, endpoint, group }) =>
        Effect.matchEffect(apiKeys.admit(credential), {
          onFailure: (error) =>
            error._tag === "RateLimited"
              ? Effect.succeed(rateLimitedResponse(error))
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
