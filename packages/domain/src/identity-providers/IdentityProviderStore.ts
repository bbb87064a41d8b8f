/**
 * Where identity providers and sign-ins under way are kept. A store that cannot answer fails with `StoreError`.
 */
import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { IdentityProvider, SignInFlow } from "./IdentityProvider.ts"

/** A provider with its client secret, encrypted at rest (`SecretCipher`). */
export interface StoredIdentityProvider {
  readonly provider: IdentityProvider
  readonly encryptedSecret: string
}

export class IdentityProviderStore extends Context.Service<
  IdentityProviderStore,
  {
    /** Fails with `Conflict` when the slug is taken. */
    readonly insert: (stored: StoredIdentityProvider) => Effect.Effect<void, Conflict | StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<StoredIdentityProvider>, StoreError>
    readonly findBySlug: (slug: string) => Effect.Effect<Option.Option<StoredIdentityProvider>, StoreError>
    /** The organisation's providers, by created_at, then id. */
    readonly list: (organisationId: string, page: PageRequest) => Effect.Effect<Page<IdentityProvider>, StoreError>
    /** Every enabled provider of any organisation, oldest first: the sign-in page's choices. */
    readonly listEnabled: Effect.Effect<ReadonlyArray<IdentityProvider>, StoreError>
    /** Replaces the provider's fields (its id, organisation and creation stay); false when there was none. */
    readonly update: (stored: StoredIdentityProvider) => Effect.Effect<boolean, Conflict | StoreError>
    readonly delete: (id: string) => Effect.Effect<boolean, StoreError>
  }
>()("@gateway-control/IdentityProviderStore") {}

export class SignInFlowStore extends Context.Service<
  SignInFlowStore,
  {
    /** Keeps the flow; flows expired before `now` are dropped on the way. */
    readonly insert: (flow: SignInFlow, now: string) => Effect.Effect<void, StoreError>
    /**
     * Removes the flow with this state digest and answers it when it had not expired at `now`: one taker at most,
     * however many callbacks race.
     */
    readonly take: (stateDigest: string, now: string) => Effect.Effect<Option.Option<SignInFlow>, StoreError>
  }
>()("@gateway-control/SignInFlowStore") {}
