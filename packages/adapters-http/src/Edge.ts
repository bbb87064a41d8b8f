/**
 * The edge of every request, around the router: request ids, body limits, media types and the spellings of
 * aliased headers (HeaderAliases.ts) checked before any handler runs, every failure turned into the error
 * envelope, and one structured log line a request.
 */
import { Idempotency, RequestContext, StoreError } from "@gateway-control/domain"
import { ByteSize, Cause, Context, Effect, LogLevel, References, Tracer, type Types } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import {
  domainErrorResponse,
  errorResponse,
  payloadTooLarge,
  ServiceUnavailable,
  STORE_RETRY_AFTER_SECONDS
} from "./ApiErrors.ts"
import { makeClientAddress, type TrustProxy } from "./ClientAddress.ts"
import { SCIM_MEDIA_TYPES, SCIM_PATH } from "./groups/scim/ScimPaths.ts"
import { TOKEN_PATH } from "./groups/trustPolicies/TokenRoute.ts"
import { conflictingSpellings } from "./HeaderAliases.ts"
import { observeRequest } from "./HttpMetrics.ts"
import { makeIdempotentRequests } from "./IdempotencyKeys.ts"
import { firstProblem } from "./internal/issuePath.ts"

export interface EdgeOptions {
  /** Largest accepted request body in bytes; larger ones answer 413. */
  readonly maxBodyBytes: number
  /** Which proxies' `X-Forwarded-For` entries name the client (ClientAddress.ts); none when absent. */
  readonly trustProxy?: TrustProxy | undefined
  /**
   * Whether requests are counted for `/metrics` (by route template, method and status). Off when nothing
   * serves the metrics: finding the route costs a finalizer per request, which the render route should not pay
   * for figures no one reads.
   */
  readonly requestMetrics?: boolean | undefined
}

const REQUEST_ID = /^[\w.:-]{1,128}$/
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"])

/**
 * The one media type of request bodies: `application/json`, with any parameters and in any case, exactly as
 * HttpApi reads it. Suffixed types (`application/vnd.x+json`) are refused too: HttpApi would answer them with
 * a plain-text 415. The edge decides for every route, the lean ones included, and answers in the envelope.
 */
const JSON_MEDIA_TYPE = "application/json"

const mediaTypeOf = (contentType: string) => {
  const parameters = contentType.indexOf(";")
  return (parameters === -1 ? contentType : contentType.slice(0, parameters)).trim().toLowerCase()
}

const envelope = errorResponse

const hasBody = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const length = request.headers["content-length"]
  return (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined
}

/** Rejections that need no routing and no body read. */
const precheck = (
  request: HttpServerRequest.HttpServerRequest,
  options: EdgeOptions
): HttpServerResponse.HttpServerResponse | undefined => {
  const conflict = conflictingSpellings(request.headers)
  if (conflict !== undefined) {
    return envelope(400, conflict.error.code, conflict.error.message, conflict.error.param)
  }
  if (!BODY_METHODS.has(request.method)) return undefined
  const contentType = request.headers["content-type"]
  // The OAuth token endpoint takes a form, as RFC 6749 says, and answers a wrong one in OAuth's terms itself.
  const path = pathOf(request.url)
  const formRoute = path === TOKEN_PATH
  // SCIM (RFC 7644 §3.1) sends `application/scim+json`, and some identity providers `application/json`.
  const scimRoute = path.startsWith(`${SCIM_PATH}/`) &&
    (contentType === undefined || SCIM_MEDIA_TYPES.has(mediaTypeOf(contentType)))
  // A declared media type is held to the rule even without a body: HttpApi would refuse it all the same.
  if (
    !formRoute && !scimRoute &&
    (contentType === undefined ? hasBody(request) : mediaTypeOf(contentType) !== JSON_MEDIA_TYPE)
  ) {
    return envelope(
      415,
      "unsupported_media_type",
      `Request bodies must be JSON: send the header 'Content-Type: application/json'${
        contentType === undefined ? "" : ` (got '${contentType}')`
      }.`
    )
  }
  const length = Number(request.headers["content-length"])
  if (Number.isFinite(length) && length > options.maxBodyBytes) {
    return tooLarge(options)
  }
  return undefined
}

const tooLarge = (options: EdgeOptions) => payloadTooLarge(options.maxBodyBytes)

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

const fromParseError = (error: HttpServerError.RequestParseError, options: EdgeOptions) =>
  error.reason === "BodyTooLarge"
    ? tooLarge(options)
    : envelope(400, "invalid_json", "The request body could not be read.")

const fromSchemaError = (error: HttpApiError.HttpApiSchemaError) => {
  if (error.kind === "Body" || error.kind === "ResponseHeaders") return undefined
  const { message, param } = firstProblem(error.cause.issue)
  if (error.kind === "Payload" && message === "Expected a valid JSON body") {
    return envelope(400, "invalid_json", "The request body is not valid JSON.")
  }
  const where = error.kind === "Payload" ? "" : ` (${error.kind.toLowerCase()})`
  return envelope(400, "invalid_request", `${message}${where}`, param)
}

/** The envelope for a failure no handler turned into a response; undefined when it is a server fault. */
const fromCause = (
  cause: Cause.Cause<unknown>,
  request: HttpServerRequest.HttpServerRequest,
  options: EdgeOptions
): HttpServerResponse.HttpServerResponse | undefined => {
  for (const reason of cause.reasons) {
    const value = Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
    if (HttpApiError.HttpApiSchemaError.is(value)) return fromSchemaError(value)
    if (HttpServerError.isHttpServerError(value)) {
      switch (value.reason._tag) {
        case "RouteNotFound":
          return envelope(404, "not_found", `No route for ${request.method} ${pathOf(request.url)}.`)
        case "RequestParseError":
          return fromParseError(value.reason, options)
      }
    }
    if (value instanceof HttpApiError.HttpApiPayloadTooLarge) return tooLarge(options)
    // A store that cannot answer is a 503 wherever its failure surfaces, even where no handler mapped it.
    if (value instanceof StoreError) return domainErrorResponse(value)
    if (value instanceof ServiceUnavailable) return envelope(503, value.error.code, value.error.message)
  }
  return undefined
}

/**
 * Every 503 tells the client when to retry: whatever answered it (an endpoint, the render route, the key check,
 * readiness, the edge itself), the store or the service is expected back shortly.
 */
const withRetryAfter = (response: HttpServerResponse.HttpServerResponse) =>
  response.status === 503 && response.headers["retry-after"] === undefined
    ? HttpServerResponse.setHeader(response, "retry-after", String(STORE_RETRY_AFTER_SECONDS))
    : response

const internalError = (requestId: string) =>
  envelope(500, "internal_error", `Something went wrong on our side; quote request id ${requestId} when reporting it.`)

const makeEdge = (options: EdgeOptions, idempotency: Idempotency["Service"]) => {
  const maxBodySize = ByteSize.bytes(options.maxBodyBytes)
  const idempotent = makeIdempotentRequests(idempotency, maxBodySize)
  const clientIpOf = makeClientAddress(options.trustProxy)

  const recover = (cause: Cause.Cause<unknown>, request: HttpServerRequest.HttpServerRequest, requestId: string) => {
    const answered = fromCause(cause, request, options)
    if (answered !== undefined) return Effect.succeed(answered)
    if (Cause.hasInterruptsOnly(cause)) {
      return Effect.succeed(envelope(503, "service_unavailable", "The request was cancelled."))
    }
    return Effect.as(Effect.logError("unhandled failure", Cause.pretty(cause)), internalError(requestId))
  }

  // This runs on every request: one context update, and the log line only built when it will be written.
  // `Types.unhandled` in the error type tells the router nothing is left for later middleware to handle.
  return (
    httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest> =>
    Effect.withFiber((fiber) => {
      const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
      const started = performance.now()
      const incoming = request.headers["x-request-id"]
      const requestId = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID()
      const early = precheck(request, options)
      // The route's template, for the metrics: the router puts it in the fiber's context for the handler's run.
      let route: string | undefined
      const routed = options.requestMetrics === true
        ? Effect.ensuring(
          httpEffect,
          Effect.withFiber((inner) => {
            route = Context.getOrUndefined(inner.context, HttpRouter.RouteContext)?.route.path
            return Effect.void
          })
        )
        : httpEffect
      const answered = early !== undefined ? Effect.succeed(early) : Effect.catchCause(
        Effect.updateContext(routed, (context: Context.Context<HttpServerRequest.HttpServerRequest>) =>
          Context.add(
            Context.add(
              Context.add(context, HttpIncomingMessage.MaxBodySize, maxBodySize),
              RequestContext,
              {
                channel: "http",
                requestId,
                method: request.method,
                uri: request.url,
                clientIp: clientIpOf(request),
                operator: null
              }
            ),
            References.CurrentLogAnnotations,
            { ...Context.get(context, References.CurrentLogAnnotations), request_id: requestId }
          )),
        (cause) => recover(cause, request, requestId)
      )
      // A POST with an `Idempotency-Key` may replay its first answer instead (IdempotencyKeys.ts).
      const handled = early !== undefined ? answered : idempotent(request, answered) ?? answered
      return Effect.flatMap(handled, (answer) => {
        // Portkey's SDKs read the id from their own header (and retry a 5xx that lacks it).
        const response = HttpServerResponse.setHeaders(withRetryAfter(answer), {
          "x-request-id": requestId,
          "x-portkey-request-id": requestId
        })
        if (options.requestMetrics === true) {
          observeRequest(fiber.context, request.method, route, response.status, (performance.now() - started) / 1000)
        }
        const level = response.status >= 500 ? "Warn" : "Info"
        if (LogLevel.isLessThan(level, fiber.getRef(References.MinimumLogLevel))) return Effect.succeed(response)
        // With a tracer installed (OTLP), the line names the request's trace, as its spans do.
        const span = fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
          ? undefined
          : Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
        return Effect.as(
          Effect.logWithLevel(level)("request").pipe(Effect.annotateLogs({
            request_id: requestId,
            method: request.method,
            path: pathOf(request.url),
            status: response.status,
            duration_ms: Math.round((performance.now() - started) * 100) / 100,
            ...(span === undefined ? {} : { trace_id: span.traceId })
          })),
          response
        )
      })
    })
}

/** Installs the edge around every route of the router. */
export const layerEdge = (options: EdgeOptions) =>
  HttpRouter.middleware()(Effect.map(Effect.service(Idempotency), (idempotency) => makeEdge(options, idempotency)), {
    global: true
  })
