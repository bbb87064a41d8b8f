/**
 * `ApiKeyAuth` (Security.ts) on the server: the request admitted by the one admission (Admission.ts) and its
 * key resolved into the request's `CurrentPrincipal`; or, when it presents no key, the session its cookie names
 * (sessions in the domain), held to the cross-site request forgery rules of `internal/sessionCookie.ts`.
 * Mutating calls whose request does not decode (400), and changes refused as cross-site request forgery (403), get
 * their audit records here, as no handler runs for them.
 */
import { CurrentPrincipal, Sessions } from "@gateway-control/domain"
import { Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { makeAdmission, presentedApiKey } from "./Admission.ts"
import { domainErrorResponse, errorResponse } from "./ApiErrors.ts"
import { makeSessionCookies, type SessionCookieOptions } from "./internal/sessionCookie.ts"
import { ApiKeyAuth } from "./Security.ts"

export { presentedApiKey }

/** The header a member signed in sends to act in another of their workspaces (by id). */
export const SESSION_WORKSPACE_HEADER = "x-gateway-workspace"

export const layerApiKeyAuth = (options: SessionCookieOptions = {}) =>
  Layer.effect(
    ApiKeyAuth,
    Effect.gen(function*() {
      const admission = yield* makeAdmission
      const sessions = yield* Sessions
      const cookies = makeSessionCookies(options)
      return ApiKeyAuth.of({
        serviceApiKey: (httpEffect, { credential, endpoint, group }) => {
          const ref = { endpoint, group, unauthenticatedRefusals: "every" } as const
          const admitted = admission.endpointAdmission(ref)
          const admit = (key: Redacted.Redacted<string>) =>
            admitted(
              key,
              (principal) =>
                Effect.provideService(
                  admission.decodingRefusals(httpEffect, principal, ref),
                  CurrentPrincipal,
                  principal
                )
            )
          const bySession = (request: HttpServerRequest.HttpServerRequest, token: string) =>
            Effect.matchEffect(sessions.authenticate(token, request.headers[SESSION_WORKSPACE_HEADER]), {
              onFailure: (error) => Effect.succeed(domainErrorResponse(error)),
              onSuccess: ({ csrfToken, principal }) => {
                const refusal = cookies.crossSiteRefusal(request, csrfToken)
                return refusal !== undefined
                  ? Effect.as(admission.crossSiteRefusal(principal, ref), errorResponse(403, "forbidden", refusal))
                    .pipe(
                      // A store that cannot take the record answers 503 (retry later) in the refusal's place.
                      Effect.catchTag("ServiceUnavailable", (unavailable) =>
                        Effect.succeed(errorResponse(503, unavailable.error.code, unavailable.error.message)))
                    )
                  : Effect.provideService(
                    admission.decodingRefusals(httpEffect, principal, ref),
                    CurrentPrincipal,
                    principal
                  )
              }
            })
          // HttpApi decodes `x-service-api-key` alone: without it, the key may come in Portkey's spelling, or the
          // caller may be a person signed in. A missing key arrives as an empty credential, which `admit` rejects.
          return Redacted.value(credential) !== ""
            ? admit(credential)
            : Effect.flatMap(
              Effect.service(HttpServerRequest.HttpServerRequest),
              (request) => {
                const key = presentedApiKey(request.headers)
                const token = Redacted.value(key) === "" ? cookies.tokenOf(request) : undefined
                return token === undefined ? admit(key) : bySession(request, token)
              }
            )
        }
      })
    })
  )

/** `ApiKeyAuth` with no proxy trust and no public URL: sessions' origin is the request's own `Host`. */
export const ApiKeyAuthLive = layerApiKeyAuth()
