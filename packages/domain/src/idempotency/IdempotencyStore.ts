/**
 * Idempotency keys, as Stripe has them: a client that sends `Idempotency-Key` with a create may send it again
 * (its answer was lost, a failover cut the connection) and gets the first answer back, without a second
 * create. The store keeps, per credential (`scope`) and key, a fingerprint of the request and, once the first
 * request has finished, its answer. Claims are unique in the store, so concurrent duplicates, in one process or
 * several, never both run. Times follow the store's clock, which every process shares.
 */
import { Context, type Effect, Schema } from "effect"
import type { StoreError } from "../shared/StoreError.ts"

/** The answer a request got, kept to be replayed: its status, media type and body as sent. */
export class IdempotentAnswer extends Schema.Class<IdempotentAnswer>("IdempotentAnswer")({
  status: Schema.Int,
  content_type: Schema.String,
  body: Schema.String
}) {}

/** What a claim found: the key is now this request's, or another request holds it (finished or not). */
export type IdempotencyClaim =
  | { readonly _tag: "Claimed" }
  | {
    readonly _tag: "Held"
    /** The fingerprint of the request that holds the key. */
    readonly fingerprint: string
    /** Its answer once it has finished; null while it runs. */
    readonly answer: IdempotentAnswer | null
  }

export interface IdempotencyClaimRequest {
  /** Whose key this is: a digest of the credential that sent it (never the credential itself). */
  readonly scope: string
  readonly key: string
  /** A digest of the request (method, path, body): the same key with another request is refused. */
  readonly fingerprint: string
  /** How long the entry, and the answer it will keep, lasts. */
  readonly ttlMs: number
  /** How long a claim without an answer holds the key before another request may take it (a crashed holder). */
  readonly lockMs: number
}

export class IdempotencyStore extends Context.Service<
  IdempotencyStore,
  {
    /**
     * Claims `key` for this request, unless a live entry holds it. An expired entry, or one whose holder gave
     * no answer within its lock, is replaced. Of concurrent claims of one key, exactly one is `Claimed`.
     */
    readonly claim: (request: IdempotencyClaimRequest) => Effect.Effect<IdempotencyClaim, StoreError>
    /** Keeps the answer of the request that claimed `key`, for the rest of the entry's life. */
    readonly complete: (scope: string, key: string, answer: IdempotentAnswer) => Effect.Effect<void, StoreError>
    /** Gives up a claim that has no answer (the request failed on our side), so a retry may run again. */
    readonly release: (scope: string, key: string) => Effect.Effect<void, StoreError>
    /** Deletes expired entries; returns how many. */
    readonly sweep: Effect.Effect<number, StoreError>
  }
>()("@gateway-control/IdempotencyStore") {}
