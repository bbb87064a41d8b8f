/**
 * Several audit chains on PostgreSQL: a writer that finds chain 0's end held by another transaction appends
 * to the next chain at once instead of waiting for that commit; every chain verifies on its own, and a
 * checkpoint pins each chain's head, so a whole chain deleted is found.
 */
import { Audit, AuditLogStore } from "@gateway-control/domain"
import { Deferred, Effect, Fiber, ManagedRuntime } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "vitest"
import { entry, layerAudit } from "../../domain/test/contract/AuditContract.ts"
import { postgresInFreshSchema, postgresUrl } from "./support/Stores.ts"

const actor = { organisationId: "org-chains", keyId: "key-1", userId: null }

describe.skipIf(postgresUrl === undefined)("audit chains on PostgreSQL", () => {
  it("a writer that finds chain 0 held appends to chain 1 at once; a checkpoint pins both chains", async () => {
    const runtime = ManagedRuntime.make(layerAudit(postgresInFreshSchema(postgresUrl!)))
    try {
      await runtime.runPromise(
        Effect.gen(function*() {
          const audit = yield* Audit
          const sql = yield* SqlClient.SqlClient
          const first = yield* audit.record(entry(actor))
          expect(first).toMatchObject({ chain: 0, seq: 1 })

          // Another unit of work holds chain 0's end, as a concurrent writer does until its commit.
          const held = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const holder = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function*() {
            yield* sql`SELECT chain FROM audit_chain_heads WHERE chain = 0 FOR UPDATE`
            yield* Deferred.succeed(held, undefined)
            yield* Deferred.await(release)
          })))
          yield* Deferred.await(held)
          const second = yield* audit.record(entry(actor))
          expect(second).toMatchObject({ chain: 1, seq: 1 })
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(holder)

          const third = yield* audit.record(entry(actor))
          expect(third).toMatchObject({ chain: 0, seq: 2, previous_hash: first.hash })
          const checkpoint = yield* audit.checkpoint
          expect(checkpoint).toMatchObject({
            count: 3,
            heads: [{ chain: 0, count: 2, last_hash: third.hash }, { chain: 1, count: 1, last_hash: second.hash }]
          })

          const log = yield* (yield* AuditLogStore).scan({ chain: 0, seq: 0 }, 100)
          expect(log.map((r) => [r.chain, r.seq])).toEqual([[0, 1], [0, 2], [1, 1]])

          yield* sql`DELETE FROM audit_logs WHERE chain = 1`
          // Alone, chain 0 is a valid log; the checkpoint knows chain 1 existed.
          expect(yield* audit.verify()).toMatchObject({ ok: true, count: 2 })
          expect(yield* audit.verify(checkpoint)).toMatchObject({
            ok: false,
            reason: expect.stringMatching(
              /^chain 1 ends at record 0, but the checkpoint .* saw 1: records were removed/
            )
          })
        }).pipe(Effect.orDie)
      )
    } finally {
      await runtime.dispose()
    }
  }, 60_000)
})
