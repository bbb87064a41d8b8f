/**
 * The audit log's record and what callers say about a call: the models every part of the audit feature
 * shares, kept apart from the services so that the store port, the chain and the log need not import
 * each other.
 */
import { Schema } from "effect"

/** `sha256`: records written before the keyed chain; `hmac-sha256`: every record since. */
export const HashAlgorithm = Schema.Literals(["sha256", "hmac-sha256"])
export type HashAlgorithm = typeof HashAlgorithm.Type

export class AuditRecord extends Schema.Class<AuditRecord>("AuditRecord")({
  id: Schema.String,
  /**
   * The chain the record is linked into, from 0. A store keeps one chain until concurrent writers would wait
   * for each other, and then as many as it takes (see `AuditChain.ts`).
   */
  chain: Schema.Int,
  /** Position in its chain, from 1. */
  seq: Schema.Int,
  timestamp: Schema.String,
  /** null for a call made with no key this gateway knows (`user_type` `unauthenticated`). */
  organisation_id: Schema.NullOr(Schema.String),
  workspace_id: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  user_type: Schema.Literals(["user", "api_key", "workload", "unauthenticated"]),
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
  /**
   * The workload behind the call, for a credential issued by token exchange and for the exchange itself: the
   * verified `iss` and `sub` of the token it presented. Null on every other record (and on records written
   * before workloads existed: the hash covers these fields only when set, so those still verify).
   */
  workload_issuer: Schema.NullOr(Schema.String),
  workload_subject: Schema.NullOr(Schema.String),
  /**
   * The person behind a call made in a session: their email, the session's id, and for a sign-in by SSO the
   * identity provider and the person's subject there. Null on other records (hashed only when set, so records of
   * before sessions keep their hashes).
   */
  user_email: Schema.NullOr(Schema.String),
  session_id: Schema.NullOr(Schema.String),
  identity_provider: Schema.NullOr(Schema.String),
  identity_subject: Schema.NullOr(Schema.String),
  /**
   * The W3C trace id of the call when the process exports traces (OTLP): the record and the call's spans and log
   * line name the same trace. Null without a tracer, and on records of before traces (hashed only when set).
   */
  trace_id: Schema.NullOr(Schema.String),
  /**
   * True when the record differs from the request beyond secret redaction: U+0000 or unpaired surrogates
   * written out as `\u0000`-style text, nesting or text beyond the limits cut (with a `[truncated…]` marker),
   * non-finite numbers as null, or a body that was not JSON left out.
   */
  sanitized: Schema.Boolean,
  hash_algorithm: HashAlgorithm,
  previous_hash: Schema.String,
  hash: Schema.String
}) {}

/** Who made a call, as far as the gateway knows. A `Principal` is one. */
export interface AuditActor {
  /** null when the caller presented no key this gateway knows. */
  readonly organisationId: string | null
  readonly keyId: string | null
  readonly userId: string | null
  /** The workload the caller stands for (a credential issued by token exchange, or the exchange itself). */
  readonly workload?: { readonly issuer: string; readonly subject: string } | undefined
  /** The person and session behind a call made in a session. */
  readonly session?: {
    readonly id: string
    readonly email: string
    readonly identityProvider: string | null
    readonly subject: string | null
  } | undefined
}

/** What a caller says about a call; the service adds id, time, position and hashes. */
export interface AuditEntry {
  readonly actor: AuditActor
  readonly workspaceId: string | null
  readonly action: string
  readonly resourceType: string
  readonly resourceId: string | null
  readonly method: string
  readonly uri: string
  readonly requestId: string
  /** The body as received; the record keeps its storable, redacted form. */
  readonly requestBody: unknown
  /** True when the body could not be read as JSON and is left out. */
  readonly requestBodyUnreadable?: boolean | undefined
  readonly responseStatusCode: number
  readonly clientIp: string | null
}

/** Where a record goes: the end of a chain, which the store holds for the record's unit of work. */
export interface ChainTail {
  readonly chain: number
  /** The position of the record to append. */
  readonly seq: number
  /** The hash of the chain's last record; the genesis hash for an empty chain. */
  readonly previousHash: string
}

/** A position in the log: a chain and a position in it. `{ chain: 0, seq: 0 }` comes before every record. */
export interface ChainPosition {
  readonly chain: number
  readonly seq: number
}

/** The order of listings: newest first by time, then by chain and position, so that pages are stable. */
export const newestFirst = (a: AuditRecord, b: AuditRecord): number =>
  a.timestamp !== b.timestamp ? (a.timestamp < b.timestamp ? 1 : -1) : b.chain - a.chain || b.seq - a.seq

export interface AuditFilters {
  readonly startTime?: string | undefined
  readonly endTime?: string | undefined
  readonly workspaceId?: string | undefined
  readonly userId?: string | undefined
  /** In any case (`Rotate` finds `rotate`), as `resourceType`. */
  readonly action?: string | undefined
  readonly resourceType?: string | undefined
  readonly responseStatusCode?: number | undefined
  /** Records of calls made by workloads with this verified `sub`. */
  readonly workloadSubject?: string | undefined
  /** Records of calls made in sessions of the person with this email (case-insensitive). */
  readonly userEmail?: string | undefined
}
