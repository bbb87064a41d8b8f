/**
 * Where the audit log is kept, and the keys that seal its chain.
 *
 * Reads return `Option` for absence; writes fail with `Conflict` when a uniqueness rule would break.
 * A store that cannot answer fails with `StoreError`; any other storage failure is a defect in the adapter.
 */
import { Context, type Effect, type Option } from "effect"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { AuditFilters, AuditRecord, ChainPosition, ChainTail } from "./AuditRecord.ts"

export class AuditLogStore extends Context.Service<
  AuditLogStore,
  {
    /**
     * Appends the record that `build` makes for the end of a chain. The store holds that chain's end for the
     * unit of work it runs in, or for one of its own when it runs in none (across processes too), so no
     * chain forks or skips a position. It may pick any chain; one whose end no other unit of work holds, so
     * that writers do not wait for each other.
     */
    readonly append: (build: (tail: ChainTail) => AuditRecord) => Effect.Effect<AuditRecord, StoreError>
    /**
     * Records of an organisation matching the filters, in `newestFirst` order; null: records of no
     * organisation.
     */
    readonly list: (
      organisationId: string | null,
      filters: AuditFilters,
      page: PageRequest
    ) => Effect.Effect<Page<AuditRecord>, StoreError>
    /**
     * Once in a store's life: when it holds plain SHA-256 records of before the keyed chain that no keyed
     * record names yet, appends at the end of chain 0 (waiting for its end) the record `build` makes from
     * their number, the legacy seal (`LegacySeal.ts`), and remembers that it did. None when there is nothing
     * left to name, as for every store created after the keyed chain.
     */
    readonly sealLegacyPrefix: (
      build: (plainRecords: number, tail: ChainTail) => AuditRecord
    ) => Effect.Effect<Option.Option<AuditRecord>, StoreError>
    /**
     * The check value of the master key this store was made with: `value` is kept when the store has none yet
     * (a new store, or one made before the check), and the kept one is answered either way.
     */
    readonly claimKeyCheck: (value: string) => Effect.Effect<string, StoreError>
    /** `limit` records after `after`, by chain, then by position in it. */
    readonly scan: (after: ChainPosition, limit: number) => Effect.Effect<ReadonlyArray<AuditRecord>, StoreError>
  }
>()("@gateway-control/AuditLogStore") {}

/**
 * The audit log's keys, derived from the gateway's master key and never stored: whoever holds only the
 * database can neither re-link an edited chain nor forge a checkpoint. Synchronous, like `PlatformCrypto`.
 */
export class AuditSigner extends Context.Service<
  AuditSigner,
  {
    /** HMAC-SHA256 (lower-case hex) of the UTF-8 input under the chain key. */
    readonly chainMac: (input: string) => string
    /** HMAC-SHA256 (lower-case hex) of the UTF-8 input under the checkpoint key, a key of its own. */
    readonly checkpointMac: (input: string) => string
    /**
     * The master key's check value: an HMAC of a constant under a key of its own, so a store can tell the key
     * it was made with from another without holding anything that signs or decrypts.
     */
    readonly keyCheck: string
  }
>()("@gateway-control/AuditSigner") {}
