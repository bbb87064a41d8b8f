/**
 * The audit log: one record for every mutating administrative call, allowed or denied, written in the
 * same transaction as the change it describes. Records form a hash chain: each stores the SHA-256 of the
 * previous record's hash and its own canonical JSON, so an altered or removed record breaks the chain.
 */
import { Context, Effect, Layer, Schema } from "effect"
import type { Forbidden, NotFound } from "./Errors.ts"
import { canonicalJson } from "./internal/canonicalJson.ts"
import { nowIso } from "./internal/time.ts"
import type { Page, PageRequest } from "./Paging.ts"
import { ensureAllowed } from "./Policy.ts"
import { AuditLogStore, PlatformCrypto, StoreTransaction } from "./Ports.ts"
import type { Principal } from "./Principal.ts"

export class AuditRecord extends Schema.Class<AuditRecord>("AuditRecord")({
  id: Schema.String,
  /** Position in the chain, from 1. */
  seq: Schema.Int,
  timestamp: Schema.String,
  organisation_id: Schema.String,
  workspace_id: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  user_type: Schema.Literals(["user", "api_key"]),
  api_key_id: Schema.NullOr(Schema.String),
  action: Schema.String,
  resource_type: Schema.String,
  resource_id: Schema.NullOr(Schema.String),
  method: Schema.String,
  uri: Schema.String,
  request_id: Schema.String,
  request_body: Schema.Unknown,
  response_status_code: Schema.Int,
  client_ip: Schema.NullOr(Schema.String),
  previous_hash: Schema.String,
  hash: Schema.String
}) {}

/** What a caller says about a call; the service adds id, time, position and hashes. */
export interface AuditEntry {
  readonly principal: Principal
  readonly workspaceId: string | null
  readonly action: string
  readonly resourceType: string
  readonly resourceId: string | null
  readonly method: string
  readonly uri: string
  readonly requestId: string
  readonly requestBody: unknown
  readonly responseStatusCode: number
  readonly clientIp: string | null
}

export interface AuditFilters {
  readonly startTime?: string | undefined
  readonly endTime?: string | undefined
  readonly workspaceId?: string | undefined
  readonly userId?: string | undefined
  readonly action?: string | undefined
  readonly resourceType?: string | undefined
  readonly responseStatusCode?: number | undefined
}

export type ChainVerdict =
  | { readonly ok: true; readonly count: number }
  | { readonly ok: false; readonly count: number; readonly seq: number; readonly id: string; readonly reason: string }

export const GENESIS_HASH = "0".repeat(64)

const SECRET_FIELD = /(^|_)(key|secret|password|token|authorization|credentials?)$/i

/** The request body with the values of secret-looking fields (provider keys, passwords) replaced. */
export const redactSecrets = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(redactSecrets)
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(value)) {
      out[key] = SECRET_FIELD.test(key) && inner !== null ? "[REDACTED]" : redactSecrets(inner)
    }
    return out
  }
  return value
}

/** The hash of a record: SHA-256 over the previous hash and the record's canonical JSON without its hashes. */
export const chainHash = (sha256Hex: (input: string) => string, record: Omit<AuditRecord, "hash">): string => {
  const { previous_hash, ...content } = record
  return sha256Hex(`${previous_hash}\n${canonicalJson(content)}`)
}

export class Audit extends Context.Service<
  Audit,
  {
    /** Appends a record; joins the caller's unit of work when there is one. */
    readonly record: (entry: AuditEntry) => Effect.Effect<AuditRecord>
    readonly list: (
      principal: Principal,
      filters: AuditFilters,
      page: PageRequest
    ) => Effect.Effect<Page<AuditRecord>, Forbidden | NotFound>
    /** Walks the whole chain in order and reports the first broken link. */
    readonly verify: Effect.Effect<ChainVerdict>
  }
>()("@gateway-control/Audit") {
  static readonly layer = Layer.effect(
    Audit,
    Effect.gen(function*() {
      const store = yield* AuditLogStore
      const crypto = yield* PlatformCrypto
      const transaction = yield* StoreTransaction

      const record = Effect.fnUntraced(function*(entry: AuditEntry) {
        const timestamp = yield* nowIso
        const id = crypto.uuid()
        const { principal } = entry
        return yield* transaction.withTransaction(store.append((previousHash, seq) => {
          const content = {
            id,
            seq,
            timestamp,
            organisation_id: principal.organisationId,
            workspace_id: entry.workspaceId,
            user_id: principal.userId,
            user_type: principal.userId === null ? "api_key" as const : "user" as const,
            api_key_id: principal.keyId,
            action: entry.action,
            resource_type: entry.resourceType,
            resource_id: entry.resourceId,
            method: entry.method,
            uri: entry.uri,
            request_id: entry.requestId,
            request_body: redactSecrets(entry.requestBody ?? null),
            response_status_code: entry.responseStatusCode,
            client_ip: entry.clientIp,
            previous_hash: previousHash
          }
          return new AuditRecord({ ...content, hash: chainHash(crypto.sha256Hex, content) })
        }))
      })

      const list = Effect.fn("Audit.list")(function*(principal: Principal, filters: AuditFilters, page: PageRequest) {
        yield* ensureAllowed(principal, "audit_logs.list", {
          organisationId: principal.organisationId,
          workspaceId: null
        }, { type: "organisation", id: principal.organisationId })
        return yield* store.list(principal.organisationId, filters, page)
      })

      const verify = Effect.gen(function*() {
        let previous = GENESIS_HASH
        let count = 0
        const batch = 500
        while (true) {
          const records = yield* store.scan(count, batch)
          for (const r of records) {
            count++
            const broken = (reason: string): ChainVerdict => ({
              ok: false,
              count: count - 1,
              seq: r.seq,
              id: r.id,
              reason
            })
            if (r.seq !== count) return broken(`expected record ${count} here, found record ${r.seq}`)
            if (r.previous_hash !== previous) return broken("its previous_hash does not match the record before it")
            const { hash, ...content } = r
            if (chainHash(crypto.sha256Hex, content) !== hash) return broken("its content does not match its hash")
            previous = hash
          }
          if (records.length < batch) return { ok: true as const, count }
        }
      }).pipe(Effect.withSpan("Audit.verify"))

      return Audit.of({ record, list, verify })
    })
  )
}
