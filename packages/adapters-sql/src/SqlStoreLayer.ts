/**
 * The store layers: every port on the `SqlClient` in context (`layerSql`), and ready-made stores on PGlite
 * (embedded, the default) or on PostgreSQL, migrated on start.
 */
import { PgClient } from "@effect/sql-pg"
import {
  ApiKeyStore,
  AuditLogStore,
  BackgroundWork,
  ChangeFeed,
  CollectionStore,
  CredentialHealthStore,
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
import { Context, Data, Duration, Effect, Layer, Redacted, Result } from "effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { openDeadlineSocket, tcpAddressOf } from "./internal/deadlineSocket.ts"
import { migrate } from "./Migrations.ts"
import { layerPgChangeFeed } from "./PgChangeFeed.ts"
import { type HostLocator, makeHostLocator, needsLocator, parseDatabaseUrl } from "./PgHosts.ts"
import * as PgliteClient from "./PgliteClient.ts"
import * as PgMeteredClient from "./PgMeteredClient.ts"
import { type ConnectionFacts, inspectConnections } from "./PgPoolers.ts"
import { makeAccessStores } from "./SqlAccessStores.ts"
import { makeApiKeyStore } from "./SqlApiKeyStore.ts"
import { makeAuditLogStore } from "./SqlAuditLogStore.ts"
import { makeCapabilityStore } from "./SqlCapabilityStore.ts"
import { makeCollectionStore } from "./SqlCollectionStore.ts"
import { makeCredentialHealthStore } from "./SqlCredentialHealthStore.ts"
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
    Context.add(LocalAccountStore, yield* makeLocalAccountStore),
    Context.add(CredentialHealthStore, yield* makeCredentialHealthStore)
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

export const layerPglite = (options: PgliteClient.PgliteClientOptions) =>
  layerFromClient(PgliteClient.layer({ backgroundWork: BackgroundWork, ...options }))

export interface PostgresOptions {
  /** One host or several, as libpq reads them (`postgres://h1:5432,h2:5432/db?target_session_attrs=read-write`). */
  readonly url: Redacted.Redacted<string>
  /**
   * Where the change feed listens (`DATABASE_LISTEN_URL`): a direct connection to PostgreSQL when `url` leads to
   * a pooler in transaction mode, where `LISTEN` hears nothing. Default: `url`.
   */
  readonly listenUrl?: Redacted.Redacted<string> | undefined
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
/** The name of the requests' pool in its metrics (`db_client_connection_pool_name`); migrations' is not measured. */
const REQUESTS_POOL = "postgresql"
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000
/** How much longer than its own `statement_timeout` a server gets to answer before it is taken for hung. */
export const DEADLINE_GRACE_MS = 1_000

/** Where one URL's connections go: its driver URL, the locator of a multi-host URL, what sits behind it. */
interface Route {
  readonly url: Redacted.Redacted<string>
  readonly locator: HostLocator | undefined
  readonly facts: ConnectionFacts
}

/** A URL the gateway cannot use, or a pooler mode it cannot work with: refused at start, with the reason. */
export class DatabaseRefused extends Data.TaggedError("DatabaseRefused")<{
  readonly message: string
  /** `DATABASE_URL` or `DATABASE_LISTEN_URL`. */
  readonly setting: string
}> {}

/** The socket factory of connections with this statement timeout: the locator's, or the hung-server deadline's. */
const streamOf = (route: Route, statementTimeoutMs: number) => {
  const deadlineMs = statementTimeoutMs > 0 ? statementTimeoutMs + DEADLINE_GRACE_MS : undefined
  if (route.locator !== undefined) return route.locator.socketFactory(deadlineMs)
  const address = deadlineMs === undefined ? undefined : tcpAddressOf(Redacted.value(route.url))
  return address === undefined ? undefined : () => openDeadlineSocket({ ...address, deadlineMs: deadlineMs! })
}

/** The startup parameters a connection sends: the statement timeout, unless the pooler refuses it. */
const startupOf = (route: Route, options: PostgresOptions, statementTimeoutMs: number) =>
  route.facts.startupRefused
    ? {}
    : { statement_timeout: String(statementTimeoutMs), ...options.startupParameters }

/**
 * Reads one URL, follows its hosts (PgHosts.ts) and inspects what it leads to (PgPoolers.ts); lives as long as
 * the scope (the locator's monitor).
 */
const routeOf = (options: PostgresOptions, url: Redacted.Redacted<string>, setting: string, forListen: boolean) =>
  Effect.gen(function*() {
    const target = parseDatabaseUrl(Redacted.value(url))
    if (Result.isFailure(target)) {
      return yield* new DatabaseRefused({ message: `${setting}: ${target.failure}.`, setting })
    }
    const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
    const locator = needsLocator(target.success)
      ? yield* makeHostLocator({ target: target.success, connectTimeoutMs })
      : undefined
    const driverUrl = Redacted.make(target.success.driverUrl)
    const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS
    const facts = yield* inspectConnections(
      {
        url: driverUrl,
        applicationName: "gateway-control",
        connectTimeout: Duration.millis(connectTimeoutMs),
        startupParameters: { statement_timeout: String(statementTimeoutMs), ...options.startupParameters },
        stream: locator?.socketFactory(undefined)
      },
      setting,
      forListen
    ).pipe(Effect.catchTag("PoolerRefused", (e) => Effect.fail(new DatabaseRefused({ message: e.message, setting }))))
    if (facts.pooler && facts.startupRefused && facts.serverStatementTimeoutMs !== statementTimeoutMs) {
      yield* Effect.logWarning(
        `database: ${setting} leads to a pooler that refuses the statement timeout as a startup parameter; ` +
          `the server's own is ${facts.serverStatementTimeoutMs} ms: set it on the role ` +
          `(ALTER ROLE … SET statement_timeout = '${statementTimeoutMs}ms') or the pooler's query_timeout`
      )
    }
    if (facts.pooler) {
      yield* Effect.logInfo(`database: ${setting} leads to a connection pooler; statements run unprepared`)
    }
    return { url: driverUrl, locator, facts } satisfies Route
  })

/** The pooled client of a route; measured (PgMeteredClient.ts) when named, as the requests' pool is. */
const clientOf = (
  options: PostgresOptions,
  route: Route,
  poolSize: number,
  statementTimeoutMs: number,
  poolName?: string
) => {
  const config = {
    url: route.url,
    maxConnections: poolSize,
    applicationName: "gateway-control",
    connectTimeout: Duration.millis(options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS),
    startupParameters: startupOf(route, options, statementTimeoutMs),
    // A pooler in transaction mode hands the next transaction to any server, where a named statement
    // prepared on another does not exist.
    prepare: !route.facts.pooler,
    stream: streamOf(route, statementTimeoutMs)
  }
  return poolName === undefined ? PgClient.layer(config) : PgMeteredClient.layer({ ...config, poolName })
}

const statementTimeoutOf = (options: PostgresOptions) => options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS

/** The SQL client on PostgreSQL (one host, or the writable one of several), without the change feed. */
export const layerPostgresClient = (options: PostgresOptions) =>
  Layer.unwrap(
    Effect.map(
      routeOf(options, options.url, "DATABASE_URL", false),
      (route) => clientOf(options, route, options.poolSize, statementTimeoutOf(options), REQUESTS_POOL)
    )
  )

/**
 * Every port on PostgreSQL, with the change feed that tells the other processes on it (PgChangeFeed.ts).
 * Migrations run first on a connection of their own, with no statement limit: a migration may rightly take
 * longer than any request's statement (an index on a large table), and may wait for another process's
 * migration.
 */
export const layerPostgres = (options: PostgresOptions) =>
  Layer.unwrap(Effect.gen(function*() {
    const listenUrl = options.listenUrl
    const separate = listenUrl !== undefined && Redacted.value(listenUrl) !== Redacted.value(options.url)
    const route = yield* routeOf(options, options.url, "DATABASE_URL", !separate)
    const listenRoute = separate ? yield* routeOf(options, listenUrl, "DATABASE_LISTEN_URL", true) : route
    const feed = layerPgChangeFeed({
      url: listenRoute.url,
      startupParameters: listenRoute.facts.startupRefused ? {} : options.startupParameters,
      stream: streamOf(listenRoute, 0)
    })
    const migrated = Layer.effectDiscard(Effect.orDie(Effect.provide(migrate, clientOf(options, route, 1, 0))))
    return layerSqlWith(feed).pipe(
      Layer.provide(migrated),
      Layer.provideMerge(clientOf(options, route, options.poolSize, statementTimeoutOf(options), REQUESTS_POOL))
    )
  }))
