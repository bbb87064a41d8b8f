/**
 * Where providers are kept. A slug is unique in its workspace (`insert` and `update` fail with `Conflict`). A
 * store that cannot answer fails with `StoreError`.
 */
import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { Provider } from "./Provider.ts"

export class ProviderStore extends Context.Service<
  ProviderStore,
  {
    readonly insert: (provider: Provider) => Effect.Effect<void, Conflict | StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<Provider>, StoreError>
    readonly findBySlug: (workspaceId: string, slug: string) => Effect.Effect<Option.Option<Provider>, StoreError>
    /** Those with this slug in any workspace of the organisation (ResourceLookup.ts). */
    readonly findAllBySlug: (organisationId: string, slug: string) => Effect.Effect<ReadonlyArray<Provider>, StoreError>
    /** The organisation's providers, or one workspace's, by created_at, then id. */
    readonly list: (
      organisationId: string,
      workspaceId: string | null,
      page: PageRequest
    ) => Effect.Effect<Page<Provider>, StoreError>
    /**
     * The providers that are virtual keys (credentials/VirtualKeys.ts): each shares its id with its integration
     * (`integration_id = id`), the organisation's or one workspace's, by created_at, then id.
     */
    readonly listVirtualKeys: (
      organisationId: string,
      workspaceId: string | null,
      page: PageRequest
    ) => Effect.Effect<Page<Provider>, StoreError>
    /** The slugs of the providers on an integration, at most `limit`. */
    readonly usingIntegration: (
      integrationId: string,
      limit: number
    ) => Effect.Effect<ReadonlyArray<string>, StoreError>
    /** Replaces the provider (its id, workspace, slug and integration stay); false when there was none. */
    readonly update: (provider: Provider) => Effect.Effect<boolean, StoreError>
    readonly delete: (id: string) => Effect.Effect<boolean, StoreError>
  }
>()("@gateway-control/ProviderStore") {}
