/**
 * Where trust policies are kept. Reads return `Option` for absence; `insert` and `update` fail with `Conflict`
 * when another policy of the organisation has the name. A store that cannot answer fails with `StoreError`.
 */
import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { TrustPolicy } from "./TrustPolicy.ts"

export class TrustPolicyStore extends Context.Service<
  TrustPolicyStore,
  {
    readonly insert: (policy: TrustPolicy) => Effect.Effect<void, Conflict | StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<TrustPolicy>, StoreError>
    /** The organisation's policies, by created_at, then id. */
    readonly list: (organisationId: string, page: PageRequest) => Effect.Effect<Page<TrustPolicy>, StoreError>
    /** Every policy, of any organisation, that trusts tokens of this exact issuer; oldest first. */
    readonly findByIssuer: (issuer: string) => Effect.Effect<ReadonlyArray<TrustPolicy>, StoreError>
    /** Replaces the policy's fields (its id, organisation and creation stay); false when there was none. */
    readonly update: (policy: TrustPolicy) => Effect.Effect<boolean, Conflict | StoreError>
    readonly delete: (id: string) => Effect.Effect<boolean, StoreError>
  }
>()("@gateway-control/TrustPolicyStore") {}
