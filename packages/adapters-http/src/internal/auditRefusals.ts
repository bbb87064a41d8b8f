/**
 * Audit records for mutating calls refused before any handler ran: a missing, unknown, revoked or expired
 * key (401; on render, a revoked or expired one only), and a request whose parameters or body do not decode or
 * break the input rules (400). The domain writes them (`AuditedUseCase.refused`, which reads the request's
 * origin from `RequestContext`); this module only decides which refusals are recorded and what they say. Like
 * every audit record, they fail closed: when one cannot be written the caller gets a 503 (store unavailable) or a 500 instead of the refusal.
 */
import {
  type AuditActor,
  type AuditedUseCase,
  type Principal,
  RequestContext,
  type RequestContextShape,
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

/** Which unauthenticated calls an endpoint records: every one, or only those of a known (revoked, expired) key. */
export type UnauthenticatedRefusals = "every" | "knownKeysOnly"

const edgeMissing = Effect.die(new Error("No request context: the edge middleware is not installed"))

export const makeRefusalRecorder = (useCases: AuditedUseCase["Service"]) => {
  const record = (
    ref: EndpointRef,
    refusal: {
      readonly actor: Principal | AuditActor
      readonly workspaceId: string | null
      readonly status: number
      readonly body: unknown
      readonly unreadable: boolean
    }
  ) =>
    // The edge provides the request's context to every route; without it the record would name no request.
    RequestContext.use((info: RequestContextShape) =>
      info.channel !== "http" ? edgeMissing : useCases.refused({
        useCase: auditedEndpoint(ref.group.identifier, ref.endpoint.identifier, ref.endpoint.method),
        actor: refusal.actor,
        workspaceId: refusal.workspaceId,
        status: refusal.status,
        body: refusal.body,
        bodyUnreadable: refusal.unreadable
      }).pipe(
        // A store that cannot take the record answers the call with 503 (retry later) in the refusal's place.
        Effect.mapError(storeUnavailable)
      )
    )

  /**
   * Records a mutating call refused for want of a usable key. A known key (revoked, expired) files it under
   * that key's organisation; otherwise it belongs to no organisation, and is recorded only where `which` is
   * `every`: render's lean route records known keys only, as a stranger's flood would otherwise write to the
   * store at its own rate. The body of a caller nobody knows is not read. A refusal path: a call that is let
   * through costs nothing more.
   */
  const unauthenticated = (error: Unauthenticated, ref: EndpointRef, which: UnauthenticatedRefusals) => {
    const key = error.knownKey
    if (!MUTATING_METHODS.has(ref.endpoint.method) || (key === undefined && which === "knownKeysOnly")) {
      return Effect.void
    }
    return record(ref, {
      actor: key === undefined
        ? { organisationId: null, keyId: null, userId: null }
        : { organisationId: key.organisation_id, keyId: key.id, userId: key.user_id, workload: key.workload },
      workspaceId: key?.workspace_id ?? null,
      status: 401,
      body: null,
      unreadable: false
    })
  }

  /** The endpoint, with a record for each mutating call refused because its request does not decode or breaks the input rules. */
  const decodingRefusals = <A, E, R>(httpEffect: Effect.Effect<A, E, R>, principal: Principal, ref: EndpointRef) =>
    MUTATING_METHODS.has(ref.endpoint.method)
      ? Effect.tapError(httpEffect, (failure) =>
        !isRequestRefusal(failure)
          ? Effect.void
          : Effect.flatMap(sentBody, ({ body, unreadable }) =>
            record(ref, { actor: principal, workspaceId: principal.workspaceId, status: 400, body, unreadable })))
      : httpEffect

  /**
   * Records a change refused because it was made with a session cookie from another origin, or without the
   * session's CSRF token (internal/sessionCookie.ts): filed under the person whose cookie the browser sent. The
   * body, which another site may have written, is not read.
   */
  const crossSite = (principal: Principal, ref: EndpointRef) =>
    MUTATING_METHODS.has(ref.endpoint.method)
      ? record(ref, {
        actor: principal,
        workspaceId: principal.workspaceId,
        status: 403,
        body: null,
        unreadable: false
      })
      : Effect.void

  return { unauthenticated, decodingRefusals, crossSite }
}
