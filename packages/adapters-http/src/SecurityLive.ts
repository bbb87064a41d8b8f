/**
 * `ApiKeyAuth` (Security.ts) on the server: the request admitted by the one admission (Admission.ts) and its
 * key resolved into the request's `CurrentPrincipal`. Mutating calls whose request does not decode (400) get
 * their audit records here, as no handler runs for them.
 */
import { CurrentPrincipal } from "@gateway-control/domain"
import { Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { makeAdmission, presentedApiKey } from "./Admission.ts"
import { ApiKeyAuth } from "./Security.ts"

export { presentedApiKey }

export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.gen(function*() {
    const admission = yield* makeAdmission
    return ApiKeyAuth.of({
      serviceApiKey: (httpEffect, { credential, endpoint, group }) => {
        const ref = { endpoint, group, unauthenticatedRefusals: "every" } as const
        const admitted = admission.endpointAdmission(ref)
        const admit = (key: Redacted.Redacted<string>) =>
          admitted(
            key,
            (principal) =>
              Effect.provideService(admission.decodingRefusals(httpEffect, principal, ref), CurrentPrincipal, principal)
          )
        // HttpApi decodes `x-service-api-key` alone: without it, the key may come in Portkey's spelling. A missing
        // key arrives as an empty credential, which `admit` rejects.
        return Redacted.value(credential) !== ""
          ? admit(credential)
          : Effect.flatMap(
            Effect.service(HttpServerRequest.HttpServerRequest),
            (request) => admit(presentedApiKey(request.headers))
          )
      }
    })
  })
)
