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
  IdempotencyStore,
  IdentityProviderStore,
  IntegrationStore,
  InviteStore,
  LabelStore,
  LeaseStore,
  LocalAccountStore,
  McpCapabilityStore,
  ProviderStore,
  ScimStore,
  ScimTokenStore,
  SecretReferenceStore,
  SessionStore,
  SignInFlowStore,
  type StorePorts,
  StoreTransaction,
  TrustPolicyStore
} from "@gateway-control/domain"
import { Context, Duration, Effect, Layer, Redacted } from "effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { openDeadlineSocket, tcpAddressOf } from "./internal/deadlineSocket.ts"
import { migrate } from "./Migrations.ts"
import { layerPgChangeFeed } from "./PgChangeFeed.ts"
import * as PgliteClient from "./PgliteClient.ts"
import { makeAccessStores } from "./SqlAccessStores.ts"
import { makeApiKeyStore } from "./SqlApiKeyStore.ts"
import { makeAuditLogStore } from "./SqlAuditLogStore.ts"
import { makeCapabilityStore } from "./SqlCapabilityStore.ts"
import { makeCollectionStore } from "./SqlCollectionStore.ts"
import { makeCredentialStores } from "./SqlCredentialStores.ts"
import { makeIdempotencyStore } from "./SqlIdempotencyStore.ts"
import { makeIdentityProviderStore, makeSignInFlowStore } from "./SqlIdentityProviderStore.ts"
import { makeIntegrationStore } from "./SqlIntegrationStore.ts"
import { makeInviteStore } from "./SqlInviteStore.ts"
import { makeLabelStore } from "./SqlLabelStore.ts"
import { makeLeaseStore } from "./SqlLeaseStore.ts"
import { makeLocalAccountStore } from "./SqlLocalAccountStore.ts"
import { makeMcpStores } from "./SqlMcpStores.ts"
import { makePromptStores } from "./SqlPromptStores.ts"
import { makeProviderStore } from "./SqlProviderStore.ts"
import { makeScimStore } from "./SqlScimStore.ts"
import { makeScimTokenStore } from "./SqlScimTokenStore.ts"
import { makeSecretReferenceStore } from "./SqlSecretReferenceStore.ts"
import { makeSessionStore } from "./SqlSessionStore.ts"
import { makeStoreTransaction } from "./SqlStoreTransaction.ts"
import { makeTrustPolicyStore } from "./SqlTrustPolicyStore.ts"

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
    Context.add(LeaseStore, yield* makeLeaseStore),
    Context.add(IdempotencyStore, yield* makeIdempotencyStore),
    Context.add(TrustPolicyStore, yield* makeTrustPolicyStore),
    Context.add(SessionStore, yield* makeSessionStore),
    Context.add(SecretReferenceStore, yield* makeSecretReferenceStore),
    Context.add(IdentityProviderStore, yield* makeIdentityProviderStore),
    Context.add(SignInFlowStore, yield* makeSignInFlowStore),
    Context.add(ScimTokenStore, yield* makeScimTokenStore),
    Context.add(ScimStore, yield* makeScimStore),
    Context.add(InviteStore, yield* makeInviteStore),
    Context.add(IntegrationStore, yield* makeIntegrationStore)
  ).pipe(
    Context.add(ProviderStore, yield* makeProviderStore),
    Context.add(LocalAccountStore, yield* makeLocalAccountStore)
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
  /**
   * How long one statement may take, in ms (PostgreSQL's `statement_timeout`, lock waits included); a server
   * that has not answered a statement `DEADLINE_GRACE_MS` later is taken for hung and its connection dropped
   * (internal/deadlineSocket.ts). 0: no limit. Default 5000.
   */
  readonly statementTimeoutMs?: number | undefined
  /** How long opening a connection (TCP, TLS, authentication) may take, in ms. Default 5000. */
  readonly connectTimeoutMs?: number | undefined
  /** Extra startup parameters, e.g. `search_path` to run in one schema. */
  readonly startupParameters?: Readonly<Record<string, string>> | undefined
}

export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000
/** How much longer than its own `statement_timeout` a server gets to answer before it is taken for hung. */
export const DEADLINE_GRACE_MS = 1_000

export const layerPostgresClient = (options: PostgresOptions) => {
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS
  const address = statementTimeoutMs > 0 ? tcpAddressOf(Redacted.value(options.url)) : undefined
  return PgClient.layer({
    url: options.url,
    maxConnections: options.poolSize,
    applicationName: "gateway-control",
    connectTimeout: Duration.millis(options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS),
    startupParameters: { statement_timeout: String(statementTimeoutMs), ...options.startupParameters },
    stream: address === undefined
      ? undefined
      : () => openDeadlineSocket({ ...address, deadlineMs: statementTimeoutMs + DEADLINE_GRACE_MS })
  })
}

/**
 * Migrations on a connection of their own, with no statement limit: a migration may rightly take longer than
 * any request's statement (an index on a large table), and may wait for another process's migration.
 */
const layerMigratedOnPostgres = (options: PostgresOptions) =>
  Layer.effectDiscard(
    Effect.orDie(Effect.provide(migrate, layerPostgresClient({ ...options, poolSize: 1, statementTimeoutMs: 0 })))
  )

/** Every port on PostgreSQL, with the change feed that tells the other processes on it (PgChangeFeed.ts). */
export const layerPostgres = (options: PostgresOptions) =>
  layerSqlWith(layerPgChangeFeed(options)).pipe(
    Layer.provide(layerMigratedOnPostgres(options)),
    Layer.provideMerge(layerPostgresClient(options))
  )
