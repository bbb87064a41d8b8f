/**
 * The security scheme of `/v1` as the HTTP contract declares it: an API key in the `x-service-api-key` header
 * (or Portkey's spelling, `x-portkey-api-key`), resolved into the request's `CurrentPrincipal` by `ApiKeyAuth`.
 * Its implementation is in SecurityLive.ts; clients import this with the API definition, so nothing here may
 * pull in server code.
 */
import type { CurrentPrincipal } from "@gateway-control/domain"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { ServiceUnavailable, TooManyRequests, Unauthorized } from "./ApiErrors.ts"

export const API_KEY_HEADER = "x-service-api-key"
/** Portkey's name for the same header, which its SDKs send (HeaderAliases.ts). */
export const API_KEY_HEADER_ALIAS = "x-portkey-api-key"

export class ApiKeyAuth extends HttpApiMiddleware.Service<ApiKeyAuth, { provides: CurrentPrincipal }>()(
  "@gateway-control/http/ApiKeyAuth",
  {
    error: [Unauthorized, TooManyRequests, ServiceUnavailable],
    security: { serviceApiKey: HttpApiSecurity.apiKey({ key: API_KEY_HEADER, in: "header" }) }
  }
) {}

/**
 * The OpenAPI document's second scheme: `x-portkey-api-key`, an alternative to every requirement of the
 * first. The middleware itself reads both spellings (`presentedApiKey`, SecurityLive.ts), so it declares one
 * scheme; HttpApi would run a second scheme's handler after every refusal of the first.
 */
export const documentApiKeyAlias = (spec: Record<string, any>): Record<string, any> => {
  spec.components.securitySchemes.portkeyApiKey = {
    type: "apiKey",
    name: API_KEY_HEADER_ALIAS,
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
