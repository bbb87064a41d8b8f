/**
 * How a path's reference finds a workspace resource: by id, else by slug where the policy's rule looks slugs
 * up (`slugScope`). Whether the caller may see what is found is the policy's question, asked afterwards.
 */
import { Effect, Option } from "effect"
import { requireRow } from "../shared/Errors.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { slugScope } from "./Policy.ts"
import type { Principal } from "./Principal.ts"

/** What a store of slugged workspace resources answers to. */
export interface SlugLookup<A> {
  readonly get: (id: string) => Effect.Effect<Option.Option<A>, StoreError>
  readonly findBySlug: (workspaceId: string, slug: string) => Effect.Effect<Option.Option<A>, StoreError>
}

/**
 * The resource `ref` (an id or a slug) names; `NotFound` naming `resource` when there is none. `workspaceId` is
 * the workspace the request names for slugs, if any.
 */
export const findByIdOrSlug = <A>(lookup: SlugLookup<A>, resource: string) =>
  Effect.fnUntraced(function*(principal: Principal, ref: string, workspaceId?: string | undefined) {
    const byId = yield* lookup.get(ref)
    const scope = slugScope(principal, workspaceId)
    const found = Option.isSome(byId) || scope === null ? byId : yield* lookup.findBySlug(scope, ref)
    return yield* requireRow(found, resource, ref)
  })
