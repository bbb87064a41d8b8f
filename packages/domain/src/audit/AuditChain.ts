/**
 * The audit log's chains. Each record stores the previous record's hash in its chain and a hash over that
 * and its own canonical JSON. New records use HMAC-SHA256 under a key only the gateway holds (derived from
 * its master key), so someone with database access alone cannot recompute the hashes after an edit. Records
 * written before the keyed chain keep their plain SHA-256 and still verify; the first keyed record commits
 * to them.
 *
 * Why several chains: appending to a chain holds its end until the unit of work commits, so one chain lets
 * one writer commit at a time, fsync included (~300–500 commits/s on PostgreSQL, whatever the number of
 * processes). A store opens another chain only when every chain's end is held, so a single writer keeps one
 * chain. Each chain keeps every guarantee on its own: positions 1, 2, 3… without gaps, each record linked to
 * the one before it, and so a verifiable order. A record's chain is part of what its hash covers (from chain
 * 1 on; chain 0 hashes as before chains existed, so older records keep their hashes), so no record can be
 * moved to another chain. Across chains, records are ordered by time.
 *
 * A chain is only as long as what reaches its end: deleting the newest records leaves a shorter, valid
 * chain, and deleting a whole chain leaves the others valid. A signed checkpoint (the head of every chain,
 * at a time), kept elsewhere, pins them: a log that no longer reaches them fails verification.
 */
import { Effect, Schema } from "effect"
import type { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { AuditLogStore, AuditSigner } from "./AuditLogStore.ts"
import type { AuditRecord, ChainPosition, HashAlgorithm } from "./AuditRecord.ts"
import { canonicalJson } from "./internal/canonicalJson.ts"
import { sealedLegacyCount } from "./LegacySeal.ts"

export const GENESIS_HASH = "0".repeat(64)

export const CURRENT_HASH_ALGORITHM: HashAlgorithm = "hmac-sha256"

const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** A chain's head: how many records it had, and the hash of the last. */
export const ChainHead = Schema.Struct({ chain: Count, count: Count, last_hash: Schema.String })
export type ChainHead = typeof ChainHead.Type

/**
 * A signed statement of the log's heads at time `at`: `count` records in all, and each chain's head. A
 * checkpoint of before chains has no `heads`, and the head of the one chain (chain 0) in `count` and
 * `last_hash`; it still verifies.
 */
export const AuditCheckpoint = Schema.Struct({
  count: Count,
  heads: Schema.optionalKey(Schema.Array(ChainHead)),
  last_hash: Schema.optionalKey(Schema.String),
  at: Schema.String,
  /** HMAC-SHA256 under the checkpoint key, over the canonical JSON of the other fields. */
  signature: Schema.String
})
export type AuditCheckpoint = typeof AuditCheckpoint.Type

/** The chain heads a checkpoint pins. */
export const headsOf = (checkpoint: AuditCheckpoint): ReadonlyArray<ChainHead> =>
  checkpoint.heads ?? [{ chain: 0, count: checkpoint.count, last_hash: checkpoint.last_hash ?? GENESIS_HASH }]

export type ChainVerdict =
  | {
    readonly ok: true
    /** Records in all chains. */
    readonly count: number
    /** Each chain's head, by chain. */
    readonly heads: ReadonlyArray<ChainHead>
    /**
     * Records with the plain SHA-256 of before the keyed chain: all at the start of chain 0, as many as the
     * legacy seal names.
     */
    readonly legacy: number
  }
  | {
    readonly ok: false
    /** Records walked before the first broken one, all intact. */
    readonly count: number
    /** The first broken record, when the break is at a record (not a removed tail or a bad checkpoint). */
    readonly record: { readonly chain: number; readonly seq: number; readonly id: string } | undefined
    readonly reason: string
  }

export interface ChainHashers {
  readonly sha256Hex: PlatformCrypto["Service"]["sha256Hex"]
  readonly chainMac: AuditSigner["Service"]["chainMac"]
}

/**
 * The content a record's hash covers under its algorithm: everything but the hashes themselves. Chain 0
 * leaves its number out, as every record did before chains existed; a record of no workload leaves the
 * workload's fields out, as every record did before workloads existed (migration 0025), so older records
 * keep their hashes.
 */
const hashedContent = (record: Omit<AuditRecord, "hash">) => {
  const {
    previous_hash: _previous,
    chain,
    workload_issuer,
    workload_subject,
    user_email,
    session_id,
    identity_provider,
    identity_subject,
    trace_id,
    ...base
  } = record
  const withWorkload = workload_issuer === null && workload_subject === null
    ? base
    : { ...base, workload_issuer, workload_subject }
  // Sessions' fields likewise (migration 0033): hashed only when the record has them.
  const withSession =
    user_email === null && session_id === null && identity_provider === null && identity_subject === null
      ? withWorkload
      : { ...withWorkload, user_email, session_id, identity_provider, identity_subject }
  // The trace id likewise (migration 0100).
  const rest = trace_id === null ? withSession : { ...withSession, trace_id }
  const content = chain === 0 ? rest : { ...rest, chain }
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

/** The text a checkpoint's signature covers: every field but the signature. */
export const checkpointText = (checkpoint: Omit<AuditCheckpoint, "signature">): string => {
  const { signature: _signature, ...signed } = checkpoint as AuditCheckpoint
  return canonicalJson(signed)
}

const SCAN_BATCH = 500

/**
 * Walks every chain in order and reports the first broken link; with a checkpoint, also whether every chain
 * still reaches the head the checkpoint saw (the caller checks the checkpoint's signature first).
 */
export const walkChain = (
  store: AuditLogStore["Service"],
  hashers: ChainHashers,
  checkpoint: AuditCheckpoint | undefined
): Effect.Effect<ChainVerdict, StoreError> =>
  Effect.gen(function*() {
    const pinned = new Map((checkpoint === undefined ? [] : headsOf(checkpoint)).map((h) => [h.chain, h]))
    const heads: Array<ChainHead> = []
    let head: ChainHead | undefined
    let count = 0
    let legacy = 0
    /** The first plain record, and whether the legacy seal has been met (it names how many there may be). */
    let firstLegacy: AuditRecord | undefined
    let sealed = false
    /** Plain records no seal names: rewritten without the key, as a seal follows every legitimate prefix. */
    const unsealed = (first: AuditRecord): ChainVerdict => ({
      ok: false,
      count: 0,
      record: { chain: first.chain, seq: first.seq, id: first.id },
      reason: `chain 0 starts with ${legacy} plain SHA-256 record${legacy === 1 ? "" : "s"}, but no keyed record ` +
        "names them as records of before the keyed chain: the log was rewritten without the key"
    })
    let after: ChainPosition = { chain: 0, seq: 0 }
    while (true) {
      const records = yield* store.scan(after, SCAN_BATCH)
      for (const r of records) {
        const broken = (reason: string): ChainVerdict => ({
          ok: false,
          count,
          record: { chain: r.chain, seq: r.seq, id: r.id },
          reason
        })
        if (head === undefined || head.chain !== r.chain) {
          // Chain 0 is over: its plain records, if any, must have been named by then.
          if (firstLegacy !== undefined && !sealed) return unsealed(firstLegacy)
          if (head !== undefined) heads.push(head)
          head = { chain: r.chain, count: 0, last_hash: GENESIS_HASH }
        }
        if (r.seq !== head.count + 1) {
          return broken(`expected record ${head.count + 1} of chain ${r.chain} here, found record ${r.seq}`)
        }
        if (r.previous_hash !== head.last_hash) return broken("its previous_hash does not match the record before it")
        if (r.hash_algorithm === "sha256") {
          // Plain hashes can be recomputed by anyone: only records from before the keyed chain may have them,
          // and those are the first records of chain 0.
          if (r.chain !== 0 || legacy !== head.count) {
            return broken("it has a plain SHA-256 hash after keyed records or chains: the log was rewritten")
          }
          legacy++
          firstLegacy ??= r
        }
        const { hash, ...content } = r
        if (chainHash(hashers, content) !== hash) return broken("its content does not match its hash")
        const named = sealedLegacyCount(r)
        if (named !== undefined) {
          // Keyed, so authentic: the gateway wrote it, once, at the end of chain 0.
          if (sealed) return broken("it is a second legacy seal: the gateway writes one, once")
          if (r.chain !== 0) return broken("it is a legacy seal outside chain 0, where the gateway never writes one")
          if (named !== legacy) {
            return broken(
              `it names ${named} records of before the keyed chain, but chain 0 starts with ${legacy}: ` +
                "the log was rewritten"
            )
          }
          sealed = true
        }
        const seen = pinned.get(r.chain)
        if (seen !== undefined && r.seq === seen.count && hash !== seen.last_hash) {
          return broken(`it is not the record the checkpoint of ${checkpoint?.at} saw at this position`)
        }
        head = { chain: r.chain, count: r.seq, last_hash: hash }
        count++
        after = r
      }
      if (records.length < SCAN_BATCH) break
    }
    if (firstLegacy !== undefined && !sealed) return unsealed(firstLegacy)
    if (head !== undefined) heads.push(head)
    for (const seen of pinned.values()) {
      const reached = heads.find((h) => h.chain === seen.chain)?.count ?? 0
      if (reached < seen.count) {
        return {
          ok: false,
          count,
          record: undefined,
          reason: `chain ${seen.chain} ends at record ${reached}, but the checkpoint of ${checkpoint?.at} saw ` +
            `${seen.count}: records were removed`
        }
      }
    }
    return { ok: true, count, heads, legacy }
  })
