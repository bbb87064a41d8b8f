/**
 * How a handler runs an administrative use case that its domain service does not yet audit itself: through
 * the domain's `AuditedUseCase`, which writes the record in the change's unit of work. The HTTP adapter only
 * names the use case and the principal; the record's origin comes from the edge's `RequestContext`.
 */
import { AuditedUseCase, CurrentPrincipal, type UseCaseSpec } from "@gateway-control/domain"
import { Effect } from "effect"
import type { DomainError, UpstreamError } from "../ApiErrors.ts"
import type { AuditedEndpointName } from "./auditedEndpoints.ts"

export interface AuditSpec<A> extends Omit<UseCaseSpec<A>, "useCase" | "actor"> {
  /** The endpoint, whose use case gives the record's action and resource type. */
  readonly endpoint: AuditedEndpointName
}

export const audited = <A, E extends DomainError, R>(spec: AuditSpec<NoInfer<A>>, effect: Effect.Effect<A, E, R>) =>
  auditedSteps(spec, Effect.void, () => effect)

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
    const useCases = yield* AuditedUseCase
    const { endpoint, ...rest } = spec
    return yield* useCases.runSteps({ ...rest, useCase: endpoint, actor: principal }, outside, change)
  })
