/**
 * Where SCIM tokens are kept: their digests, never their plaintext. Reads return `Option` for absence; a store
 * that cannot answer fails with `StoreError`.
 */
import { Context, type Effect, type Option } from "effect"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { ScimToken, StoredScimToken } from "./ScimToken.ts"

export class ScimTokenStore extends Context.Service<
  ScimTokenStore,
  {
    readonly insert: (stored: StoredScimToken) => Effect.Effect<void, StoreError>
    /** The token whose secret has this SHA-256 digest (hex), whatever its status. */
    readonly findByDigest: (digest: string) => Effect.Effect<Option.Option<ScimToken>, StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<ScimToken>, StoreError>
    /** The organisation's tokens, by created_at, then id. */
    readonly list: (organisationId: string, page: PageRequest) => Effect.Effect<Page<ScimToken>, StoreError>
    /** Marks an active token revoked; false when there was no such active token. */
    readonly revoke: (id: string, at: string) => Effect.Effect<boolean, StoreError>
  }
>()("@gateway-control/ScimTokenStore") {}
