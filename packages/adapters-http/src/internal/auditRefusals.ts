/**
 * Audit records for mutating calls refused before any handler ran: a missing, unknown, revoked or expired
 * key (401; on render, a revoked or expired one only), and a request whose parameters or body do not decode or break the input rules (400). Like every audit record, they fail
 * closed: when one cannot be written the caller gets a 503 (store unavailable) or a 500 instead of the refusal.
 */
import {
  type Audit,
  type AuditActor,
  type Principal,
  RequestContext,
  type Unauthenticated
} from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { storeUnavailable } from "../ApiErrors.ts"
import { isInputRefusal } from "../InputRulesLive.ts"
import { auditedEndpoint, MUTATING_METHODS } from "./auditedEndpoints.ts"

/** The endpoint a middleware wraps, as HttpApi describes it. */
export interface EndpointRef {
  readonly endpoint: { readonly identifier: string; readonly method: string }
  readonly group: { readonly identifier: string }
}

type HttpApiSchemaError = HttpApiError.HttpApiSchemaError
const isSchemaError = (value: unknown): value is HttpApiSchemaError => HttpApiError.HttpApiSchemaError.is(value)

const DECODING_KINDS: ReadonlySet<HttpApiSchemaError["kind"]> = new Set(["Params", "Query", "Headers", "Payload"])

/**
 * The request-decoding error in an endpoint's failure. HttpApi hands security middleware the endpoint's
 * failures wrapped in an object with the original under `error`; it may also arrive unwrapped.
 */
const unwrapped = (failure: unknown): unknown =>
  typeof failure === "object" && failure !== null && "error" in failure ? failure.error : undefined

/** A refusal of the request itself: it does not decode, or it breaks the input rules. */
const isRequestRefusal = (failure: unknown): boolean => {
  const inner = unwrapped(failure)
  const error = isSchemaError(failure) ? failure : isSchemaError(inner) ? inner : undefined
  return (error !== undefined && DECODING_KINDS.has(error.kind)) || isInputRefusal(failure) || isInputRefusal(inner)
}

/** The body as sent, parsed as JSON when it is JSON. The request caches it, so this reads nothing twice. */
const sentBody = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const text = yield* Effect.orElseSucceed(request.text, () => undefined)
  if (text === undefined) return { body: null, unreadable: true }
  if (text === "") return { body: null, unreadable: false }
  try {
    return { body: JSON.parse(text) as unknown, unreadable: false }
  } catch {
    return { body: null, unreadable: true }
  }
})

export const makeRefusalRecorder = (audit: Audit["Service"]) => {
  const record = (
    ref: EndpointRef,
    refusal: {
      readonly actor: AuditActor
      readonly workspaceId: string | null
      readonly status: number
      readonly body: unknown
      readonly unreadable: boolean
    }
  ) =>
    // The edge provides the request's context to every route; read from the fiber so the middleware needs no more.
    RequestContext.use((info) => {
      if (info.channel !== "http") {
        return Effect.die(new Error("No request context: the edge middleware is not installed"))
      }
      const { action, resourceType } = auditedEndpoint(
        ref.group.identifier,
        ref.endpoint.identifier,
        ref.endpoint.method
      )
      return Effect.asVoid(audit.record({
        actor: refusal.actor,
        workspaceId: refusal.workspaceId,
        action,
        resourceType,
        resourceId: null,
        method: info.method,
        uri: info.uri,
        requestId: info.requestId ?? "",
        requestBody: refusal.body,
        requestBodyUnreadable: refusal.unreadable,
        responseStatusCode: refusal.status,
        clientIp: info.clientIp
      })).pipe(
        // A store that cannot take the record answers the call with 503 (retry later) in the refusal's place.
        Effect.mapError(storeUnavailable)
      )
    })

  /**
   * Records a mutating call refused for want of a usable key. A known key (revoked, expired) files it under
   * that key's organisation; otherwise it belongs to no organisation. The body of a caller nobody knows is
   * not read.
   */
  const unauthenticated = (error: Unauthenticated, ref: EndpointRef) => {
    if (!MUTATING_METHODS.has(ref.endpoint.method)) return Effect.void
    const key = error.knownKey
    return record(ref, {
      actor: key === undefined
        ? { organisationId: null, keyId: null, userId: null }
        : { organisationId: key.organisation_id, keyId: key.id, userId: key.user_id },
      workspaceId: key?.workspace_id ?? null,
      status: 401,
      body: null,
      unreadable: false
    })
  }

  /**
   * Records a call refused for a known key that is no longer usable (revoked, expired), and nothing for an
   * unknown or missing one: render's lean route, where a stranger's flood would otherwise write to the store
   * at its own rate. A refusal path: a call that is let through costs nothing more.
   */
  const knownKeyRefused = (error: Unauthenticated, ref: EndpointRef) =>
    error.knownKey === undefined ? Effect.void : unauthenticated(error, ref)

  /** The endpoint, with a record for each mutating call refused because its request does not decode or breaks the input rules. */
  const decodingRefusals = <A, E, R>(httpEffect: Effect.Effect<A, E, R>, principal: Principal, ref: EndpointRef) =>
    MUTATING_METHODS.has(ref.endpoint.method)
      ? Effect.tapError(httpEffect, (failure) =>
        !isRequestRefusal(failure)
          ? Effect.void
          : Effect.flatMap(sentBody, ({ body, unreadable }) =>
            record(ref, { actor: principal, workspaceId: principal.workspaceId, status: 400, body, unreadable })))
      : httpEffect

  return { unauthenticated, knownKeyRefused, decodingRefusals }
}
