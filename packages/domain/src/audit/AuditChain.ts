/**
 * The audit log's chain. Each record stores the previous record's hash and a hash over that and its own
 * canonical JSON. New records use HMAC-SHA256 under a key only the gateway holds (derived from its master
 * key), so someone with database access alone cannot recompute the hashes after an edit. Records written
 * before the keyed chain keep their plain SHA-256 and still verify; the first keyed record commits to them.
 *
 * A chain is only as long as what reaches its end: deleting the newest records leaves a shorter, valid
 * chain. A signed checkpoint (`count`, `last_hash`, `at`), kept elsewhere, pins the head: a chain that no
 * longer reaches it fails verification.
 */
import { Effect, Schema } from "effect"
import type { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import type { AuditLogStore, AuditSigner } from "./AuditLogStore.ts"
import type { AuditRecord, HashAlgorithm } from "./AuditRecord.ts"
import { canonicalJson } from "./internal/canonicalJson.ts"

export const GENESIS_HASH = "0".repeat(64)

export const CURRENT_HASH_ALGORITHM: HashAlgorithm = "hmac-sha256"

/** A signed statement that the chain had `count` records, the last with hash `last_hash`, at time `at`. */
export const AuditCheckpoint = Schema.Struct({
  count: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  last_hash: Schema.String,
  at: Schema.String,
  /** HMAC-SHA256 under the checkpoint key, over the canonical JSON of the other three fields. */
  signature: Schema.String
})
export type AuditCheckpoint = typeof AuditCheckpoint.Type

export type ChainVerdict =
  | {
    readonly ok: true
    readonly count: number
    /** The hash of the last record (the genesis hash for an empty chain). */
    readonly lastHash: string
    /** Records with the plain SHA-256 of before the keyed chain. */
    readonly legacy: number
  }
  | {
    readonly ok: false
    /** Records before the first broken one, all intact. */
    readonly count: number
    /** The first broken record, when the break is at a record (not a removed tail or a bad checkpoint). */
    readonly record: { readonly seq: number; readonly id: string } | undefined
    readonly reason: string
  }

export interface ChainHashers {
  readonly sha256Hex: PlatformCrypto["Service"]["sha256Hex"]
  readonly chainMac: AuditSigner["Service"]["chainMac"]
}

/** The content a record's hash covers under its algorithm: everything but the hashes themselves. */
const hashedContent = (record: Omit<AuditRecord, "hash">) => {
  const { previous_hash: _previous, ...content } = record
  if (record.hash_algorithm === "hmac-sha256") return content
  // Records of before the keyed chain had neither field; their hashes cover what they had.
  const { sanitized: _sanitized, hash_algorithm: _algorithm, ...legacy } = content
  return legacy
}

/** The hash of a record under its own algorithm. */
export const chainHash = (hashers: ChainHashers, record: Omit<AuditRecord, "hash">): string => {
  const input = `${record.previous_hash}\n${canonicalJson(hashedContent(record))}`
  return record.hash_algorithm === "hmac-sha256" ? hashers.chainMac(input) : hashers.sha256Hex(input)
}

/** The text a checkpoint's signature covers. */
export const checkpointText = (checkpoint: Omit<AuditCheckpoint, "signature">): string =>
  canonicalJson({ at: checkpoint.at, count: checkpoint.count, last_hash: checkpoint.last_hash })

const SCAN_BATCH = 500

/**
 * Walks the whole chain in order and reports the first broken link; with a checkpoint, also whether the
 * chain still reaches it (the caller checks the checkpoint's signature first).
 */
export const walkChain = (
  store: AuditLogStore["Service"],
  hashers: ChainHashers,
  checkpoint: AuditCheckpoint | undefined
): Effect.Effect<ChainVerdict> =>
  Effect.gen(function*() {
    let previous = GENESIS_HASH
    let count = 0
    let legacy = 0
    while (true) {
      const records = yield* store.scan(count, SCAN_BATCH)
      for (const r of records) {
        const broken = (reason: string): ChainVerdict => ({
          ok: false,
          count,
          record: { seq: r.seq, id: r.id },
          reason
        })
        if (r.seq !== count + 1) return broken(`expected record ${count + 1} here, found record ${r.seq}`)
        if (r.previous_hash !== previous) return broken("its previous_hash does not match the record before it")
        if (r.hash_algorithm === "sha256") {
          // Plain hashes can be recomputed by anyone: only records from before the keyed chain may have them.
          if (legacy !== count) {
            return broken("it has a plain SHA-256 hash after keyed records: the chain was rewritten")
          }
          legacy++
        }
        const { hash, ...content } = r
        if (chainHash(hashers, content) !== hash) return broken("its content does not match its hash")
        if (checkpoint !== undefined && r.seq === checkpoint.count && hash !== checkpoint.last_hash) {
          return broken(`it is not the record the checkpoint of ${checkpoint.at} saw at this position`)
        }
        previous = hash
        count++
      }
      if (records.length < SCAN_BATCH) break
    }
    if (checkpoint !== undefined && count < checkpoint.count) {
      return {
        ok: false,
        count,
        record: undefined,
        reason: `the chain ends at record ${count}, but the checkpoint of ${checkpoint.at} saw ${checkpoint.count}: ` +
          "records were removed"
      }
    }
    return { ok: true, count, lastHash: previous, legacy }
  })
