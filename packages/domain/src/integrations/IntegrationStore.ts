/**
 * Where integrations are kept: the record and its encrypted secrets. A slug is unique in its organisation
 * (`insert` and `update` fail with `Conflict`). A store that cannot answer fails with `StoreError`.
 */
import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.ts"
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
