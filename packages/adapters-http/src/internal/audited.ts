import { Audit, CurrentPrincipal, StoreTransaction } from "@gateway-control/domain"
import { Cause, Effect, Result } from "effect"
import { type DomainError, failureStatusOf, type UpstreamError } from "../ApiErrors.ts"
import { RequestInfo } from "../RequestInfo.ts"
import { AUDITED_ENDPOINTS, type AuditedEndpointName } from "./auditedEndpoints.ts"

export interface AuditSpec<A> {
  /** The endpoint, whose entry in `AUDITED_ENDPOINTS` gives the record's action and resource type. */
  readonly endpoint: AuditedEndpointName
  readonly resourceId: string | null | ((result: A) => string | null)
  /** What a failed call records when `resourceId` needs the result: the id or slug the request named, if any. */
  readonly requestedId?: string | undefined
  /** The workspace the call acts in; the caller's own when absent. */
  readonly workspaceId?: string | null | ((result: A) => string | null) | undefined
  /** The request body as received; secrets are redacted before it is stored. */
  readonly body: unknown
  /** The body recorded on success, when it should also say what the service decided (who created a key). */
  readonly successBody?: ((result: A) => unknown) | undefined
}

const resolve = <A, V>(value: V | ((result: A) => V), result: A | undefined, fallback: V): V =>
  typeof value === "function" ? (result === undefined ? fallback : (value as (a: A) => V)(result)) : value

/**
 * Runs a mutating administrative use case with its audit record. On success the record is written in the
 * same unit of work as the change, so neither exists without the other. A denied or failed call changes
 * nothing, and gets its record in a unit of work of its own. No call goes unrecorded: when a record cannot
 * be written, the call fails closed with a 500 (and, on success, its change is rolled back).
 */
export const audited = <A, E extends DomainError, R>(spec: AuditSpec<NoInfer<A>>, effect: Effect.Effect<A, E, R>) =>
  auditedSteps(spec, Effect.void, () => effect)

/**
 * `audited` for a use case that calls another server before it changes anything: `outside` runs first, in no
 * unit of work (no transaction stays open across the network), then `change` and its audit record in one.
 * A failure of either step is recorded like any other.
 */
export const auditedSteps = <
  P,
  A,
  E1 extends DomainError | UpstreamError,
  E2 extends DomainError | UpstreamError,
  R1,
  R2
>(
  spec: AuditSpec<NoInfer<A>>,
  outside: Effect.Effect<P, E1, R1>,
  change: (prepared: P) => Effect.Effect<A, E2, R2>
) =>
  Effect.gen(function*() {
    const principal = yield* CurrentPrincipal
    const info = yield* RequestInfo
    const audit = yield* Audit
    const transaction = yield* StoreTransaction
    const { action, resourceType } = AUDITED_ENDPOINTS[spec.endpoint]!
    // Creations answer 201, every other change 200.
    const successStatus = action === "create" ? 201 : 200
    const record = (status: number, result: A | undefined) =>
      audit.record({
        actor: principal,
        workspaceId: resolve(spec.workspaceId ?? principal.workspaceId, result, principal.workspaceId),
        action,
        resourceType,
        resourceId: resolve(spec.resourceId, result, spec.requestedId ?? null),
        method: info.method,
        uri: info.uri,
        requestId: info.requestId,
        requestBody: (result !== undefined && spec.successBody !== undefined ? spec.successBody(result) : spec.body) ??
          null,
        responseStatusCode: status,
        clientIp: info.clientIp
      })
    const recordFailure = <F>(cause: Cause.Cause<F>) => {
      const failure = Cause.findError(cause)
      const status = Result.isSuccess(failure) ? failureStatusOf(failure.success as DomainError | UpstreamError) : 500
      // A record that cannot be written replaces the refusal: the caller gets a 500, not an unaudited answer.
      return Effect.andThen(record(status, undefined), Effect.failCause(cause))
    }
    const prepared = yield* Effect.catchCause(outside, recordFailure)
    return yield* transaction.withTransaction(Effect.tap(change(prepared), (result) => record(successStatus, result)))
      .pipe(Effect.catchCause(recordFailure))
  })
