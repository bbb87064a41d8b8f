/**
 * The composition root: the one place that chooses a store and wires ports, domain services, the HTTP
 * routes and the Node server together.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import {
  DEFAULT_PROVIDER_BASE_URLS,
  INVITE_PAGE,
  layerCompletionsUpstream,
  layerFineTuningUpstream,
  layerRoutes
} from "@gateway-control/adapters-http"
import { layerMcpConnections } from "@gateway-control/adapters-mcp"
import { layerMemory } from "@gateway-control/adapters-memory"
import { layerOpenIdClient } from "@gateway-control/adapters-oidc"
import type { DatabaseRefused } from "@gateway-control/adapters-sql"
import { layerConsole } from "@gateway-control/console"
import {
  ApiKeys,
  Audit,
  AuditedUseCase,
  AuditLogs,
  BackgroundWork,
  Bootstrap,
  type BootstrapInput,
  Collections,
  Configs,
  CredentialHealthChecks,
  CredentialHealthSettings,
  DEFAULT_MCP_SETTINGS,
  DEFAULT_SESSION_SETTINGS,
  FineTuning,
  HostResolver,
  Idempotency,
  IdentityProviders,
  IdentityProviderSettings,
  Integrations,
  Invites,
  layerTransitionSweep,
  LocalAccounts,
  McpConnectivity,
  McpDirectory,
  McpRegistry,
  McpSettings,
  OidcSignIn,
  PromptCompletions,
  Prompts,
  ProviderRegistry,
  Providers,
  Readiness,
  RenderLimits,
  type RenderLimitsShape,
  runCredentialHealthChecks,
  runHealthChecks,
  Scim,
  ScimGroups,
  ScimTokens,
  SecretReferences,
  SecretReferenceSettings,
  Sessions,
  SessionSettings,
  type SessionSettingsShape,
  StoreOutage,
  StoreOutageSettings,
  type StorePorts,
  TokenExchange,
  TrustPolicies,
  Users,
  VirtualKeys,
  Workspaces
} from "@gateway-control/domain"
import { Console, Context, Effect, Layer, Logger, Option, Redacted, References } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import type { RateLimiter } from "effect/persistence"
import type { SqlError } from "effect/sql/SqlError"
import { randomBytes } from "node:crypto"
import { mkdirSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { join, resolve } from "node:path"
import { layerAddressRanges } from "./AddressRanges.ts"
import type { AppConfig, StoreConfig } from "./AppConfig.ts"
import { answerClientErrorsInEnvelope } from "./internal/ClientErrors.ts"
import { lockDataDir } from "./internal/DataDirLock.ts"
import { loadMasterKey } from "./internal/MasterKey.ts"
import { layerMount } from "./internal/Mount.ts"
import { asOperator } from "./internal/Operator.ts"
import { layerMcpSecrets, loadMcpConfig, type McpConfig } from "./McpConfig.ts"
import { layerMetricsListener } from "./Metrics.ts"
import {
  layerAuditSigner,
  layerHostResolver,
  layerNodeCrypto,
  layerPasswordHasher,
  layerSecretCipher
} from "./NodeCrypto.ts"
import { type ConnectorFactory, layerMcpFetch, layerProviderHttpClients } from "./ProviderConnections.ts"
import { layerRateLimiter, layerRateLimiterInMemory } from "./RateLimits.ts"
import { layerScimProtocol } from "./ScimProtocol.ts"
import { layerSecretManagers } from "./SecretManagers.ts"
import { InvalidConfiguration } from "./Settings.ts"
import { layerTotp } from "./Totp.ts"
import { layerTracing, tracingConfigOf } from "./Tracing.ts"
import { layerWorkloadTokens, type WorkloadTokenOptions } from "./WorkloadTokens.ts"

/**
 * The SQL adapters, loaded when a SQL store is chosen: on the memory store, PGlite and the PostgreSQL driver
 * are never loaded (their modules held ~10 MB of every process's memory).
 */
export const loadSqlAdapters = Effect.promise(() => import("@gateway-control/adapters-sql"))

type SqlStoreConfig = Exclude<StoreConfig, { readonly kind: "memory" }>

const postgresOptions = (store: Extract<StoreConfig, { readonly kind: "postgres" }>) => ({
  url: store.url,
  listenUrl: store.listenUrl,
  poolSize: store.poolSize,
  statementTimeoutMs: store.statementTimeoutMs,
  connectTimeoutMs: store.connectTimeoutMs
})

/** A database URL the gateway cannot use, or a pooler mode it cannot work with: the operator's to fix, one line. */
const refusedAsConfiguration = <A, R>(layer: Layer.Layer<A, SqlError | DatabaseRefused, R>) =>
  Layer.catchTag(
    layer,
    "DatabaseRefused",
    (refused: DatabaseRefused) =>
      Layer.effectContext<A, InvalidConfiguration, never>(
        Effect.fail(new InvalidConfiguration({ message: refused.message, setting: refused.setting }))
      )
  )

/** The SQL client of a SQL store. */
export const layerSqlClient = (store: SqlStoreConfig) =>
  Layer.unwrap(Effect.gen(function*() {
    const { layerPostgresClient, PgliteClient } = yield* loadSqlAdapters
    switch (store.kind) {
      case "pglite": {
        const dataDir = resolve(store.dataDir)
        mkdirSync(dataDir, { recursive: true, mode: 0o700 })
        yield* lockDataDir(dataDir)
        return PgliteClient.layer({ dataDir: join(dataDir, "pglite"), backgroundWork: BackgroundWork })
      }
      case "postgres":
        return refusedAsConfiguration(layerPostgresClient(postgresOptions(store)))
    }
  }))

/**
 * Every store port, as chosen by the configuration; SQL stores run their pending migrations as they open.
 * On PostgreSQL, processes sharing the database tell each other of changes (its change feed).
 */
export const layerStore = (store: StoreConfig): Layer.Layer<StorePorts, SqlError | InvalidConfiguration> => {
  switch (store.kind) {
    case "memory":
      return layerMemory
    case "pglite":
      return Layer.unwrap(Effect.map(loadSqlAdapters, (sql) => sql.layerFromClient(layerSqlClient(store))))
    case "postgres":
      return Layer.unwrap(
        Effect.map(loadSqlAdapters, (sql) => refusedAsConfiguration(sql.layerPostgres(postgresOptions(store))))
      )
  }
}

export interface ProviderSettings {
  readonly registry: ProviderRegistry["Service"]
  /** The master key: encrypts provider keys at rest, and the audit chain's keys derive from it. */
  readonly masterKey: Uint8Array
  /** DNS for the custom-host check; the system resolver unless given (tests answer from a table). */
  readonly hostResolver?: HostResolver["Service"]
  /** How provider connections open their sockets; undici's connector unless given (tests watch it). */
  readonly connector?: ConnectorFactory
  /** How workload tokens' key sets are fetched and kept (token exchange); the defaults unless given. */
  readonly workloadTokens?: WorkloadTokenOptions
  /** Sign-in with identity providers: the public URL and the operator's provider; none unless given. */
  readonly signIn?: IdentityProviderSettings["Service"]
  /** People's sessions' idle and absolute timeouts; the domain's defaults unless given. */
  readonly sessions?: SessionSettingsShape
}

/** Providers as configured: known ones, overridden base URLs, trusted custom hosts, timeout. */
export const providerRegistry = (
  config: Pick<AppConfig, "providerBaseUrls" | "upstreamTimeoutMs" | "trustedCustomHosts">
) =>
  ProviderRegistry.of({
    baseUrls: new Map([...DEFAULT_PROVIDER_BASE_URLS, ...config.providerBaseUrls]),
    timeoutMs: config.upstreamTimeoutMs,
    trustedHosts: new Set(config.trustedCustomHosts)
  })

const defaultProviders: () => ProviderSettings = () => ({
  registry: providerRegistry({ providerBaseUrls: [], upstreamTimeoutMs: 30_000, trustedCustomHosts: [] }),
  masterKey: new Uint8Array(randomBytes(32))
})

/** The MCP settings without configuration: the defaults, and no secrets. */
export const DEFAULT_MCP_CONFIG: McpConfig = {
  ...DEFAULT_MCP_SETTINGS,
  secrets: new Map(),
  secretCacheTtlMs: SecretReferenceSettings.defaultValue().cacheTtlMs
}

/**
 * MCP connections: the official client, on fetches made like provider connections (`connector`), and secrets:
 * the operator's file, and the secret managers secret references name.
 */
const layerMcp = (mcp: McpConfig, connector: ConnectorFactory | undefined, timeoutMs: number) =>
  Layer.mergeAll(
    layerSecretManagers({ timeoutMs, fileSecrets: mcp.secrets }).pipe(Layer.provide(layerMcpFetch(connector))),
    Layer.succeed(SecretReferenceSettings)({ cacheTtlMs: mcp.secretCacheTtlMs }),
    layerMcpConnections.pipe(Layer.provide(layerMcpFetch(connector))),
    layerMcpSecrets(mcp.secrets),
    Layer.succeed(McpSettings)({
      timeoutMs: mcp.timeoutMs,
      healthIntervalMs: mcp.healthIntervalMs,
      unhealthyAfter: mcp.unhealthyAfter
    })
  )

/**
 * The domain services over a store, with the store's ports exposed too (the CLI and tests use them).
 * `renderLimits` and `mcp` default to the domain's own; keys' rate limits are counted in memory unless
 * `rateLimiter` says where else.
 */
export const layerDomain = <ROut, E, E2 = never>(
  store: Layer.Layer<ROut, E>,
  providers: ProviderSettings = defaultProviders(),
  renderLimits: RenderLimitsShape = RenderLimits.defaultValue(),
  mcp: McpConfig = DEFAULT_MCP_CONFIG,
  rateLimiter: Layer.Layer<RateLimiter.RateLimiter, E2> = layerRateLimiterInMemory
) =>
  Layer.mergeAll(
    Bootstrap.layer,
    Workspaces.layer,
    Users.layer,
    PromptCompletions.layer.pipe(Layer.provideMerge(Prompts.layer)),
    McpRegistry.layer,
    McpConnectivity.layer,
    McpDirectory.layer,
    FineTuning.layer,
    CredentialHealthChecks.layer,
    AuditLogs.layer,
    Readiness.layer,
    Idempotency.layer,
    TrustPolicies.layer,
    TokenExchange.layer,
    LocalAccounts.layer,
    OidcSignIn.layer,
    ScimTokens.layer,
    Scim.layer,
    ScimGroups.layer,
    layerTransitionSweep
  ).pipe(
    Layer.provideMerge(
      Layer.merge(
        Invites.layer.pipe(Layer.provideMerge(Sessions.layer)),
        layerWorkloadTokens(providers.workloadTokens).pipe(Layer.provide(layerMcpFetch(providers.connector)))
      )
    ),
    // Integrations fetch keys kept in secret managers through secret references.
    Layer.provideMerge(
      Providers.layer.pipe(
        Layer.provideMerge(Integrations.layer),
        Layer.provideMerge(SecretReferences.layer)
      )
    ),
    Layer.provideMerge(layerMcp(mcp, providers.connector, providers.registry.timeoutMs)),
    Layer.provideMerge(IdentityProviders.layer),
    Layer.provideMerge(
      Layer.mergeAll(
        Layer.succeed(IdentityProviderSettings)(providers.signIn ?? { publicUrl: null, operatorProvider: null }),
        Layer.succeed(SessionSettings)(providers.sessions ?? DEFAULT_SESSION_SETTINGS),
        layerOpenIdClient
      )
    ),
    Layer.provideMerge(layerScimProtocol),
    Layer.provideMerge(Layer.succeed(RenderLimits)(renderLimits)),
    Layer.provideMerge(Layer.mergeAll(VirtualKeys.layer, Configs.layer, Collections.layer)),
    Layer.provideMerge(ApiKeys.layer),
    Layer.provideMerge(AuditedUseCase.layer),
    Layer.provideMerge(Audit.layer),
    // What keys and renders may answer while the store is unreachable, and the probe that finds it back.
    Layer.provideMerge(Layer.merge(rateLimiter, StoreOutage.layer)),
    Layer.provideMerge(store),
    Layer.provideMerge(Layer.mergeAll(layerNodeCrypto, layerPasswordHasher, layerTotp)),
    Layer.provideMerge(layerSecretCipher(providers.masterKey)),
    Layer.provideMerge(layerAuditSigner(providers.masterKey)),
    Layer.provideMerge(
      providers.hostResolver === undefined ? layerHostResolver : Layer.succeed(HostResolver)(providers.hostResolver)
    ),
    Layer.provideMerge(layerAddressRanges),
    Layer.provideMerge(Layer.succeed(ProviderRegistry)(providers.registry)),
    Layer.provideMerge(
      Layer.merge(layerFineTuningUpstream, layerCompletionsUpstream).pipe(
        Layer.provide(layerProviderHttpClients(providers.connector))
      )
    )
  )

/** The domain over the configured store and providers. */
export const layerConfiguredDomain = (config: AppConfig) =>
  Layer.unwrap(
    Effect.map(Effect.all([loadMasterKey(config), loadMcpConfig(config)]), ([masterKey, mcp]) =>
      layerDomain(
        layerStore(config.store),
        {
          registry: providerRegistry(config),
          masterKey,
          signIn: config.signIn,
          sessions: { idleTimeoutMs: config.sessionIdleTimeoutMs, absoluteTimeoutMs: config.sessionAbsoluteTimeoutMs }
        },
        { maxRenderBytes: config.maxRenderBytes, maxRenderSteps: config.maxRenderSteps },
        mcp,
        layerRateLimiter(config.redisUrl)
      ).pipe(Layer.provide(Layer.succeed(StoreOutageSettings)({ snapshotMs: config.storeOutageSnapshotMs }))))
  )

/** One JSON object a line on stderr, so that stdout stays free for command output. */
export const layerLogging = (level: AppConfig["logLevel"]) =>
  Layer.mergeAll(
    Logger.layer([Logger.withConsoleError(Logger.formatJson)]),
    Layer.succeed(References.MinimumLogLevel)(level)
  )

export const DEFAULT_ORGANISATION = { organisationName: "Default", ownerEmail: "owner@localhost" }

/** What `gateway-control bootstrap` prints and an engine's `bootstrap` answers; the key is shown this once. */
export interface BootstrapOutput {
  readonly organisation_id: string
  readonly workspace_id: string
  readonly user_id: string
  /** The admin key (every scope), for the `x-service-api-key` header. */
  readonly api_key: string
}

/** Bootstraps the empty store: the first organisation, its owner, a default workspace and an admin key. */
export const bootstrapStore = (input: BootstrapInput) =>
  Effect.flatMap(Effect.service(Bootstrap), (bootstrap) => bootstrap.run(input)).pipe(
    Effect.map((result): BootstrapOutput => ({
      organisation_id: result.organisation_id,
      workspace_id: result.workspace_id,
      user_id: result.user_id,
      api_key: Redacted.value(result.api_key)
    }))
  )

/** Where the console's pages are, from outside: `PUBLIC_URL`, else the address `serve` listens on. */
const consoleBaseOf = (config: Pick<AppConfig, "host" | "port" | "signIn">) => {
  if (config.signIn.publicUrl !== null) return config.signIn.publicUrl
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`
}

/**
 * On an empty store, bootstraps and prints the admin key once, clearly marked, to stderr, with the owner's
 * single-use link to set their password (or sign in by SSO when a provider is configured), valid for an hour.
 */
const layerBootstrapIfEmpty = (config: Pick<AppConfig, "host" | "port" | "signIn">) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const bootstrap = yield* Bootstrap
    const invites = yield* Invites
    const result = yield* bootstrap.ifEmpty(DEFAULT_ORGANISATION).pipe(Effect.orDie, asOperator("serve"))
    if (Option.isNone(result)) return
    const { api_key, ...ids } = result.value
    const link = yield* invites.ownerLink(ids.user_id).pipe(Effect.orDie, asOperator("serve"))
    const ownerUrl = `${consoleBaseOf(config)}${INVITE_PAGE}#${link.token}`
    yield* Console.error(
      [
        "",
        "================ gateway-control: first start ================",
        `Created organisation 'Default' (${ids.organisation_id}), owner ${DEFAULT_ORGANISATION.ownerEmail},`,
        `workspace 'default' (${ids.workspace_id}) and an admin key with every scope.`,
        "The admin key is shown once; store it now:",
        "",
        `  x-service-api-key: ${Redacted.value(api_key)}`,
        "",
        `The owner (${DEFAULT_ORGANISATION.ownerEmail}) signs in to the console through this single-use link, ` +
        "valid for an hour" +
        (config.signIn.operatorProvider === null ? ":" : " (it also offers the identity provider):"),
        "",
        `  set your password: ${ownerUrl}`,
        "",
        "=============================================================",
        ""
      ].join("\n")
    )
  }))

/**
 * Effect copies a context's whole service map once more than `maxDepth` (default 8) services were added to
 * it. A request adds nine or ten (server, scope, router, edge, security), so on the layer-built context every
 * request copied the application's ~100 services: ~3% of the render path's CPU in `perf`. Requests start
 * from a flat copy with room for their additions instead.
 */
const REQUEST_CONTEXT_DEPTH = 32

/** The context requests start from: the given one, flattened, with room for what a request adds. */
export const requestBaseContext = <R>(context: Context.Context<R>) =>
  Context.makeUnsafe<R>(new Map(context.mapUnsafe), { maxDepth: REQUEST_CONTEXT_DEPTH })

/**
 * The whole API as one HTTP app: every route, the OpenAPI document and the docs page, with our own edge
 * (envelope errors, input rules, request ids, client address, one log line a request) around them.
 * Under `basePath` it serves the paths below that prefix (internal/Mount.ts).
 */
export const makeHttpApp = (
  config: Pick<AppConfig, "maxBodyBytes" | "trustProxy" | "signIn"> & {
    readonly basePath?: Option.Option<string>
    /** Requests are counted for `/metrics` only when a metrics listener serves them. */
    readonly metricsPort?: Option.Option<number>
  },
  /** More routes beside the API's, behind the same edge (`serve` adds the console). */
  more: Layer.Layer<never, never, HttpRouter.HttpRouter> = Layer.empty
) => {
  const routes = Layer.merge(
    layerRoutes({
      maxBodyBytes: config.maxBodyBytes,
      trustProxy: config.trustProxy,
      publicUrl: config.signIn.publicUrl ?? undefined,
      requestMetrics: config.metricsPort !== undefined && Option.isSome(config.metricsPort)
    }),
    more
  )
  const basePath = config.basePath ?? Option.none()
  // Built after the routes, so the mount runs inside the edge the routes installed.
  return HttpRouter.toHttpEffect(
    Option.isNone(basePath) ? routes : layerMount(basePath.value).pipe(Layer.provideMerge(routes))
  )
}

/**
 * The web console beside the API, unless `CONSOLE_ENABLED=false`. Only `serve` has it: its pages load their
 * files from `/console` at the root, so an engine mounted under a prefix serves the API alone.
 */
export const layerConsoleRoutes = (config: Pick<AppConfig, "consoleEnabled">) =>
  config.consoleEnabled ? layerConsole() : Layer.empty

/**
 * The HTTP server, serving `makeHttpApp` instead of `HttpRouter.serve` (which would add the default request
 * logger, and serve from the layer-built context; see `REQUEST_CONTEXT_DEPTH`).
 */
export const layerHttp = (config: AppConfig) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const httpApp = yield* makeHttpApp(config, layerConsoleRoutes(config))
    const server = yield* HttpServer.HttpServer
    yield* Effect.updateContext(server.serve(httpApp), (context: Context.Context<never>) =>
      Context.makeUnsafe(requestBaseContext(context).mapUnsafe))
  })).pipe(HttpServer.withLogAddress)

/**
 * While the server drains on shutdown, close keep-alive connections as soon as they fall idle: `close()`
 * alone waits for their keep-alive timeout after the last in-flight response. Built after the server,
 * so its finalizer runs before the server's.
 */
const layerCloseIdleOnShutdown = (server: Server) =>
  Layer.effectDiscard(
    Effect.andThen(
      Effect.service(HttpServer.HttpServer),
      Effect.addFinalizer(() =>
        Effect.sync(() => {
          const timer = setInterval(() => server.closeIdleConnections(), 50)
          timer.unref()
          server.once("close", () => clearInterval(timer))
        })
      )
    )
  )

/**
 * The first step of a stop (SIGTERM): `/readyz` answers 503 for `SHUTDOWN_DRAIN_MS` while the listener still
 * takes and answers requests, so a balancer that probes it stops sending here before connections are refused.
 * Built after the server, so its finalizer runs before the server's close.
 */
const layerDrainOnShutdown = (drainMs: number) =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      yield* HttpServer.HttpServer
      const readiness = yield* Readiness
      yield* Effect.addFinalizer(() =>
        Effect.andThen(
          readiness.stop,
          drainMs === 0 ? Effect.void : Effect.andThen(
            Effect.logInfo(`shutting down: /readyz answers 503 for ${drainMs} ms before the listener closes`),
            Effect.sleep(drainMs)
          )
        )
      )
    })
  )

/** The Node HTTP server the service runs on: errors Node answers itself come in the envelope too. */
export const createGatewayServer = (): Server => answerClientErrorsInEnvelope(createServer())

/**
 * The MCP health checker in the background, for as long as the layer lives (McpHealth.ts); it does nothing
 * when `MCP_HEALTH_INTERVAL_MS` is 0.
 */
export const layerMcpHealthChecks = Layer.effectDiscard(Effect.forkScoped(runHealthChecks))

/**
 * The integrations' credential checker in the background, for as long as the layer lives (CredentialHealthChecks.ts),
 * every `intervalMs` (0: never).
 */
export const layerCredentialHealthChecks = (intervalMs: number) =>
  Layer.effectDiscard(Effect.forkScoped(runCredentialHealthChecks)).pipe(
    Layer.provide(Layer.succeed(CredentialHealthSettings)({ intervalMs }))
  )

/** `gateway-control serve`: the whole service. */
export const layerServe = (config: AppConfig) => {
  const server = createGatewayServer()
  // Built in this order (routes, idle closing, drain) so that they stop in the other: the drain first, then idle
  // keep-alive connections close as they fall idle while the routes' own finalizer closes the listener.
  const http = layerDrainOnShutdown(config.shutdownDrainMs).pipe(
    Layer.provideMerge(layerCloseIdleOnShutdown(server).pipe(Layer.provideMerge(layerHttp(config))))
  )
  // The metrics listener opens before the API's and closes after it, so a stop is seen to its end.
  return Layer.mergeAll(http, layerMcpHealthChecks, layerCredentialHealthChecks(config.credentialHealthIntervalMs))
    .pipe(
      Layer.provide(layerMetricsListener(config)),
      Layer.provide(
        NodeHttpServer.layer(() => server, {
          port: config.port,
          host: config.host,
          gracefulShutdownTimeout: config.shutdownTimeoutMs
        })
      ),
      Layer.provide(layerBootstrapIfEmpty(config)),
      Layer.provide(layerConfiguredDomain(config)),
      Layer.provide(layerLogging(config.logLevel)),
      // Outermost, so that every layer above is built with the tracer in its context.
      Layer.provide(layerTracing(tracingConfigOf(config)))
    )
}
