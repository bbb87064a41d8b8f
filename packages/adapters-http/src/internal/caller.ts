/**
 * How a handler runs a use case: as the calling key's principal, with the domain's refusals answered in the
 * envelope; a change with its audit record; a list as one page in the list envelope.
 */
import { CurrentPrincipal, type Page, type PageRequest, type Principal } from "@gateway-control/domain"
import { Effect } from "effect"
import { type DomainError, fromDomain, fromDomainOrUpstream, type UpstreamError } from "../ApiErrors.ts"
import { audited, type AuditSpec } from "./audited.ts"
import type { AuditedEndpointName } from "./auditedEndpoints.ts"
import { listBody, pageOf, type PageQuery } from "./listing.ts"

export const currentPrincipal = Effect.service(CurrentPrincipal)

export const asCaller = <A, E extends DomainError, R>(use: (principal: Principal) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(currentPrincipal, use).pipe(Effect.mapError(fromDomain))

/** A use case that may call another server: its failures answer 502 or 504. */
export const asCallerOrUpstream = <A, E extends DomainError | UpstreamError, R>(
  use: (principal: Principal) => Effect.Effect<A, E, R>
) => Effect.flatMap(currentPrincipal, use).pipe(Effect.mapError((error: E) => fromDomainOrUpstream(error)))

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
