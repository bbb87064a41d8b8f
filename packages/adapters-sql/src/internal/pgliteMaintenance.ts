/**
 * What PostgreSQL's autovacuum does, for PGlite. PGlite runs PostgreSQL as a single-user backend, which starts
 * no autovacuum launcher: left alone, its tables are never vacuumed nor analysed. Measured: after 20,000
 * one-row updates of a 5,000-row table, 3,624 dead rows and no statistics (`reltuples` −1), and nothing that
 * would ever change either.
 * Without vacuuming, dead index entries stay, and the transaction ids of old rows are never frozen: after about
 * two billion write transactions PostgreSQL refuses every write until a vacuum runs (100 writes a second
 * reach that in about eight months). Without analysing, the planner guesses every table's size.
 *
 * So a background fiber vacuums and analyses each table that changed since its last pass, or whose oldest
 * unfrozen transaction id is old, one table a statement: as background work, each waits for every waiting
 * request's statement, and requests are served between tables. A table's vacuum holds the thread that serves
 * requests while it runs (13 ms for 5,000 rows after 5,000 updates); the visibility map lets later passes skip
 * what has not changed since.
 */
import { Cause, type Context, Effect } from "effect"
import type * as SqlClient from "effect/sql/SqlClient"

/** The first pass, this long after the store opens (not while the server starts), then one each interval. */
export const PGLITE_MAINTENANCE_FIRST_MS = 10 * 60_000
export const PGLITE_MAINTENANCE_INTERVAL_MS = 60 * 60_000

/**
 * The tables a pass vacuums: changed since their last vacuum or analysis, never vacuumed (as far as the
 * statistics know: a crash loses them), or with rows older than a quarter of autovacuum's freeze age.
 */
const DUE_TABLES = `SELECT s.relname AS name FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
  WHERE s.n_dead_tup > 0 OR s.n_mod_since_analyze > 0 OR s.n_ins_since_vacuum > 0 OR s.last_vacuum IS NULL
    OR age(c.relfrozenxid) > 50000000
  ORDER BY s.relname`

/** One pass: `VACUUM (ANALYZE)` of each due table, one statement each; answers the tables it vacuumed. */
export const maintain = (sql: SqlClient.SqlClient) =>
  Effect.flatMap(
    sql.unsafe<{ readonly name: string }>(DUE_TABLES),
    (due) =>
      Effect.as(
        Effect.forEach(due, ({ name }) => sql`VACUUM (ANALYZE) ${sql(name)}`, { discard: true }),
        due.map((t) => t.name)
      )
  )

/**
 * Passes for as long as the scope lives, as background work (`backgroundWork`, when given); a failed pass is
 * logged, and the next runs an interval later.
 */
export const runMaintenance = (
  sql: SqlClient.SqlClient,
  { backgroundWork, firstMs, intervalMs }: {
    readonly backgroundWork: Context.Reference<boolean> | undefined
    readonly firstMs: number
    readonly intervalMs: number
  }
) => {
  const pass = maintain(sql).pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.logWarning(
        "PGlite maintenance: a vacuum pass failed; the next runs in an interval",
        Cause.pretty(cause)
      )
    )
  )
  const loop = Effect.andThen(Effect.sleep(firstMs), Effect.forever(Effect.andThen(pass, Effect.sleep(intervalMs))))
  return Effect.forkScoped(backgroundWork === undefined ? loop : Effect.provideService(loop, backgroundWork, true))
}
