/**
 * The store port of configs, the records that hold a provider key of their own (a virtual key's is its
 * integration's: integrations/IntegrationStore.ts). A config keeps the key encrypted beside its record, never in
 * it.
 */
import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { ConfigVersion, GatewayConfig } from "./Config.ts"

export interface StoredSecret<A> {
  readonly record: A
  /** The provider key, encrypted with the gateway's master key; null when there is none. */
  readonly encryptedKey: string | null
}

/** The operations of a store of records holding a provider key, over its record type. */
interface SecretRecordStore<A> {
  readonly insert: (stored: StoredSecret<A>) => Effect.Effect<void, Conflict | StoreError>
  /** Replaces the record (its slug and workspace stay) and its encrypted key; false when there was none. */
  readonly update: (stored: StoredSecret<A>) => Effect.Effect<boolean, StoreError>
  readonly get: (id: string) => Effect.Effect<Option.Option<StoredSecret<A>>, StoreError>
  readonly findBySlug: (workspaceId: string, slug: string) => Effect.Effect<Option.Option<StoredSecret<A>>, StoreError>
  /** Those with this slug in any workspace of the organisation (ResourceLookup.ts). */
  readonly findAllBySlug: (
    organisationId: string,
    slug: string
  ) => Effect.Effect<ReadonlyArray<StoredSecret<A>>, StoreError>
  readonly list: (
    organisationId: string,
    workspaceId: string | null,
    page: PageRequest
  ) => Effect.Effect<Page<A>, StoreError>
  readonly delete: (id: string) => Effect.Effect<boolean, StoreError>
}

export class ConfigStore extends Context.Service<
  ConfigStore,
  SecretRecordStore<GatewayConfig> & {
    /** Appends a version; its number follows the config's last. */
    readonly addVersion: (version: ConfigVersion) => Effect.Effect<void, Conflict | StoreError>
    /** The config's versions, oldest first. */
    readonly versions: (configId: string) => Effect.Effect<ReadonlyArray<ConfigVersion>, StoreError>
    /** Makes no config of the workspace its default (before another becomes it). */
    readonly clearDefault: (workspaceId: string) => Effect.Effect<void, StoreError>
  }
>()("@gateway-control/ConfigStore") {}
