/**
 * `@effect/sql-pg`'s pooled client, made of the same parts (`PgPool`, `SqlClient.make`) as `PgClient.make`, so
 * that its pool can be measured (internal/poolMetrics.ts): the library keeps the pool's own statistics private.
 * What differs from `PgClient.make` is only that wrapping; the connection, the COMMIT check and the span
 * attributes follow it (@effect/sql-pg 4.0.5). `PgClient`'s extras (`listen`, `notify`, `json`) are not
 * offered: the change feed listens on a connection of its own (PgChangeFeed.ts).
 */
import type { PgConnection } from "@effect/sql-pg"
import { PgPool } from "@effect/sql-pg"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import { Context, Effect, Layer, Stream } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import { makePoolMetrics } from "./internal/poolMetrics.ts"

const connectionOf = (connection: PgConnection.PgConnection): Connection => {
  const rows = (sql: string, params: ReadonlyArray<unknown>, prepare: boolean) =>
    Effect.map(connection.query(sql, params, prepare), (result): ReadonlyArray<PgConnection.Row> => result.rows)
  return {
    execute: (sql, params, transformRows) =>
      transformRows ? Effect.map(rows(sql, params, true), transformRows) : rows(sql, params, true),
    executeUnprepared: (sql, params, transformRows) =>
      transformRows ? Effect.map(rows(sql, params, false), transformRows) : rows(sql, params, false),
    executeRaw: (sql, params) => connection.query(sql, params),
    executeValues: (sql, params) => connection.queryValues(sql, params),
    executeValuesUnprepared: (sql, params) => connection.queryValues(sql, params, false),
    executeStream: (sql, params, transformRows) => {
      const stream = connection.stream(sql, params)
      return transformRows ? Stream.mapArray(stream, (all) => transformRows(all) as typeof all) : stream
    }
  }
}

/** PostgreSQL answers `ROLLBACK` to the `COMMIT` of an aborted transaction. */
const commit = (connection: Connection) =>
  Effect.flatMap(connection.executeRaw("COMMIT", []), (result) =>
    (result as PgConnection.Result).command === "ROLLBACK"
      ? Effect.fail(
        new SqlError({
          reason: new UnknownError({
            cause: new Error("COMMIT rolled back an aborted transaction"),
            message: "PgClient: COMMIT rolled back an aborted transaction",
            operation: "commit"
          })
        })
      )
      : Effect.void)

export interface PgMeteredConfig extends PgPool.Config {
  /** The pool's name in its metrics (`db_client_connection_pool_name`). */
  readonly poolName: string
}

export const make = Effect.fnUntraced(function*(config: PgMeteredConfig) {
  const metered = makePoolMetrics(config.poolName, config.maxConnections ?? 10, yield* Effect.context<never>())
  // Connections are counted through the sockets they open; without a factory of ours, only the used ones.
  const pool = yield* PgPool.make(
    config.stream === undefined ? config : { ...config, stream: metered.countSockets(config.stream) }
  )
  const borrow = metered.borrow<PgConnection.PgConnection, SqlError>(pool.use)
  return yield* SqlClient.make({
    driver: "pg",
    acquirer: Effect.map(metered.checkout(pool.get), connectionOf),
    borrower: (f) => borrow((connection) => f(connectionOf(connection))),
    transactionAcquirer: Effect.map(metered.checkout(pool.reserve), connectionOf),
    prepareTransactionControls: true,
    commit,
    releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
    compiler: makeCompiler(),
    spanAttributes: [
      ["db.system.name", "postgresql"],
      ["db.namespace", config.database ?? config.username ?? "postgres"],
      ["server.address", config.host ?? "localhost"],
      ["server.port", config.port ?? 5432]
    ]
  })
})

/** `SqlClient` on a measured PostgreSQL pool. */
export const layer = (config: PgMeteredConfig): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.effectContext(Effect.map(make(config), (client) => Context.make(SqlClient.SqlClient, client))).pipe(
    Layer.provide(Reactivity.layer)
  )
