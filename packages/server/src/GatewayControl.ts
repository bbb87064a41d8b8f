/**
 * The engine as an Effect layer: every domain service on the chosen store, configured with the settings of
 * the server (same defaults, same rules), for calling the domain in-process with no HTTP involved.
 * Imported as a namespace: `GatewayControl.layer(options)`, `GatewayControl.Services`, ….
 */
import * as Domain from "@gateway-control/domain"
import { Context, Effect, Layer, type Redacted } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { layerConfiguredDomain } from "./App.ts"
import { type AppConfig, configFromOptions } from "./AppConfig.ts"
import type { InvalidConfiguration } from "./Settings.ts"

/**
 * Where the engine keeps its data (`GATEWAY_STORE`, `DATABASE_URL`, `DATABASE_POOL_SIZE`). With no `store`,
 * as for the server: PostgreSQL when `url` is given, else PGlite.
 */
export type StoreOptions =
  /** In memory: for tests and trials; nothing outlives the engine. */
  | { readonly store: "memory" }
  /** Embedded PostgreSQL (PGlite) with its files under `dataDir`; one engine (or process) per directory. */
  | { readonly store?: "pglite" | undefined }
  | {
    /** A PostgreSQL server; pending migrations run as the engine opens. */
    readonly store?: "postgres" | undefined
    /** `postgres://user:password@host:5432/db` (`DATABASE_URL`). */
    readonly url: string | Redacted.Redacted<string>
    /**
     * Where the change feed listens (`DATABASE_LISTEN_URL`): PostgreSQL itself when `url` leads to a pooler in
     * transaction mode. Default: `url`.
     */
    readonly listenUrl?: string | Redacted.Redacted<string> | undefined
    /** Connections this engine opens at most (`DATABASE_POOL_SIZE`, default 10, at least 1). */
    readonly poolSize?: number | undefined
    /**
     * How long one statement may take, in ms (`DATABASE_STATEMENT_TIMEOUT_MS`, default 5000; 0: no limit); a
     * server silent a second longer is taken for hung and the call answers as a store that is down.
     */
    readonly statementTimeoutMs?: number | undefined
    /** How long opening a connection may take, in ms (`DATABASE_CONNECT_TIMEOUT_MS`, default 5000). */
    readonly connectTimeoutMs?: number | undefined
  }

/** The settings of the domain (the configuration table's), each with the server's default. */
export interface DomainOptions {
  /**
   * Encrypts provider keys at rest, and the audit chain's keys derive from it (`GATEWAY_MASTER_KEY`):
   * 32 bytes in base64 (`openssl rand -base64 32`). When absent: the memory store makes a new one per
   * engine (nothing outlives it anyway); PGlite and PostgreSQL read `<dataDir>/master.key`, generating it
   * (mode 0600) on first use. Every engine or server sharing one PostgreSQL needs the same key: set it.
   */
  readonly masterKey?: string | Redacted.Redacted<string> | undefined
  /** PGlite's files and the generated `master.key` (`DATA_DIR`, default `./.gateway-data`). */
  readonly dataDir?: string | undefined
  /** Most bytes a render's rendered messages or prompt may take (`MAX_RENDER_BYTES`, default 4 MiB). */
  readonly maxRenderBytes?: number | undefined
  /**
   * Most steps a render may take: section iterations, partial expansions, frames searched by name lookups
   * (`MAX_RENDER_STEPS`, default 1000000).
   */
  readonly maxRenderSteps?: number | undefined
  /** How long a provider call may take, in ms (`UPSTREAM_TIMEOUT_MS`, default 30000). */
  readonly upstreamTimeoutMs?: number | undefined
  /** `host` or `host:port` custom hosts allowed to resolve to internal addresses (`TRUSTED_CUSTOM_HOSTS`). */
  readonly trustedCustomHosts?: ReadonlyArray<string> | undefined
  /** Provider base URL overrides, e.g. `{ openai: "https://proxy.internal/v1" }` (`PROVIDER_BASE_URLS`). */
  readonly providerBaseUrls?: Readonly<Record<string, string>> | undefined
  /** How long one call to an MCP server may take, in ms (`MCP_TIMEOUT_MS`, default 10000). */
  readonly mcpTimeoutMs?: number | undefined
  /** The JSON file of the secrets MCP integrations' `secret_mappings` may name (`MCP_SECRETS_FILE`). */
  readonly mcpSecretsFile?: string | undefined
  /** How long a secret fetched through a secret reference is kept in the process, in ms (`SECRET_CACHE_TTL_MS`, default 30000). */
  readonly secretCacheTtlMs?: number | undefined
  /** A person's session unused this long ends, in ms (`SESSION_IDLE_TIMEOUT_MS`, default 3600000, at least 1000). */
  readonly sessionIdleTimeoutMs?: number | undefined
  /**
   * A person's session ends this long after sign-in whatever its use, in ms (`SESSION_ABSOLUTE_TIMEOUT_MS`,
   * default 43200000, at least 1000 and not shorter than the idle timeout).
   */
  readonly sessionAbsoluteTimeoutMs?: number | undefined
  /**
   * Where keys' rate limits are counted (`REDIS_URL`): `redis://host:6379`, shared by every engine or server
   * using it. When absent, this engine counts alone, in memory.
   */
  readonly redisUrl?: string | Redacted.Redacted<string> | undefined
}

/** What `GatewayControl.layer` takes: a store, and the domain's settings. */
export type Options = StoreOptions & DomainOptions

/** The domain services the layer provides: the same objects `@gateway-control/domain` exports. */
const serviceTags = [
  Domain.ApiKeys,
  Domain.Audit,
  Domain.Bootstrap,
  Domain.Collections,
  Domain.Configs,
  Domain.CredentialHealthChecks,
  Domain.FineTuning,
  Domain.PromptCompletions,
  Domain.IdentityProviders,
  Domain.Integrations,
  Domain.Invites,
  Domain.LocalAccounts,
  Domain.McpConnectivity,
  Domain.McpDirectory,
  Domain.McpRegistry,
  Domain.OidcSignIn,
  Domain.Prompts,
  Domain.Providers,
  Domain.Sessions,
  Domain.SecretReferences,
  Domain.Scim,
  Domain.ScimGroups,
  Domain.ScimTokens,
  Domain.TokenExchange,
  Domain.TrustPolicies,
  Domain.Users,
  Domain.VirtualKeys,
  Domain.Workspaces
] as const

/** The domain services of an engine: what `GatewayControl.layer` provides and `engine.run` may use. */
export type Services = Context.Service.Identifier<(typeof serviceTags)[number]>

/**
 * Why an engine could not open: a bad option, a locked data directory, the database (down: `StoreError`), or a
 * master key other than the store's.
 */
export type OpenError = InvalidConfiguration | SqlError | Domain.StoreError | Domain.MasterKeyMismatch

/** The domain services over a decoded configuration, and nothing else of the composition (no store ports). */
const layerFromConfig = (config: AppConfig): Layer.Layer<Services, OpenError> =>
  Layer.effectContext(Effect.map(Effect.context<Services>(), Context.pick(...serviceTags))).pipe(
    Layer.provide(layerConfiguredDomain(config))
  )

/**
 * Every domain service (`ApiKeys`, `Prompts`, `McpRegistry`, `McpConnectivity`, `McpDirectory`, `Bootstrap`,
 * `Audit`, `Users`, `Workspaces`, `VirtualKeys`, `Configs`, `FineTuning`, `CredentialHealthChecks`, `Collections`, `TrustPolicies`, `TokenExchange`, `IdentityProviders`, `OidcSignIn`, `Invites`, `Sessions`, `LocalAccounts`) on the chosen store. Options are checked as the server checks its
 * variables: an invalid one fails the layer with `InvalidConfiguration` naming it. SQL stores migrate as
 * they open and close with the layer's scope. The layer installs no logger: logs go to the program's.
 * Every change made through them is audited as one made over the API is, in the change's own unit of work; its
 * record's method is `EMBEDDED` unless the program provides `RequestContext` with its own request id, label
 * and client address.
 */
export const layer = (options: Options): Layer.Layer<Services, OpenError> =>
  Layer.unwrap(Effect.map(Effect.fromResult(configFromOptions(options)), layerFromConfig))
