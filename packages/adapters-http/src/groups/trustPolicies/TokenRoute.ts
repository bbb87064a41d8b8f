/**
 * `POST /v1/oauth/token`: RFC 8693 token exchange, on the router beside HttpApi. It speaks OAuth rather than
 * this API's dialect: an `application/x-www-form-urlencoded` body, no API key (the workload's token is its
 * credential), and refusals as RFC 6749 §5.2 errors, `{"error", "error_description"}` with status 400. A store
 * that cannot answer is the envelope's 503 like everywhere else. Every answer carries `Cache-Control: no-store`.
 */
import { OAuthError, type OAuthErrorCode, TokenExchange, type TokenRequest } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { domainErrorResponse } from "../../ApiErrors.ts"
import { readBodyText } from "../../internal/bodyText.ts"

export const TOKEN_PATH = "/v1/oauth/token"

export const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded"

/** RFC 6749 §5.1: token answers must not be cached. */
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" }

const oauthError = (error: OAuthErrorCode, description: string) =>
  HttpServerResponse.jsonUnsafe({ error, error_description: description }, { status: 400, headers: NO_STORE })

const FIELDS = [
  "grant_type",
  "subject_token",
  "subject_token_type",
  "requested_token_type",
  "scope",
  "audience",
  "resource",
  "actor_token"
] as const satisfies ReadonlyArray<keyof TokenRequest>

/**
 * The form's fields, or why it is refused. RFC 6749 §3.2: a parameter sent twice is an invalid request (RFC
 * 8693 allows several `audience` and `resource`, which this gateway ignores; it takes them once too).
 */
const parseForm = (text: string): TokenRequest | string => {
  const form = new URLSearchParams(text)
  const request: Record<string, string> = {}
  for (const field of FIELDS) {
    const values = form.getAll(field)
    if (values.length > 1) return `${field} is sent more than once.`
    if (values.length === 1) request[field] = values[0]!
  }
  return request
}

const mediaTypeOf = (contentType: string | undefined) => (contentType ?? "").split(";")[0]!.trim().toLowerCase()

export const layerTokenRoute = (options: { readonly maxBodyBytes: number }) =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    const exchange = yield* TokenExchange
    const handler = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        if (mediaTypeOf(request.headers["content-type"]) !== FORM_MEDIA_TYPE) {
          return oauthError("invalid_request", `The request body must be ${FORM_MEDIA_TYPE} (RFC 6749 §4.1.3).`)
        }
        const text = yield* readBodyText(request, options.maxBodyBytes)
        if (typeof text !== "string") return text
        const form = parseForm(text)
        if (typeof form === "string") return oauthError("invalid_request", form)
        return yield* exchange.exchange(form).pipe(
          Effect.map((issued) =>
            HttpServerResponse.jsonUnsafe({
              access_token: Redacted.value(issued.access_token),
              issued_token_type: issued.issued_token_type,
              // RFC 6750: presented as `Authorization: Bearer` (or in the API key headers, like any key).
              token_type: "Bearer",
              expires_in: issued.expires_in,
              scope: issued.scope
            }, { headers: NO_STORE })
          ),
          Effect.catch((error) =>
            Effect.succeed(
              error instanceof OAuthError
                ? oauthError(error.error, error.error_description)
                : domainErrorResponse(error)
            )
          )
        )
      })
    yield* router.add("POST", TOKEN_PATH, handler)
  }))
