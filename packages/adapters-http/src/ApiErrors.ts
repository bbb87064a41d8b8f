/**
 * The error envelope, one class per HTTP status. Every non-2xx answer of the service has the body
 * `{"success": false, "error": {"code", "type", "message", "param"}}`; `code` is snake_case and stable, `type` its kind.
 *
 * Each class also carries a `_tag`, its name, so that a client decoding an answer can `catchTag` on it. The
 * tag is a class field rather than a schema field: decoding constructs the class and so sets it, while
 * encoding writes the schema's fields only, so neither the wire nor the OpenAPI document shows it.
 */
import type {
  Conflict,
  Forbidden,
  InvalidRequest,
  McpTimedOut,
  McpUnreachable,
  NotFound,
  RateLimited,
  RateLimitStatus,
  StoreError,
  TooManyAttempts,
  Unauthenticated
} from "@gateway-control/domain"
import { Schema } from "effect"
import { HttpServerResponse } from "effect/http"

export const ErrorDetail = Schema.Struct({
  code: Schema.String,
  /** The kind of error, as Portkey's and OpenAI's clients read it (`errorType`); `code` is the precise reason. */
  type: Schema.String,
  message: Schema.String,
  param: Schema.NullOr(Schema.String)
})
export type ErrorDetail = typeof ErrorDetail.Type

const Envelope = { success: Schema.Literal(false), error: ErrorDetail }

export class BadRequest extends Schema.Error<BadRequest>("BadRequest")(Envelope, {
  httpApiStatus: 400,
  description: "invalid_request or invalid_json: the request breaks a rule; error.param names the field."
}) {
  readonly _tag = "BadRequest"
}

export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")(Envelope, {
  httpApiStatus: 401,
  description: "unauthenticated: the x-service-api-key header is missing, unknown, revoked or expired."
}) {
  readonly _tag = "Unauthorized"
}

export class ForbiddenError extends Schema.Error<ForbiddenError>("ForbiddenError")(Envelope, {
  httpApiStatus: 403,
  description: "forbidden: the key may not do this; the message names the missing scope or rule."
}) {
  readonly _tag = "ForbiddenError"
}

export class NotFoundError extends Schema.Error<NotFoundError>("NotFoundError")(Envelope, {
  httpApiStatus: 404,
  description: "not_found"
}) {
  readonly _tag = "NotFoundError"
}

export class ConflictError extends Schema.Error<ConflictError>("ConflictError")(Envelope, {
  httpApiStatus: 409,
  description: "conflict: a uniqueness rule would be broken (duplicate slug, name or email)."
}) {
  readonly _tag = "ConflictError"
}

export class TooManyRequests extends Schema.Error<TooManyRequests>("TooManyRequests")(Envelope, {
  httpApiStatus: 429,
  description: "rate_limited: the key made more requests than one of its rate limits allows (x-ratelimit-limit, " +
    "x-ratelimit-remaining and x-ratelimit-reset describe the limit), or a sign-in came after too many failed " +
    "ones for its email or from its address; the retry-after header says in how many seconds to try again."
}) {
  readonly _tag = "TooManyRequests"
}

export class ServiceUnavailable extends Schema.Error<ServiceUnavailable>("ServiceUnavailable")(Envelope, {
  httpApiStatus: 503,
  description: "store_unavailable: the store does not answer, or gave the change up for a concurrent one; " +
    "service_unavailable: the service is shutting down or closed, or the request was cancelled. Nothing was " +
    "changed either way. The retry-after header says in how many seconds to try again."
}) {
  readonly _tag = "ServiceUnavailable"
}

export class BadGateway extends Schema.Error<BadGateway>("BadGateway")(Envelope, {
  httpApiStatus: 502,
  description: "upstream_error: the provider could not be reached, or answered with something unreadable."
}) {
  readonly _tag = "BadGateway"
}

export class GatewayTimeout extends Schema.Error<GatewayTimeout>("GatewayTimeout")(Envelope, {
  httpApiStatus: 504,
  description: "upstream_timeout: the provider did not answer in time."
}) {
  readonly _tag = "GatewayTimeout"
}

export const upstreamError = (message: string) => new BadGateway(detail("upstream_error", message))
export const upstreamTimeout = (message: string) => new GatewayTimeout(detail("upstream_timeout", message))

/** The errors any authenticated endpoint can answer with. */
export const CommonErrors = [
  BadRequest,
  Unauthorized,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  ServiceUnavailable
] as const

/**
 * Each code's `type`, in the words OpenAI's error bodies use (which Portkey's error schema requires): the kind
 * of failure a client branches on. A code missing here is a fault on our side.
 */
const ERROR_TYPES: Readonly<Record<string, string>> = {
  invalid_request: "invalid_request_error",
  invalid_json: "invalid_request_error",
  payload_too_large: "invalid_request_error",
  unsupported_media_type: "invalid_request_error",
  headers_too_large: "invalid_request_error",
  unauthenticated: "authentication_error",
  forbidden: "permission_error",
  not_found: "not_found_error",
  conflict: "conflict_error",
  idempotency_key_reused: "invalid_request_error",
  idempotency_key_in_use: "conflict_error",
  rate_limited: "rate_limit_error",
  upstream_error: "upstream_error",
  upstream_timeout: "upstream_error",
  service_unavailable: "service_unavailable_error",
  store_unavailable: "service_unavailable_error"
}

/** The `type` of an error `code`. */
export const errorTypeOf = (code: string): string => ERROR_TYPES[code] ?? "api_error"

const detail = (code: string, message: string, param: string | null = null) => ({
  success: false as const,
  error: { code, type: errorTypeOf(code), message, param }
})

export const badRequest = (message: string, param: string | null = null) =>
  new BadRequest(detail("invalid_request", message, param))

export const unauthorized = (message: string) => new Unauthorized(detail("unauthenticated", message))

export const forbidden = (message: string) => new ForbiddenError(detail("forbidden", message))

export const notFound = (message: string) => new NotFoundError(detail("not_found", message))

export const conflict = (message: string, param: string | null = null) =>
  new ConflictError(detail("conflict", message, param))

export const serviceUnavailable = (message: string) => new ServiceUnavailable(detail("service_unavailable", message))

/**
 * Seconds a client is told to wait (`retry-after`) before retrying a 503: long enough for a restarting or
 * failing-over database to come back (and for the pool's next connection attempt), short enough that a client
 * does not sit idle long after it has.
 */
export const STORE_RETRY_AFTER_SECONDS = 5

/**
 * What a client is told of a store failure. The store's own message (host, port, driver wording) stays in the
 * server's log: the client learns only that it should retry.
 */
const storeErrorMessage = (error: StoreError): string =>
  error.reason === "contention"
    ? "The change collided with a concurrent one and was not made; retry it."
    : "The store is unavailable; nothing was changed. Retry shortly."

/**
 * A 503 whose cause is the store (`store_unavailable`): what a client retries after a failover. Its `type` stays
 * `service_unavailable_error`, which clients of the time before this code branched on.
 */
export const storeUnavailableMessage = (message: string) => new ServiceUnavailable(detail("store_unavailable", message))

/** A store failure in the envelope: 503 `store_unavailable` (the edge adds `retry-after`). */
export const storeUnavailable = (error: StoreError) => storeUnavailableMessage(storeErrorMessage(error))

/** A 401's message: the domain says a key was missing or unrecognised; where a key goes is the adapter's word. */
export const unauthenticatedMessage = (error: Unauthenticated): string => {
  switch (error.credential) {
    case "missing":
      return "Missing API key: send it in the x-service-api-key header."
    case "unrecognised":
      return "Invalid API key: check the x-service-api-key header."
    case undefined:
      return error.message
  }
}

/** The domain's failures every use case may have: its refusals, and a store that cannot answer (`StoreError`). */
export type DomainError = InvalidRequest | Unauthenticated | Forbidden | NotFound | Conflict | StoreError

/** The status each domain error answers with; the audit log records it for denied and failed calls. */
const DOMAIN_STATUS: { readonly [Tag in DomainError["_tag"]]: number } = {
  InvalidRequest: 400,
  Unauthenticated: 401,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  StoreError: 503
}

const DOMAIN_ERROR_TAGS: ReadonlySet<unknown> = new Set(Object.keys(DOMAIN_STATUS))

export const isDomainError = <E>(error: E): error is Extract<E, DomainError> =>
  typeof error === "object" && error !== null && DOMAIN_ERROR_TAGS.has((error as { _tag?: unknown })._tag)

/** The one mapping from domain errors to the envelope. */
export const fromDomain = (
  error: DomainError
): BadRequest | Unauthorized | ForbiddenError | NotFoundError | ConflictError | ServiceUnavailable => {
  switch (error._tag) {
    case "InvalidRequest":
      return badRequest(error.message, error.param)
    case "Unauthenticated":
      return unauthorized(unauthenticatedMessage(error))
    case "Forbidden":
      return forbidden(error.message)
    case "NotFound":
      return notFound(error.message)
    case "Conflict":
      return conflict(error.message, error.param)
    case "StoreError":
      return storeUnavailable(error)
  }
}

/** The status a domain error answers with (`DOMAIN_STATUS`). */
export const statusOf = (error: DomainError): number => DOMAIN_STATUS[error._tag]

/** Failures of a call the service made to another server on the caller's behalf (an MCP server). */
export type UpstreamError = McpUnreachable | McpTimedOut

const isUpstreamError = (error: DomainError | UpstreamError): error is UpstreamError =>
  error._tag === "McpUnreachable" || error._tag === "McpTimedOut"

/** The envelope a failure answers with: an upstream failure's only where one can happen. */
export type EnvelopeOf<E> = E extends UpstreamError ? BadGateway | GatewayTimeout : ReturnType<typeof fromDomain>

/** `fromDomain`, and 502 `upstream_error` / 504 `upstream_timeout` for the other server's failures. */
export const fromDomainOrUpstream = <E extends DomainError | UpstreamError>(error: E): EnvelopeOf<E> => {
  const envelope = !isUpstreamError(error)
    ? fromDomain(error)
    : error._tag === "McpTimedOut"
    ? upstreamTimeout(error.message)
    : upstreamError(error.message)
  // The branch taken is the one `EnvelopeOf<E>` names for this error's type.
  return envelope as EnvelopeOf<E>
}

/** The status a failure answers with, for the audit log. */
export const failureStatusOf = (error: DomainError | UpstreamError): number =>
  !isUpstreamError(error) ? statusOf(error) : error._tag === "McpTimedOut" ? 504 : 502

/** The envelope as a response, for answers made outside HttpApi's error encoding (the edge, lean routes). */
export const errorResponse = (status: number, code: string, message: string, param: string | null = null) =>
  HttpServerResponse.jsonUnsafe({ success: false, error: { code, type: errorTypeOf(code), message, param } }, {
    status
  })

export const payloadTooLarge = (maxBytes: number) =>
  errorResponse(413, "payload_too_large", `The request body is larger than the limit of ${maxBytes} bytes.`)

/** A domain error as its envelope response. */
export const domainErrorResponse = (error: DomainError) => {
  const { error: detail } = fromDomain(error)
  return errorResponse(statusOf(error), detail.code, detail.message, detail.param)
}

const seconds = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)))

/**
 * What a limited key's answers say of its tightest rate limit: `x-ratelimit-limit` (requests per window),
 * `x-ratelimit-remaining`, and `x-ratelimit-reset` (seconds until the window starts over).
 */
export const rateLimitHeaders = (status: RateLimitStatus): Record<string, string> => ({
  "x-ratelimit-limit": String(status.limit),
  "x-ratelimit-remaining": String(status.remaining),
  "x-ratelimit-reset": seconds(status.resetAfterMs)
})

/** The 429 for a call over a rate limit, with `retry-after` (seconds) and the limit's headers. */
export const rateLimitedResponse = (error: RateLimited) =>
  HttpServerResponse.setHeaders(
    errorResponse(429, "rate_limited", error.message),
    {
      "retry-after": seconds(error.retryAfterMs),
      ...rateLimitHeaders({ limit: error.limit, unit: error.unit, remaining: 0, resetAfterMs: error.retryAfterMs })
    }
  )

/**
 * The 429 for a sign-in refused after too many failed attempts (for the email or from the address), with
 * `retry-after` (seconds): the same answer for every email, known or not.
 */
export const tooManyAttemptsResponse = (error: TooManyAttempts) =>
  HttpServerResponse.setHeaders(
    errorResponse(429, "rate_limited", error.message),
    { "retry-after": seconds(error.retryAfterMs), "cache-control": "no-store" }
  )

/** A response of a limited key's call, with its limit's headers; any other call's as it is. */
export const withRateLimitHeaders = (
  response: HttpServerResponse.HttpServerResponse,
  status: RateLimitStatus | undefined
) => status === undefined ? response : HttpServerResponse.setHeaders(response, rateLimitHeaders(status))

/**
 * The header of an answer the store outage snapshot made (StoreOutage.ts in the domain): how old, in whole
 * seconds, the oldest store read behind it is.
 */
export const SNAPSHOT_AGE_HEADER = "x-service-snapshot-age"

/**
 * `response` with the snapshot's age when part of it came from the snapshot (the older of two parts wins); a 503
 * is the store's answer, not the snapshot's, and carries none.
 */
export const withSnapshotAge = (response: HttpServerResponse.HttpServerResponse, ageMs: number | undefined) => {
  if (ageMs === undefined || response.status === 503) return response
  const seconds = Math.floor(ageMs / 1000)
  const earlier = response.headers[SNAPSHOT_AGE_HEADER]
  return HttpServerResponse.setHeader(
    response,
    SNAPSHOT_AGE_HEADER,
    String(earlier === undefined ? seconds : Math.max(Number(earlier), seconds))
  )
}
