/**
 * The security scheme of `/v1`: an API key in the `x-service-api-key` header (or Portkey's spelling,
 * `x-portkey-api-key`), resolved into the request's `CurrentPrincipal`. Mutating calls it refuses (401), and
 * mutating calls whose request does not decode (400), get their audit records here, as no handler runs for them.
 */
import { ApiKeys, Audit, CurrentPrincipal } from "@gateway-control/domain"
import { Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { unauthenticatedMessage, Unauthorized, unauthorized } from "./ApiErrors.ts"
import { aliasedHeader, HEADER_ALIASES } from "./HeaderAliases.ts"
import { makeRefusalRecorder } from "./internal/auditRefusals.ts"

export const API_KEY_HEADER = "x-service-api-key"

/** The key a request presents, in either spelling of the header; empty when it presents none. */
export const presentedApiKey = (headers: Readonly<Record<string, string | undefined>>) =>
  Redacted.make(aliasedHeader(headers, API_KEY_HEADER) ?? "")

/**
 * The OpenAPI document's second scheme: `x-portkey-api-key`, an alternative to every requirement of the
 * first. The middleware itself reads both spellings (`presentedApiKey`), so it declares one scheme; HttpApi
 * would run a second scheme's handler after every refusal of the first.
 */
export const documentApiKeyAlias = (spec: Record<string, any>): Record<string, any> => {
  const alias = HEADER_ALIASES[API_KEY_HEADER]
  spec.components.securitySchemes.portkeyApiKey = {
    type: "apiKey",
    name: alias,
    in: "header",
    description: `Portkey's name for ${API_KEY_HEADER}; sending both with different values is a 400.`
  }
  for (const operations of Object.values<Record<string, any>>(spec.paths)) {
    for (const operation of Object.values<Record<string, any>>(operations)) {
      const requirements: Array<Record<string, Array<string>>> | undefined = operation.security
      if (requirements === undefined) continue
      operation.security = requirements.flatMap((requirement) =>
        "serviceApiKey" in requirement ? [requirement, { portkeyApiKey: [] }] : [requirement]
      )
    }
  }
  return spec
}

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
    const refusals = makeRefusalRecorder(yield* Audit)
    // HttpApi decodes `x-service-api-key` alone: without it, the key may come in Portkey's spelling. A missing
    // key arrives as an empty credential, which `authenticate` rejects.
    const authenticate = (credential: Redacted.Redacted<string>) =>
      Redacted.value(credential) !== ""
        ? apiKeys.authenticate(credential)
        : Effect.flatMap(
          Effect.service(HttpServerRequest.HttpServerRequest),
          (request) => apiKeys.authenticate(presentedApiKey(request.headers))
        )
    return ApiKeyAuth.of({
      serviceApiKey: (httpEffect, { credential, endpoint, group }) =>
        Effect.matchEffect(authenticate(credential), {
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
