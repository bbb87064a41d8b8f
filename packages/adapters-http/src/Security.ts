/**
 * The security scheme of `/v1` as the HTTP contract declares it: an API key in the `x-service-api-key` header,
 * resolved into the request's `CurrentPrincipal` by `ApiKeyAuth`. Its implementation is in SecurityLive.ts;
 * clients import this with the API definition, so nothing here may pull in server code.
 */
import type { CurrentPrincipal } from "@gateway-control/domain"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Unauthorized } from "./ApiErrors.ts"

export const API_KEY_HEADER = "x-service-api-key"

export class ApiKeyAuth extends HttpApiMiddleware.Service<ApiKeyAuth, { provides: CurrentPrincipal }>()(
  "@gateway-control/http/ApiKeyAuth",
  {
    error: Unauthorized,
    security: { serviceApiKey: HttpApiSecurity.apiKey({ key: API_KEY_HEADER, in: "header" }) }
  }
) {}
