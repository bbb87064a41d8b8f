/**
 * The composition root: the one place that chooses a store and wires ports, domain services, the HTTP
 * routes and the Node server together.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { layerRoutes } from "@gateway-control/adapters-http"
import { layerMemory } from "@gateway-control/adapters-memory"
import { layerFromClient, layerPostgresClient, PgliteClient } from "@gateway-control/adapters-sql"
import { ApiKeys, Audit, Bootstrap, McpRegistry, Prompts, Users, Workspaces } from "@gateway-control/domain"
import { Console, Effect, Layer, Logger, Option, Redacted, References } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { mkdirSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { join, resolve } from "node:path"
import type { AppConfig, StoreConfig } from "./AppConfig.ts"
import { lockDataDir } from "./internal/DataDirLock.ts"
import { layerNodeCrypto } from "./NodeCrypto.ts"

/** The SQL client of a SQL store. */
export const layerSqlClient = (store: Exclude<StoreConfig, { readonly kind: "memory" }>) => {
  switch (store.kind) {
    case "pglite": {
      const dataDir = resolve(store.dataDir)
      return Layer.unwrap(Effect.gen(function*() {
        mkdirSync(dataDir, { recursive: true, mode: 0o700 })
        yield* lockDataDir(dataDir)
        return PgliteClient.layer({ dataDir: join(dataDir, "pglite") })
      }))
    }
    case "postgres":
      return layerPostgresClient({ url: store.url, poolSize: store.poolSize })
  }
}

/** Every store port, as chosen by the configuration; SQL stores run their pending migrations as they open. */
export const layerStore = (store: StoreConfig): Layer.Layer<Layer.Success<typeof layerMemory>, unknown> =>
  store.kind === "memory" ? layerMemory : layerFromClient(layerSqlClient(store))

/** The domain services over a store, with the store's ports exposed too (the CLI and tests use them). */
export const layerDomain = <ROut, E>(store: Layer.Layer<ROut, E>) =>
  Layer.mergeAll(Bootstrap.layer, Workspaces.layer, Users.layer, Audit.layer, Prompts.layer, McpRegistry.layer).pipe(
    Layer.provideMerge(ApiKeys.layer),
    Layer.provideMerge(store),
    Layer.provideMerge(layerNodeCrypto)
  )

/** One JSON object a line on stderr, so that stdout stays free for command output. */
export const layerLogging = (level: AppConfig["logLevel"]) =>
  Layer.mergeAll(
    Logger.layer([Logger.withConsoleError(Logger.formatJson)]),
    Layer.succeed(References.MinimumLogLevel)(level)
  )

export const DEFAULT_ORGANISATION = { organisationName: "Default", ownerEmail: "owner@localhost" }

/** On an empty store, bootstraps and prints the admin key once, clearly marked, to stderr. */
const layerBootstrapIfEmpty = Layer.effectDiscard(
  Effect.gen(function*() {
    const bootstrap = yield* Bootstrap
    const result = yield* bootstrap.ifEmpty(DEFAULT_ORGANISATION).pipe(Effect.orDie)
    if (Option.isNone(result)) return
    const { api_key, ...ids } = result.value
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
        "=============================================================",
        ""
      ].join("\n")
    )
  })
)

/** The HTTP server on the Node platform, routes served with our own edge instead of the default logger. */
export const layerHttp = (config: AppConfig) =>
  HttpRouter.serve(layerRoutes({ maxBodyBytes: config.maxBodyBytes, trustProxy: config.trustProxy }), {
    disableLogger: true
  })

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

/** `gateway-control serve`: the whole service. */
export const layerServe = (config: AppConfig) => {
  const server = createServer()
  return Layer.merge(layerHttp(config), layerCloseIdleOnShutdown(server)).pipe(
    Layer.provide(
      NodeHttpServer.layer(() => server, {
        port: config.port,
        host: config.host,
        gracefulShutdownTimeout: config.shutdownTimeoutMs
      })
    ),
    Layer.provide(layerBootstrapIfEmpty),
    Layer.provide(layerDomain(layerStore(config.store))),
    Layer.provide(layerLogging(config.logLevel))
  )
}
