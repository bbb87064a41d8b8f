/**
 * A store that lacks a migration numbered below the latest it has applied (migrated by a build from between two
 * changes that landed out of order) is refused with the missing migration named, instead of left without its
 * tables for good (Effect's migrator never runs a migration below the latest applied).
 */
import { Effect, Exit } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "vitest"
import { migrate, migrationScripts } from "../src/Migrations.ts"
import * as PgliteClient from "../src/PgliteClient.ts"

describe("migrating a store that skipped a migration", () => {
  it("refuses, naming the migration it lacks, and changes nothing", async () => {
    // The one just below the latest: the case of a change that landed after a later-numbered one.
    const names = Object.keys(migrationScripts).sort()
    const lacking = names[names.length - 2]!
    const program = Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate
      // As if that migration had landed after the store was migrated by a build that had the later ones.
      yield* sql`DELETE FROM effect_sql_migrations WHERE migration_id = ${Number(lacking.slice(0, 4))}`
      const before = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM effect_sql_migrations`
      const exit = yield* Effect.exit(migrate)
      const after = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM effect_sql_migrations`
      return { exit, before: before[0]!.n, after: after[0]!.n }
    })
    const { after, before, exit } = await Effect.runPromise(
      program.pipe(Effect.provide(PgliteClient.layer({})))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const message = Exit.isFailure(exit) ? String(exit.cause) : ""
    expect(message).toMatch(/MigrationRefused/)
    expect(message).toContain(lacking)
    expect(after).toBe(before)
  }, 120_000)

  it("migrates a store that has every migration below its latest", async () => {
    const program = Effect.gen(function*() {
      yield* migrate
      return yield* migrate
    })
    const ranAgain = await Effect.runPromise(program.pipe(Effect.provide(PgliteClient.layer({}))))
    expect(ranAgain).toEqual([])
  }, 120_000)
})
