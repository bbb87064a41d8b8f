/**
 * Where the audit log is kept, and the keys that seal its chain.
 *
 * Reads return `Option` for absence; writes fail with `Conflict` when a uniqueness rule would break.
 * Any other storage failure is a defect in the adapter.
 */
import { Context, type Effect } from "effect"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { AuditFilters, AuditRecord } from "./AuditRecord.ts"

export class AuditLogStore extends Context.Service<
  AuditLogStore,
  {
    /**
     * Appends the record that `build` makes from the chain's last hash and the next position. The store
     * serialises appends (across processes too), so the chain never forks. Runs inside a unit of work.
     */
    readonly append: (build: (previousHash: string, seq: number) => AuditRecord) => Effect.Effect<AuditRecord>
    /** Records of an organisation matching the filters, newest first; null: records of no organisation. */
    readonly list: (
      organisationId: string | null,
      filters: AuditFilters,
      page: PageRequest
    ) => Effect.Effect<Page<AuditRecord>>
    /** `limit` records of the whole chain after position `afterSeq`, in chain order. */
    readonly scan: (afterSeq: number, limit: number) => Effect.Effect<ReadonlyArray<AuditRecord>>
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
  }
>()("@gateway-control/AuditSigner") {}
