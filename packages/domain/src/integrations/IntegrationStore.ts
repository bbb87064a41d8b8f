/**
 * Where integrations are kept: the record and its encrypted secrets. A slug is unique in its organisation
 * (`insert` and `update` fail with `Conflict`). A store that cannot answer fails with `StoreError`.
 */
import { Context, Effect, Option } from "effect"
import { type Conflict, type NotFound, requireRow } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { Integration, IntegrationFilter, StoredIntegration } from "./Integration.ts"

export class IntegrationStore extends Context.Service<
  IntegrationStore,
  {
    readonly insert: (stored: StoredIntegration) => Effect.Effect<void, Conflict | StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<StoredIntegration>, StoreError>
    readonly findBySlug: (
      organisationId: string,
      slug: string
    ) => Effect.Effect<Option.Option<StoredIntegration>, StoreError>
    /** The organisation's integrations the filter admits, by created_at, then id. */
    readonly list: (
      organisationId: string,
      filter: IntegrationFilter,
      page: PageRequest
    ) => Effect.Effect<Page<Integration>, StoreError>
    /** Replaces the record and its secrets (its id, organisation, workspace and type stay); false when none. */
    readonly update: (stored: StoredIntegration) => Effect.Effect<boolean, Conflict | StoreError>
    readonly delete: (id: string) => Effect.Effect<boolean, StoreError>
    /** Active integrations of every organisation, by id after `afterId` (null: from the first), `limit` at most. */
    readonly listActive: (
      afterId: string | null,
      limit: number
    ) => Effect.Effect<ReadonlyArray<Integration>, StoreError>
  }
>()("@gateway-control/IntegrationStore") {}

/**
 * The integration `ref` (its id or its slug) names in the organisation, as stored: an id of another organisation's
 * integration is not found. Finding is not allowing: the use case asks the policy next.
 */
export const findIntegration = Effect.fnUntraced(function*(
  store: IntegrationStore["Service"],
  organisationId: string,
  ref: string
): Effect.fn.Return<StoredIntegration, NotFound | StoreError> {
  const byId = Option.filter(yield* store.get(ref), (s) => s.record.organisation_id === organisationId)
  const found = Option.isSome(byId) ? byId : yield* store.findBySlug(organisationId, ref)
  return yield* requireRow(found, "integration", ref)
})
