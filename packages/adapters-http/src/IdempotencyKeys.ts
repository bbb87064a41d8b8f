/**
 * `Idempotency-Key` on the API's POST routes, as Stripe has it: the edge asks the domain's `Idempotency`
 * whether a request carrying the header runs, replays the first answer given to that key (same credential,
 * same method, path and body, within 24 hours), or is refused (the key came with another request: 422; its
 * first request is still running: 409). What it keeps is the answer the client got; the use case that ran stays
 * the one that authorised and audited it, and a replay runs no use case at all.
 *
 * The render, token and SCIM routes read their bodies straight from the socket: they ignore the header. A request without the header costs one header lookup.
 */
import { type Idempotency, IdempotentAnswer, type StoreError } from "@gateway-control/domain"
import { type ByteSize, Effect, Redacted } from "effect"
import { HttpIncomingMessage, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHash } from "node:crypto"
import { presentedApiKey } from "./Admission.ts"
import { domainErrorResponse, errorResponse } from "./ApiErrors.ts"

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key"

/** Set on an answer replayed from an earlier request with the same key (Stripe's name). */
export const IDEMPOTENT_REPLAYED_HEADER = "idempotent-replayed"

/**
 * Routes that take no key, under any mount prefix: render (`/v1/prompts/{id}/render`), the OAuth token endpoint
 * and SCIM (`/scim/v2/…`), which read their bodies from the socket themselves.
 */
const IGNORED = /\/v1\/prompts\/[^/]+\/render\/?$|\/v1\/oauth\/token\/?$|\/scim\/v2(?:\/|$)/

/**
 * Answers not kept, so that a retry runs again: a missing or bad credential (401), a rate limit (429), and any
 * failure on our side or the store's (5xx), after which nothing was changed.
 */
const kept = (status: number) => status < 500 && status !== 401 && status !== 429

const digest = (...parts: ReadonlyArray<string>) => {
  const hash = createHash("sha256")
  for (const part of parts) hash.update(part).update("\u0000")
  return hash.digest("base64url")
}

const replay = (answer: IdempotentAnswer) =>
  HttpServerResponse.text(answer.body, {
    status: answer.status,
    contentType: answer.content_type,
    headers: { [IDEMPOTENT_REPLAYED_HEADER]: "true" }
  })

const answerOf = (response: HttpServerResponse.HttpServerResponse): IdempotentAnswer | undefined => {
  const body = response.body
  switch (body._tag) {
    case "Empty":
      return new IdempotentAnswer({ status: response.status, content_type: "application/json", body: "" })
    case "Uint8Array":
      return new IdempotentAnswer({
        status: response.status,
        content_type: body.contentType,
        body: body.text ?? new TextDecoder().decode(body.body)
      })
    default:
      // A streamed or raw body cannot be kept: the request runs again on a retry.
      return undefined
  }
}

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/**
 * The edge's idempotency step: `undefined` when the request carries no key or goes to a route that takes none;
 * otherwise `handled` (the request's whole handling, failures already answered) wrapped in the key's check.
 */
export const makeIdempotentRequests = (idempotency: Idempotency["Service"], maxBodySize: ByteSize.ByteSize) =>
<R>(
  request: HttpServerRequest.HttpServerRequest,
  handled: Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> | undefined => {
  if (request.method !== "POST") return undefined
  const key = request.headers[IDEMPOTENCY_KEY_HEADER]
  if (key === undefined || IGNORED.test(pathOf(request.url))) return undefined
  const credential = Redacted.value(presentedApiKey(request.headers))
  // Without a credential the request is refused anyway (401), and there is nobody to keep the key for.
  if (credential === "") return undefined
  const scope = digest("credential", credential)
  return Effect.provideService(request.text, HttpIncomingMessage.MaxBodySize, maxBodySize).pipe(
    // A body that cannot be read is the route's to answer (400, 413): it runs without the key.
    Effect.matchEffect({
      onFailure: () => handled,
      onSuccess: (body) => {
        const fingerprint = digest(request.method, request.url, body)
        return idempotency.start(scope, key, fingerprint).pipe(
          Effect.matchEffect({
            onFailure: (error) => {
              switch (error._tag) {
                case "IdempotencyKeyReused":
                  return Effect.succeed(errorResponse(422, "idempotency_key_reused", error.message))
                case "IdempotencyKeyInUse":
                  return Effect.succeed(errorResponse(409, "idempotency_key_in_use", error.message))
                default:
                  // A malformed key (400), or a store that cannot answer (503 store_unavailable): nothing ran.
                  return Effect.succeed(domainErrorResponse(error))
              }
            },
            onSuccess: (start) =>
              start._tag === "Replay" ? Effect.succeed(replay(start.answer)) : Effect.onInterrupt(
                Effect.flatMap(handled, (response) => {
                  const answer = kept(response.status) ? answerOf(response) : undefined
                  const settle: Effect.Effect<void, StoreError> = answer === undefined
                    ? idempotency.abandon(scope, key)
                    : idempotency.finish(scope, key, answer)
                  // The change is made whatever happens to the key's record: the client gets its answer. A
                  // key left unanswered is taken over once its lock lapses.
                  return settle.pipe(
                    Effect.catch((error: StoreError) =>
                      Effect.logWarning(`idempotency key not settled: ${error.message}`)
                    ),
                    Effect.as(response)
                  )
                }),
                () => Effect.ignore(idempotency.abandon(scope, key))
              )
          })
        )
      }
    })
  )
}
