/**
 * The legacy seal: the one keyed record that says how many plain SHA-256 records (of before the keyed chain)
 * start chain 0. Plain hashes can be recomputed by anyone, so without it a forger with database access could
 * rewrite chain 0 from its first record as "records of before the keyed chain". The count sits in a keyed
 * record, so it cannot be raised without the key; a store without a seal may hold no plain record at all,
 * which is every store created after the keyed chain.
 *
 * The gateway writes the seal once, on its first start after the upgrade, at the end of chain 0 (the store
 * remembers it did). It is no HTTP call: no method, URI or request id, and no caller.
 */
import type { AuditRecord } from "./AuditRecord.ts"

export const LEGACY_SEAL_ACTION = "seal_legacy_records"
export const LEGACY_SEAL_RESOURCE_TYPE = "audit_log"

/** The body of a seal naming `plainRecords`. */
export const legacySealBody = (plainRecords: number) => ({ legacy_records: plainRecords })

/**
 * The number of plain records a keyed record names as the legacy seal; undefined when it is no seal. Only
 * the gateway writes records without an HTTP method, and only keyed ones count: a plain record can say
 * anything.
 */
export const sealedLegacyCount = (record: AuditRecord): number | undefined => {
  if (
    record.hash_algorithm !== "hmac-sha256" || record.method !== "" || record.action !== LEGACY_SEAL_ACTION ||
    record.resource_type !== LEGACY_SEAL_RESOURCE_TYPE
  ) return undefined
  const body = record.request_body
  if (typeof body !== "object" || body === null || !("legacy_records" in body)) return undefined
  const count = body.legacy_records
  return typeof count === "number" && Number.isSafeInteger(count) && count >= 0 ? count : undefined
}
