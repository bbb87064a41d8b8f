/**
 * Where API keys are kept: their digests, never their plaintext.
 *
 * Reads return `Option` for absence; writes fail with `Conflict` when a uniqueness rule would break.
 * Any other storage failure is a defect in the adapter.
 */
import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { ApiKey, StoredApiKey } from "./ApiKey.ts"

export class ApiKeyStore extends Context.Service<
  ApiKeyStore,
  {
    readonly insert: (key: StoredApiKey) => Effect.Effect<void, Conflict>
    /** The key whose plaintext has this SHA-256 digest (hex). */
    readonly findByDigest: (digest: string) => Effect.Effect<Option.Option<StoredApiKey>>
    readonly get: (id: string) => Effect.Effect<Option.Option<ApiKey>>
    /** Keys of an organisation, optionally of one workspace; ordered by created_at, then id. */
    readonly list: (
      organisationId: string,
      workspaceId: string | null,
      page: PageRequest
    ) => Effect.Effect<Page<ApiKey>>
    /** Replaces what a key's holder may change (name, description, scopes, expiry); false when none. */
    readonly update: (key: ApiKey) => Effect.Effect<boolean>
    /** Marks the key revoked; false when there was no such key. */
    readonly revoke: (id: string, at: string) => Effect.Effect<boolean>
  }
>()("@gateway-control/ApiKeyStore") {}
