/**
 * Idempotency keys on `effect/sql`: one row per credential digest and key (the primary key), so of concurrent
 * claims in any number of processes exactly one inserts or takes over the row; the others read it. Expiry and
 * locks follow the database's clock, which every process shares.
 */
import { type IdempotencyClaim, IdempotencyStore, IdempotentAnswer } from "@gateway-control/domain"
import { Effect, Option, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { Int } from "./internal/rows.ts"
import { countOf, read } from "./internal/statements.ts"

const HeldRow = Schema.Struct({
  fingerprint: Schema.String,
  status: Schema.NullOr(Int),
  content_type: Schema.NullOr(Schema.String),
  body: Schema.NullOr(Schema.String)
})

const Key = Schema.Struct({ scope: Schema.String, key: Schema.String })

export const makeIdempotencyStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const held = SqlSchema.findOneOption({
    Request: Key,
    Result: HeldRow,
    execute: ({ key, scope }) =>
      sql`SELECT fingerprint, status, content_type, body FROM idempotency_keys
            WHERE scope = ${scope} AND key = ${key}`
  })

  return IdempotencyStore.of({
    claim: (request) =>
      read(Effect.gen(function*() {
        // Inserts the claim, or takes over an entry that expired or whose holder never answered within its lock.
        const claimed = yield* sql`
          INSERT INTO idempotency_keys (scope, key, fingerprint, locked_until, expires_at)
            VALUES (${request.scope}, ${request.key}, ${request.fingerprint},
              clock_timestamp() + ${request.lockMs} * interval '1 millisecond',
              clock_timestamp() + ${request.ttlMs} * interval '1 millisecond')
          ON CONFLICT (scope, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, status = NULL,
              content_type = NULL, body = NULL, locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at
            WHERE idempotency_keys.expires_at <= clock_timestamp()
              OR (idempotency_keys.status IS NULL AND idempotency_keys.locked_until <= clock_timestamp())
          RETURNING 1 AS claimed`
        if (claimed.length > 0) return { _tag: "Claimed" } as const
        const row = yield* held({ scope: request.scope, key: request.key })
        // Released between the two statements: the holder failed, so this request is as good as in progress
        // behind it; the client retries.
        if (Option.isNone(row)) return { _tag: "Held", fingerprint: request.fingerprint, answer: null } as const
        const { body, content_type, fingerprint, status } = row.value
        return {
          _tag: "Held",
          fingerprint,
          answer: status === null || content_type === null || body === null
            ? null
            : new IdempotentAnswer({ status, content_type, body })
        } satisfies IdempotencyClaim
      })),
    complete: (scope, key, answer) =>
      read(Effect.asVoid(sql`
        UPDATE idempotency_keys SET status = ${answer.status}, content_type = ${answer.content_type},
            body = ${answer.body}
          WHERE scope = ${scope} AND key = ${key} AND status IS NULL`)),
    release: (scope, key) =>
      read(Effect.asVoid(sql`
        DELETE FROM idempotency_keys WHERE scope = ${scope} AND key = ${key} AND status IS NULL`)),
    sweep: countOf(sql`
      WITH deleted AS (DELETE FROM idempotency_keys WHERE expires_at <= clock_timestamp() RETURNING 1)
      SELECT count(*) AS n FROM deleted`)
  })
})
