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
  /** Position in the chain, from 1. */
  seq: Schema.Int,
  timestamp: Schema.String,
  /** null for a call made with no key this gateway knows (`user_type` `unauthenticated`). */
  organisation_id: Schema.NullOr(Schema.String),
  workspace_id: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  user_type: Schema.Literals(["user", "api_key", "unauthenticated"]),
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

export interface AuditFilters {
  readonly startTime?: string | undefined
  readonly endTime?: string | undefined
  readonly workspaceId?: string | undefined
  readonly userId?: string | undefined
  readonly action?: string | undefined
  readonly resourceType?: string | undefined
  readonly responseStatusCode?: number | undefined
}
