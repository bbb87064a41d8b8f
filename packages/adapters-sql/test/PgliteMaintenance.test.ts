/**
 * PGlite has no autovacuum: the client vacuums and analyses what changed, in passes (internal/pgliteMaintenance.ts).
 */
import { BackgroundWork } from "@gateway-control/domain"
import { Effect, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "vitest"
import { maintain } from "../src/internal/pgliteMaintenance.ts"
import * as PgliteClient from "../src/PgliteClient.ts"

interface TableState {
  readonly name: string
  readonly dead: number
  readonly vacuumed: boolean
  readonly analysed: boolean
  readonly rows: number
  readonly changed: number
}

const states = (sql: SqlClient.SqlClient) =>
  Effect.map(
    sql<TableState>`SELECT s.relname AS name, s.n_dead_tup::int AS dead, s.last_vacuum IS NOT NULL AS vacuumed,
        s.last_analyze IS NOT NULL AS analysed, c.reltuples::int AS rows, s.n_mod_since_analyze::int AS changed
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid ORDER BY s.relname`,
    (rows) => Object.fromEntries(rows.map((row) => [row.name, row]))
  )

/** Until `done` holds of the tables' states (the statistics are reported as statements end), at most 20 s. */
const until = (sql: SqlClient.SqlClient, done: (tables: Record<string, TableState>) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) {
      const tables = yield* states(sql)
      if (done(tables)) return tables
      yield* Effect.sleep(100)
    }
    return yield* Effect.die(new Error(`the tables never got there: ${JSON.stringify(yield* states(sql))}`))
  })

const churned = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`CREATE TABLE churn (id int PRIMARY KEY, n int NOT NULL DEFAULT 0)`
    yield* sql`CREATE TABLE still (id int PRIMARY KEY)`
    yield* sql`INSERT INTO churn (id) SELECT i FROM generate_series(1, 2000) i`
    yield* sql`INSERT INTO still (id) VALUES (1), (2)`
    for (let i = 0; i < 4; i++) yield* sql`UPDATE churn SET n = n + 1`
  })

const run = <A, E>(effect: Effect.Effect<A, E, Scope.Scope | Reactivity.Reactivity>) =>
  Effect.runPromise(effect.pipe(Effect.scoped, Effect.provide(Reactivity.layer)))

describe("PGlite maintenance", () => {
  it("vacuums and analyses every table that changed since, and passes over those that did not", async () => {
    const outcome = await run(Effect.gen(function*() {
      // No loop: the passes run here, one at a time.
      const { client: sql } = yield* PgliteClient.make({ maintenance: { firstMs: 0, intervalMs: 0 } })
      yield* churned(sql)
      const before = yield* until(sql, (t) => (t.churn?.dead ?? 0) > 0)
      const first = yield* maintain(sql)
      const after = yield* until(sql, (t) => t.churn.vacuumed && t.still.vacuumed)
      yield* sql`INSERT INTO still (id) VALUES (3)`
      // Statistics reach the view at most once a second: until they have, a pass would not know of the insert.
      yield* until(sql, (t) => t.still.changed === 1)
      const second = yield* maintain(sql)
      return { before, first, after, second }
    }))
    // Never vacuumed, never analysed: dead rows of the updates, and no row count for the planner.
    expect(outcome.before.churn).toMatchObject({ vacuumed: false, analysed: false, rows: -1 })
    expect(outcome.first).toEqual(["churn", "still"])
    expect(outcome.after.churn).toMatchObject({ dead: 0, vacuumed: true, analysed: true, rows: 2000 })
    expect(outcome.after.still).toMatchObject({ vacuumed: true, analysed: true, rows: 2 })
    expect(outcome.second).toEqual(["still"])
  }, 60_000)

  it("runs its passes by itself, as background work, once the first delay is over", async () => {
    const tables = await run(Effect.gen(function*() {
      const { client: sql } = yield* PgliteClient.make({
        backgroundWork: BackgroundWork,
        maintenance: { firstMs: 200, intervalMs: 100 }
      })
      yield* churned(sql)
      // Requests are served between one table's vacuum and the next: wait for both tables, each with all its
      // rows counted (a pass may have come before the inserts). `until` fails the test if no pass ever does.
      return yield* until(
        sql,
        (t) => t.churn?.rows === 2000 && t.churn.dead === 0 && t.still?.rows === 2 && t.still.analysed
      )
    }))
    expect(tables.churn).toMatchObject({ dead: 0, vacuumed: true, analysed: true, rows: 2000 })
    expect(tables.still).toMatchObject({ vacuumed: true, analysed: true, rows: 2 })
  }, 60_000)
})
