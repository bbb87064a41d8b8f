/**
 * A migration test's database: an empty schema of its own, on PGlite (booted from the shared snapshot) or on
 * PostgreSQL, where a test migrates to the version before the one it tests, writes the data that version
 * held, and runs the rest.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import { readFileSync } from "node:fs"
import { inject, it } from "vitest"
import * as PgliteClient from "../../src/PgliteClient.ts"
import { postgresUrl } from "./Stores.ts"

const schemaName = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`

/** Runs `effect` on PGlite, in a new schema named after `prefix`. */
export const inPgliteSchema = <A>(prefix: string, effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => {
  const snapshot = new Blob([new Uint8Array(readFileSync(inject("pgliteSnapshot")))])
  const schema = schemaName(prefix)
  return Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // PGlite has one session: this search_path holds for every statement that follows.
      yield* sql.unsafe(`CREATE SCHEMA "${schema}"`)
      yield* sql.unsafe(`SET search_path TO "${schema}"`)
      return yield* effect
    }).pipe(Effect.provide(PgliteClient.layer({ loadDataDir: snapshot })), Effect.scoped)
  )
}

/** Runs `effect` on the PostgreSQL at `url`, in a new schema named after `prefix`, dropped afterwards. */
export const inPostgresSchema = async <A>(
  url: string,
  prefix: string,
  effect: Effect.Effect<A, unknown, SqlClient.SqlClient>
) => {
  const redacted = Redacted.make(url)
  const schema = schemaName(prefix)
  const admin = (statement: string) =>
    Effect.runPromise(
      Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => sql.unsafe(statement)).pipe(
        Effect.provide(PgClient.layer({ url: redacted, maxConnections: 1 })),
        Effect.provide(Reactivity.layer)
      )
    )
  await admin(`CREATE SCHEMA "${schema}"`)
  try {
    const inSchema = PgClient.layer({ url: redacted, maxConnections: 2, startupParameters: { search_path: schema } })
    return await Effect.runPromise(effect.pipe(Effect.provide(Layer.provideMerge(inSchema, Reactivity.layer))))
  } finally {
    await admin(`DROP SCHEMA "${schema}" CASCADE`)
  }
}

/**
 * A migration's test on PGlite, and on PostgreSQL when one is configured: `upgrade` migrates a new schema
 * named after `prefix` with the data of before, and `check` reads what it answers.
 */
export const upgradeOnEveryStore = <A>(
  title: string,
  prefix: string,
  upgrade: Effect.Effect<A, unknown, SqlClient.SqlClient>,
  check: (upgraded: A) => void
) => {
  it(`${title}, on PGlite`, async () => check(await inPgliteSchema(prefix, upgrade)))
  it.runIf(postgresUrl !== undefined)(
    `${title}, on PostgreSQL`,
    async () => check(await inPostgresSchema(postgresUrl ?? "", prefix, upgrade))
  )
}
