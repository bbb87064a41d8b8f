/**
 * SQL stores for tests: PGlite booted from the shared snapshot, and PostgreSQL in a fresh schema that is
 * dropped afterwards (when TEST_DATABASE_URL or DATABASE_URL is set).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { readFileSync } from "node:fs"
import { inject } from "vitest"
import * as PgliteClient from "../../src/PgliteClient.ts"
import { layerFromClient, layerPostgres, type PostgresOptions } from "../../src/SqlStoreLayer.ts"

declare module "vitest" {
  export interface ProvidedContext {
    pgliteSnapshot: string
  }
}

let snapshot: Uint8Array<ArrayBuffer> | undefined

/** PGlite in memory, from the migrated snapshot made once per test run. */
export const pgliteFromSnapshot = () => {
  snapshot ??= new Uint8Array(readFileSync(inject("pgliteSnapshot")))
  return layerFromClient(PgliteClient.layer({ loadDataDir: new Blob([snapshot]) }))
}

export const postgresUrl: string | undefined = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL

/**
 * One statement on a client of its own, opened and closed around it. Not a client kept for the layer's life:
 * a pool grows in a fiber forked into its own scope, and at the DROP that scope is already closing, so a pool
 * whose connection had gone idle past its timeout (a suite longer than a minute) waited forever for a new one.
 */
const admin = (url: string, statement: string) =>
  Effect.scoped(
    Effect.flatMap(PgClient.make({ url: Redacted.make(url), maxConnections: 1 }), (client) => client.unsafe(statement))
  )

/**
 * PostgreSQL in a schema of its own, created now and dropped when the layer is released. The stores connect
 * to `connectTo` (a proxy in front of `url`, say); the schema is made and dropped over `url` directly, so
 * whatever happens on the stores' connections never stands in the way of the cleanup.
 */
export const postgresInFreshSchema = (
  url: string,
  connectTo: string = url,
  timeouts: Pick<PostgresOptions, "statementTimeoutMs" | "connectTimeoutMs"> = {}
) =>
  Layer.unwrap(
    Effect.gen(function*() {
      const schema = `test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
      yield* admin(url, `CREATE SCHEMA "${schema}"`)
      yield* Effect.addFinalizer(() => Effect.orDie(admin(url, `DROP SCHEMA "${schema}" CASCADE`)))
      return layerPostgres({
        url: Redacted.make(connectTo),
        poolSize: 4,
        startupParameters: { search_path: schema },
        ...timeouts
      })
    }).pipe(Effect.provide(Reactivity.layer))
  )
