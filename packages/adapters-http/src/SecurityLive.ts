/**
 * `ApiKeyAuth` (Security.ts) on the server: the key resolved into the request's `CurrentPrincipal`. Mutating
 * calls it refuses (401), and mutating calls whose request does not decode (400), get their audit records
 * here, as no handler runs for them.
 */
import { ApiKeys, Audit, CurrentPrincipal } from "@gateway-control/domain"
import { Effect, Layer } from "effect"
import { unauthenticatedMessage, unauthorized } from "./ApiErrors.ts"
import { makeRefusalRecorder } from "./internal/auditRefusals.ts"
import { ApiKeyAuth } from "./Security.ts"

export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    const refusals = makeRefusalRecorder(yield* Audit)
    return ApiKeyAuth.of({
      // A missing header arrives as an empty credential; `authenticate` rejects it.
      serviceApiKey: (httpEffect, { credential, endpoint, group }) =>
        Effect.matchEffect(apiKeys.authenticate(credential), {
          onFailure: (error) =>
            Effect.andThen(
              refusals.unauthenticated(error, { endpoint, group }),
              Effect.fail(unauthorized(unauthenticatedMessage(error)))
            ),
          onSuccess: (principal) =>
            Effect.provideService(
              refusals.decodingRefusals(httpEffect, principal, { endpoint, group }),
              CurrentPrincipal,
              principal
            )
        })
    })
  })
)
