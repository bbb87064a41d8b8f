/**
 * Leases on `effect/sql`: one row per lease. Taking one is a single upsert that succeeds only for its holder
 * or once it has expired, by the database's clock, which every process shares.
 */
import { LeaseStore } from "@gateway-control/domain"
import { Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { read } from "./internal/statements.ts"

export const makeLeaseStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return LeaseStore.of({
    acquire: (name, holder, ttlMs) =>
      read(Effect.map(
        sql`INSERT INTO leases (name, holder, expires_at)
              VALUES (${name}, ${holder}, clock_timestamp() + ${ttlMs} * interval '1 millisecond')
            ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
              WHERE leases.holder = EXCLUDED.holder OR leases.expires_at < clock_timestamp()
            RETURNING holder`,
        (rows) => rows.length > 0
      )),
    release: (name, holder) => read(Effect.asVoid(sql`DELETE FROM leases WHERE name = ${name} AND holder = ${holder}`))
  })
})
