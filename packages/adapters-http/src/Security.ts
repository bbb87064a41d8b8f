/**
 * The security scheme of `/v1`: an API key in the `x-service-api-key` header, resolved into the
 * request's `CurrentPrincipal`.
 */
import { ApiKeys, CurrentPrincipal } from "@gateway-control/domain"
import { Effect, Layer } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Unauthorized, unauthorized } from "./ApiErrors.ts"

export const API_KEY_HEADER = "x-service-api-key"

export class ApiKeyAuth extends HttpApiMiddleware.Service<ApiKeyAuth, { provides: CurrentPrincipal }>()(
  "@gateway-control/http/ApiKeyAuth",
  {
    error: Unauthorized,
    security: { serviceApiKey: HttpApiSecurity.apiKey({ key: API_KEY_HEADER, in: "header" }) }
  }
) {}

export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    return ApiKeyAuth.of({
      // A missing header arrives as an empty credential; `authenticate` rejects it.
      serviceApiKey: (httpEffect, { credential }) =>
        Effect.flatMap(
          Effect.mapError(apiKeys.authenticate(credential), (error) => unauthorized(error.message)),
          (principal) => Effect.provideService(httpEffect, CurrentPrincipal, principal)
        )
    })
  })
)
