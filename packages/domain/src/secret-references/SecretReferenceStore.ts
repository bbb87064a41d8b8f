/**
 * Where secret references are kept: the record and its login's encrypted secret fields. A slug is unique in
 * its organisation (`insert` and `update` fail with `Conflict`). A store that cannot answer fails with
 * `StoreError`.
 */
import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { SecretReference, SecretReferenceFilter, StoredSecretReference } from "./SecretReference.ts"

export class SecretReferenceStore extends Context.Service<
  SecretReferenceStore,
  {
    readonly insert: (stored: StoredSecretReference) => Effect.Effect<void, Conflict | StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<StoredSecretReference>, StoreError>
    readonly findBySlug: (
      organisationId: string,
      slug: string
    ) => Effect.Effect<Option.Option<StoredSecretReference>, StoreError>
    /** The organisation's references, by created_at, then id. */
    readonly list: (
      organisationId: string,
      filter: SecretReferenceFilter,
      page: PageRequest
    ) => Effect.Effect<Page<SecretReference>, StoreError>
    /** Replaces the record and its secrets (its id, organisation, manager and creation stay); false when none. */
    readonly update: (stored: StoredSecretReference) => Effect.Effect<boolean, Conflict | StoreError>
    readonly delete: (id: string) => Effect.Effect<boolean, StoreError>
  }
>()("@gateway-control/SecretReferenceStore") {}
