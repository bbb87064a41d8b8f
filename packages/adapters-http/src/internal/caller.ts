/**
 * How a handler runs a use case: as the calling key's principal, with the domain's refusals answered in the
 * envelope; a change with its audit record; a list as one page in the list envelope.
 */
import { CurrentPrincipal, type Page, type PageRequest, type Principal } from "@gateway-control/domain"
import { Effect } from "effect"
import { type DomainError, fromDomain, fromDomainOrUpstream, type UpstreamError } from "../ApiErrors.ts"
import { audited, auditedSteps, type AuditSpec } from "./audited.ts"
import type { AuditedEndpointName } from "./auditedEndpoints.ts"
import { listBody, pageOf, type PageQuery } from "./listing.ts"

const currentPrincipal = Effect.service(CurrentPrincipal)

export const asCaller = <A, E extends DomainError, R>(use: (principal: Principal) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(currentPrincipal, use).pipe(Effect.mapError(fromDomain))

/** `use` comes first so that its result, not the handler's expected answer, types the audit spec. */
export const auditedAsCaller = <A, E extends DomainError, R>(
  use: (principal: Principal) => Effect.Effect<A, E, R>,
  spec: AuditSpec<A>
) => asCaller((principal) => audited(spec, use(principal)))

export const pageAsCaller = <A, E extends DomainError, R>(
  query: PageQuery,
  list: (principal: Principal, request: PageRequest) => Effect.Effect<Page<A>, E, R>
) =>
  asCaller((principal) => {
    const request = pageOf(query)
    return Effect.map(list(principal, request), (page) => listBody(page, request))
  })

/**
 * A change to a resource that lives in a workspace, audited under the resource's id and workspace. A request
 * that names the resource (`ref`, its id or slug) records that reference when the change fails.
 */
export const auditedResourceChange = <
  A extends { readonly id: string; readonly workspace_id: string | null },
  E extends DomainError,
  R
>(
  endpoint: AuditedEndpointName,
  request: { readonly ref?: string; readonly body: unknown },
  use: (principal: Principal) => Effect.Effect<A, E, R>
) =>
  auditedAsCaller(use, {
    endpoint,
    resourceId: (resource) => resource.id,
    requestedId: request.ref,
    workspaceId: (resource) => resource.workspace_id,
    body: request.body
  })

/**
 * `auditedResourceChange` for a use case that calls another server first (`outside`, in no unit of work), then
 * changes a resource (`change`, with its audit record); the other server's failures answer 502 or 504.
 */
export const auditedCallOut = <
  P,
  A extends { readonly id: string; readonly workspace_id: string | null },
  E1 extends DomainError | UpstreamError,
  E2 extends DomainError | UpstreamError,
  R1,
  R2
>(
  endpoint: AuditedEndpointName,
  request: { readonly ref: string; readonly body: unknown },
  outside: (principal: Principal) => Effect.Effect<P, E1, R1>,
  change: (prepared: P) => Effect.Effect<A, E2, R2>
) =>
  Effect.flatMap(currentPrincipal, (principal) =>
    auditedSteps(
      {
        endpoint,
        resourceId: (resource) => resource.id,
        requestedId: request.ref,
        workspaceId: (resource) => resource.workspace_id,
        body: request.body
      },
      outside(principal),
      change
    )).pipe(Effect.mapError((error: E1 | E2) => fromDomainOrUpstream(error)))
