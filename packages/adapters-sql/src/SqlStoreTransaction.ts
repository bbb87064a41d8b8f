/**
 * Units of work on `effect/sql`: a transaction, named advisory locks held to its end, and effects that wait
 * for its commit.
 */
import { type StoreError, StoreTransaction, StoreUnavailable } from "@gateway-control/domain"
import { Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { read, transactionFailure } from "./internal/statements.ts"

export const makeStoreTransaction = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return StoreTransaction.of({
    // BEGIN/COMMIT failing because the store went away is `StoreError`; any other such failure a defect.
    withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError, R> =>
      sql.withTransaction(effect).pipe(
        // Every failure but the SqlError of BEGIN/COMMIT is the effect's own E.
        Effect.catch((error) => transactionFailure(error as E | SqlError))
      ),
    lock: (name) => read(Effect.asVoid(sql`SELECT pg_advisory_xact_lock(hashtext(${`gateway-control:${name}`}))`)),
    afterCommit: (effect) => sql.afterCommit(effect),
    ping: sql`SELECT 1`.pipe(
      Effect.asVoid,
      Effect.mapError((error) => new StoreUnavailable({ message: error.message }))
    )
  })
})
