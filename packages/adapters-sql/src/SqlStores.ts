/**
 * Ready-made stores: every port on PGlite (embedded, the default) or on PostgreSQL, migrated on start.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, type Redacted } from "effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { migrate } from "./Migrations.ts"
import * as PgliteClient from "./PgliteClient.ts"
import { layerSql } from "./SqlStore.ts"

/** Migrates on build; any failure stops the start with the reason. */
const layerMigrated = Layer.effectDiscard(Effect.orDie(migrate))

/** Every port on the given SQL client, after running the pending migrations. */
export const layerFromClient = <E, R>(client: Layer.Layer<SqlClient.SqlClient, E, R>) =>
  layerSql.pipe(Layer.provide(layerMigrated), Layer.provideMerge(client))

export const layerPglite = (options: PgliteClient.PgliteClientOptions) => layerFromClient(PgliteClient.layer(options))

export interface PostgresOptions {
  readonly url: Redacted.Redacted<string>
  readonly poolSize: number
  /** Extra startup parameters, e.g. `search_path` to run in one schema. */
  readonly startupParameters?: Readonly<Record<string, string>> | undefined
}

export const layerPostgresClient = (options: PostgresOptions) =>
  PgClient.layer({
    url: options.url,
    maxConnections: options.poolSize,
    applicationName: "gateway-control",
    startupParameters: options.startupParameters
  })

export const layerPostgres = (options: PostgresOptions) => layerFromClient(layerPostgresClient(options))
