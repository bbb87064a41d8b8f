/**
 * The unit of every administrative use case: the change and its audit record in one unit of work, whoever
 * calls it (the HTTP API, an embedding application, the CLI). A denied or failed call changes nothing and
 * gets its record in a unit of work of its own. No call goes unrecorded: when a record cannot be written the
 * call fails closed (a defect), and a change already made is rolled back with it.
 *
 * Store writes check that they run inside one (`grantedWrites`, through `ActiveUseCase`), so a path that
 * skips this module cannot change anything.
 */
import { Cause, Context, Effect, Layer, Result } from "effect"
import type { Principal } from "../access/Principal.ts"
import { hotPathSpan } from "../shared/internal/hotPathSpan.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { StoreTransaction } from "../shared/StoreTransaction.ts"
import { ActiveUseCase } from "./ActiveUseCase.ts"
import { Audit } from "./AuditLog.ts"
import { recordedStatusOf, successStatusOf } from "./AuditOutcome.ts"
import type { AuditActor } from "./AuditRecord.ts"
import { RequestContext, type RequestContextShape } from "./RequestContext.ts"
import { USE_CASES, type UseCaseName, type UseCaseRecord } from "./UseCases.ts"

export interface UseCaseSpec<A> {
  readonly useCase: UseCaseName
  /** Who acts: a principal, or (bootstrap) an actor no key stands for yet. */
  readonly actor: Principal | AuditActor
  /** Who the record names on success, when the change made the actor (bootstrap's new organisation). */
  readonly successActor?: ((result: A) => AuditActor) | undefined
  readonly resourceId: string | null | ((result: A) => string | null)
  /** What a failed call records when `resourceId` needs the result: the id or slug the call named, if any. */
  readonly requestedId?: string | null | undefined
  /** The workspace the call acts in; the actor's own when absent. */
  readonly workspaceId?: string | null | ((result: A) => string | null) | undefined
  /** The input as the caller gave it, in the API's casing; secrets are redacted before it is stored. */
  readonly body: unknown
  /** The body recorded on success, when it should also say what the use case decided (who created a key). */
  readonly successBody?: ((result: A) => unknown) | undefined
}

/**
 * A call refused before any use case ran: no usable key, or a request that does not decode or breaks the
 * input rules. Only the edge that refused it knows it happened, so it hands the domain what the record says.
 */
export interface RefusalSpec {
  /** The use case the call would have run; an entry of its own for a call that names none of the table's. */
  readonly useCase: UseCaseName | UseCaseRecord
  readonly actor: Principal | AuditActor
  readonly workspaceId: string | null
  /** The status the refusal answers with. */
  readonly status: number
  /** The body as sent, or null when it was not read (a caller nobody knows). */
  readonly body: unknown
  /** True when the body could not be read as JSON and is left out. */
  readonly bodyUnreadable?: boolean | undefined
}

/**
 * The spec of a change to a resource that lives in a workspace, recorded under the resource's id and
 * workspace; a call that names the resource (`requestedId`) records that reference when it fails.
 */
export const resourceChange = <A extends { readonly id: string; readonly workspace_id: string | null }>(
  useCase: UseCaseName,
  actor: Principal,
  body: unknown,
  requestedId?: string
): UseCaseSpec<A> => ({
  useCase,
  actor,
  resourceId: (changed) => changed.id,
  workspaceId: (changed) => changed.workspace_id,
  requestedId,
  body
})

const resolve = <A, V>(value: V | ((result: A) => V), result: A | undefined, fallback: V): V =>
  typeof value === "function" ? (result === undefined ? fallback : (value as (a: A) => V)(result)) : value

const actorOf = (actor: Principal | AuditActor): AuditActor => ({
  organisationId: actor.organisationId,
  keyId: actor.keyId,
  userId: actor.userId,
  ...(actor.workload === undefined
    ? {}
    : { workload: { issuer: actor.workload.issuer, subject: actor.workload.subject } }),
  ...(actor.session === undefined ? {} : { session: actor.session })
})

const workspaceOf = (actor: Principal | AuditActor): string | null => "workspaceId" in actor ? actor.workspaceId : null

/** What the record says of where the call came from. */
const origin = (context: RequestContextShape, useCase: string) => {
  switch (context.channel) {
    case "http":
      return { method: context.method, uri: context.uri }
    case "cli":
      return {
        method: "CLI",
        uri: context.operator === null ? context.uri : `${context.uri} (os user: ${context.operator})`
      }
    case "embedded":
      return { method: "EMBEDDED", uri: context.uri === "" ? `embedded:${useCase}` : context.uri }
  }
}

export class AuditedUseCase extends Context.Service<
  AuditedUseCase,
  {
    /**
     * Runs `change` as the use case `spec` names, with its audit record. Fails with `StoreError` when the store
     * cannot take the change or its record: never a change without its record.
     */
    readonly run: <A, E, R>(
      spec: UseCaseSpec<NoInfer<A>>,
      change: Effect.Effect<A, E, R>
    ) => Effect.Effect<A, E | StoreError, R>
    /**
     * `run` for a use case that calls another server before it changes anything: `outside` runs first, in no
     * unit of work (no transaction stays open across the network), then `change` and its record in one. A
     * failure of either step is recorded like any other.
     */
    readonly runSteps: <P, A, E1, E2, R1, R2>(
      spec: UseCaseSpec<NoInfer<A>>,
      outside: Effect.Effect<P, E1, R1>,
      change: (prepared: P) => Effect.Effect<A, E2, R2>
    ) => Effect.Effect<A, E1 | E2 | StoreError, R1 | R2>
    /**
     * Records a call refused before any use case ran, with the origin `RequestContext` gives, in a unit of work
     * of its own. Fails closed like every record: a record that cannot be written fails the call (`StoreError`
     * when the store does not answer, a defect otherwise), never leaves it unrecorded.
     */
    readonly refused: (refusal: RefusalSpec) => Effect.Effect<void, StoreError>
  }
>()("@gateway-control/AuditedUseCase") {
  static readonly layer = Layer.effect(
    AuditedUseCase,
    Effect.gen(function*() {
      const audit = yield* Audit
      const transaction = yield* StoreTransaction
      const crypto = yield* PlatformCrypto

      const runSteps = <P, A, E1, E2, R1, R2>(
        spec: UseCaseSpec<NoInfer<A>>,
        outside: Effect.Effect<P, E1, R1>,
        change: (prepared: P) => Effect.Effect<A, E2, R2>
      ): Effect.Effect<A, E1 | E2 | StoreError, R1 | R2> =>
        Effect.gen(function*() {
          const context = yield* RequestContext
          const useCase = USE_CASES[spec.useCase]
          const { action, resourceType } = useCase
          const { method, uri } = origin(context, spec.useCase)
          const requestId = context.requestId ?? crypto.uuid()
          const actor = actorOf(spec.actor)
          const successActor = spec.successActor
          const ownWorkspace = workspaceOf(spec.actor)
          const record = (status: number, result: A | undefined) =>
            audit.record({
              actor: result !== undefined && successActor !== undefined ? successActor(result) : actor,
              workspaceId: resolve(spec.workspaceId ?? ownWorkspace, result, ownWorkspace),
              action,
              resourceType,
              resourceId: resolve(spec.resourceId, result, spec.requestedId ?? null),
              method,
              uri,
              requestId,
              requestBody:
                (result !== undefined && spec.successBody !== undefined ? spec.successBody(result) : spec.body) ??
                  null,
              responseStatusCode: status,
              clientIp: context.clientIp
            })
          const recordFailure = <F>(cause: Cause.Cause<F>) => {
            const failure = Cause.findError(cause)
            const status = Result.isSuccess(failure) ? recordedStatusOf(failure.success) : 500
            // A record that cannot be written replaces the refusal: the caller gets its failure (`StoreError` when
            // the store is unavailable, else a defect), not an unaudited answer.
            return Effect.andThen(record(status, undefined), Effect.failCause(cause))
          }
          const prepared = yield* Effect.catchCause(outside, recordFailure)
          return yield* transaction.withTransaction(
            Effect.tap(change(prepared), (result) => record(successStatusOf(useCase), result))
          ).pipe(
            Effect.provideService(ActiveUseCase, spec.useCase),
            Effect.catchCause(recordFailure)
          )
        }).pipe(hotPathSpan(spec.useCase))

      const run = <A, E, R>(spec: UseCaseSpec<NoInfer<A>>, change: Effect.Effect<A, E, R>) =>
        runSteps(spec, Effect.void, () => change)

      const refused = (refusal: RefusalSpec) =>
        RequestContext.use((context) => {
          const named = typeof refusal.useCase === "string"
          const { action, resourceType } = named ? USE_CASES[refusal.useCase] : refusal.useCase
          const { method, uri } = origin(context, named ? refusal.useCase : `${resourceType}.${action}`)
          return Effect.asVoid(audit.record({
            actor: actorOf(refusal.actor),
            workspaceId: refusal.workspaceId,
            action,
            resourceType,
            resourceId: null,
            method,
            uri,
            requestId: context.requestId ?? crypto.uuid(),
            requestBody: refusal.body,
            requestBodyUnreadable: refusal.bodyUnreadable,
            responseStatusCode: refusal.status,
            clientIp: context.clientIp
          }))
        })

      return AuditedUseCase.of({ run, runSteps, refused })
    })
  )
}
