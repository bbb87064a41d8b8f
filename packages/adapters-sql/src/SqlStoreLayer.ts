/**
 * The store layers: every port on the `SqlClient` in context (`layerSql`), and ready-made stores on PGlite
 * (embedded, the default) or on PostgreSQL, migrated on start.
 */
import { PgClient } from "@effect/sql-pg"
import {
  ApiKeyStore,
  AuditLogStore,
  ChangeFeed,
  CollectionStore,
  LabelStore,
  LeaseStore,
  McpCapabilityStore,
  type StorePorts,
  StoreTransaction
} from "@gateway-control/domain"
import { Context, Effect, Layer, type Redacted } from "effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { migrate } from "./Migrations.ts"
import { layerPgChangeFeed } from "./PgChangeFeed.ts"
import * as PgliteClient from "./PgliteClient.ts"
import { makeAccessStores } from "./SqlAccessStores.ts"
import { makeApiKeyStore } from "./SqlApiKeyStore.ts"
import { makeAuditLogStore } from "./SqlAuditLogStore.ts"
import { makeCapabilityStore } from "./SqlCapabilityStore.ts"
import { makeCollectionStore } from "./SqlCollectionStore.ts"
import { makeCredentialStores } from "./SqlCredentialStores.ts"
import { makeLabelStore } from "./SqlLabelStore.ts"
import { makeLeaseStore } from "./SqlLeaseStore.ts"
import { makeMcpStores } from "./SqlMcpStores.ts"
import { makePromptStores } from "./SqlPromptStores.ts"
import { makeStoreTransaction } from "./SqlStoreTransaction.ts"

const makeAll = Effect.gen(function*() {
  const access = yield* makeAccessStores
  const prompts = yield* makePromptStores
  const mcp = yield* makeMcpStores
  const credentials = yield* makeCredentialStores
  return Context.mergeAll(access, prompts, mcp, credentials).pipe(
    Context.add(ApiKeyStore, yield* makeApiKeyStore),
    Context.add(AuditLogStore, yield* makeAuditLogStore),
    Context.add(LabelStore, yield* makeLabelStore),
    Context.add(CollectionStore, yield* makeCollectionStore),
    Context.add(StoreTransaction, yield* makeStoreTransaction),
    Context.add(McpCapabilityStore, yield* makeCapabilityStore),
    Context.add(LeaseStore, yield* makeLeaseStore)
  )
})

/** The change feed of a store that one process uses alone (PGlite): there is nobody to tell. */
const layerInProcessFeed = Layer.succeed(ChangeFeed)(ChangeFeed.inProcess)

type ChangeFeedLayer = Layer.Layer<ChangeFeed, never, SqlClient.SqlClient>

/**
 * Every store port on the `SqlClient` in context, with the given change feed (in-process by default). Run the
 * migrations first (`migrate`).
 */
export const layerSqlWith = (feed: ChangeFeedLayer): Layer.Layer<StorePorts, never, SqlClient.SqlClient> =>
  Layer.merge(Layer.effectContext(makeAll), feed)

/** Every store port on the `SqlClient` in context, for one process. Run the migrations first (`migrate`). */
export const layerSql: Layer.Layer<StorePorts, never, SqlClient.SqlClient> = layerSqlWith(layerInProcessFeed)

/** Migrates on build; any failure stops the start with the reason. */
const layerMigrated = Layer.effectDiscard(Effect.orDie(migrate))

/** Every port on the given SQL client, after running the pending migrations. */
export const layerFromClient = <E, R>(
  client: Layer.Layer<SqlClient.SqlClient, E, R>,
  feed: ChangeFeedLayer = layerInProcessFeed
) => layerSqlWith(feed).pipe(Layer.provide(layerMigrated), Layer.provideMerge(client))

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

/** Every port on PostgreSQL, with the change feed that tells the other processes on it (PgChangeFeed.ts). */
export const layerPostgres = (options: PostgresOptions) =>
  layerFromClient(layerPostgresClient(options), layerPgChangeFeed(options))
