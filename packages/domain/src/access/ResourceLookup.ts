/**
 * How a path's reference finds a workspace resource, for every kind (prompts, partials, collections, virtual
 * keys, configs): by id, else by slug where the policy's rule looks slugs up (`slugScope`): the named workspace,
 * else the key's own. An admin key naming no workspace has no such place: it finds a slug that exactly one of
 * the workspaces it can see holds, and is asked to name the workspace when several do. Whether the caller may
 * see what is found is the policy's question, asked afterwards.
 */
import { Effect, Option } from "effect"
import { InvalidRequest, requireRow } from "../shared/Errors.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { canSee, slugScope, Target } from "./Policy.ts"
import type { Principal } from "./Principal.ts"

/** Where a resource is: what the policy and the organisation-wide slug rule read of it. */
export interface WorkspacePlace {
  readonly organisation_id: string
  readonly workspace_id: string
}

/** What a store of slugged workspace resources answers to. */
export interface SlugLookup<A> {
  readonly get: (id: string) => Effect.Effect<Option.Option<A>, StoreError>
  readonly findBySlug: (workspaceId: string, slug: string) => Effect.Effect<Option.Option<A>, StoreError>
  /** Those with this slug in any workspace of the organisation (a slug is unique per workspace only). */
  readonly findAllBySlug: (organisationId: string, slug: string) => Effect.Effect<ReadonlyArray<A>, StoreError>
}

/**
 * The resource `ref` (an id or a slug) names; `NotFound` naming `resource` when there is none, and 400
 * `invalid_request` (naming `param`) when the slug is ambiguous: several of the workspaces an admin key sees
 * have it, and the request must name one (`workspace_id`) or use the id. `workspaceId` is the workspace the
 * request names for slugs, if any; `placeOf` reads where a found resource is.
 */
export const findByIdOrSlug = <A>(
  lookup: SlugLookup<A>,
  resource: string,
  placeOf: (found: A) => WorkspacePlace,
  param = "id"
) =>
  Effect.fnUntraced(function*(principal: Principal, ref: string, workspaceId?: string | undefined) {
    const byId = yield* lookup.get(ref)
    if (Option.isSome(byId)) return byId.value
    const scope = slugScope(principal, workspaceId)
    if (scope !== null) return yield* requireRow(yield* lookup.findBySlug(scope, ref), resource, ref)
    const visible = (yield* lookup.findAllBySlug(principal.organisationId, ref)).filter((found) => {
      const place = placeOf(found)
      return canSee(principal, Target.workspace(place.organisation_id, place.workspace_id))
    })
    if (visible.length > 1) {
      const workspaces = visible.map((found) => placeOf(found).workspace_id).join(", ")
      return yield* InvalidRequest.of(
        `Several workspaces (${workspaces}) have a ${resource} with slug '${ref}': name one with ` +
          `?workspace_id= (or workspace_id in the body), or use the ${resource}'s id.`,
        param
      )
    }
    return yield* requireRow(Option.fromUndefinedOr(visible[0]), resource, ref)
  })
