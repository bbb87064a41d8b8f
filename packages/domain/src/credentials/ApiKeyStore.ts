/**
 * Where API keys are kept: their digests, never their plaintext.
 *
 * Reads return `Option` for absence; writes fail with `Conflict` when a uniqueness rule would break.
 * A store that cannot answer fails with `StoreError`; any other storage failure is a defect in the adapter.
 */
import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { ApiKey, ApiKeyStatus, ApiKeyType, StoredApiKey } from "./ApiKey.ts"

/** What a key list may be narrowed to, on top of its organisation and workspace; absent fields do not narrow. */
export interface KeyListFilters {
  readonly status?: ApiKeyStatus | undefined
  readonly type?: ApiKeyType | undefined
  /** Part of the name, in any case. */
  readonly name?: string | undefined
  /** Keys not used since this instant: last used before it, or never. */
  readonly lastUsedBefore?: string | undefined
}

/** A new secret for a key: the digest and masked form that replace the current ones. */
export interface KeyRotation {
  readonly id: string
  readonly digest: string
  readonly maskedKey: string
  readonly at: string
  /** Until when the replaced secret still works; `at` for none. */
  readonly transitionEndsAt: string
}

export class ApiKeyStore extends Context.Service<
  ApiKeyStore,
  {
    readonly insert: (key: Omit<StoredApiKey, "previousDigest">) => Effect.Effect<void, Conflict | StoreError>
    /** The key whose plaintext has this SHA-256 digest (hex), as its secret or as the secret its rotation replaced. */
    readonly findByDigest: (digest: string) => Effect.Effect<Option.Option<StoredApiKey>, StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<ApiKey>, StoreError>
    /** Keys of an organisation, optionally of one workspace, narrowed by `filters`; ordered by created_at, then id. */
    readonly list: (
      organisationId: string,
      workspaceId: string | null,
      page: PageRequest,
      filters?: KeyListFilters
    ) => Effect.Effect<Page<ApiKey>, StoreError>
    /** Marks the key revoked; false when there was no such key. */
    readonly revoke: (id: string, at: string) => Effect.Effect<boolean, StoreError>
    /**
     * Gives an active key a new secret, keeping the replaced one's digest until `transitionEndsAt` when that is
     * after `at`. False, changing nothing, when there is no such active key or its last rotation's transition
     * has not ended at `at`: one rotation at a time.
     */
    readonly rotate: (rotation: KeyRotation) => Effect.Effect<boolean, StoreError>
    /**
     * Writes the key's changeable fields (name, description, scopes, expires_at, rate_limits,
     * last_updated_at); false when there was no such key.
     */
    readonly update: (key: ApiKey) => Effect.Effect<boolean, StoreError>
    /** Records that the keys were used at `at`; a key's later use already recorded is kept. */
    readonly recordUse: (ids: ReadonlyArray<string>, at: string) => Effect.Effect<void, StoreError>
    /**
     * Forgets the replaced secrets of transitions ended by `now`, and answers the keys whose transition this
     * call ended: each ended transition is answered once, whichever process asks.
     */
    readonly endTransitions: (now: string) => Effect.Effect<ReadonlyArray<ApiKey>, StoreError>
  }
>()("@gateway-control/ApiKeyStore") {}
