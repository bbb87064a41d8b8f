/**
 * A real gateway-control server on an ephemeral port, over a fresh store (in memory unless a test asks for
 * PGlite or PostgreSQL), bootstrapped.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { layerRoutes, type TrustProxy } from "@gateway-control/adapters-http"
import { layerMemory } from "@gateway-control/adapters-memory"
import {
  Bootstrap,
  type BootstrapResult,
  type RenderLimitsShape,
  SignInLimits,
  type SignInLimitsShape,
  StoreOutageSettings,
  type StoreOutageSettingsShape,
  type StorePorts
} from "@gateway-control/domain"
import { Clock, Effect, Layer, Logger, ManagedRuntime, Redacted } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { randomBytes } from "node:crypto"
import { pgliteFromSnapshot, postgresInFreshSchema, postgresUrl } from "../../../adapters-sql/test/support/Stores.ts"
import {
  createGatewayServer,
  layerCredentialHealthChecks,
  layerDomain,
  layerMcpHealthChecks,
  providerRegistry,
  type ProviderSettings
} from "../../src/App.ts"
import type { McpConfig } from "../../src/McpConfig.ts"
import { type TypedCalls, typedCalls } from "./ApiClient.ts"

export type TestStore = "memory" | "pglite" | "postgres"

/** The stores a test can run on here: PostgreSQL only when TEST_DATABASE_URL (or DATABASE_URL) is set. */
export const availableStores: ReadonlyArray<TestStore> = postgresUrl === undefined
  ? ["memory", "pglite"]
  : ["memory", "pglite", "postgres"]

const storeLayer = (store: TestStore) => {
  switch (store) {
    case "memory":
      return layerMemory
    case "pglite":
      return pgliteFromSnapshot()
    case "postgres":
      return postgresInFreshSchema(postgresUrl!)
  }
}

export interface TestServerOptions {
  readonly maxBodyBytes?: number
  readonly trustProxy?: TrustProxy
  readonly providers?: ProviderSettings
  /** The store, by name or as a layer; a fresh in-memory one when absent. */
  readonly store?: TestStore | Layer.Layer<StorePorts, unknown> | undefined
  readonly renderLimits?: RenderLimitsShape
  /** The server's clock (see `MovableClock`); the real one when absent. */
  readonly clock?: Clock.Clock | undefined
  /** How often the credential checker tries every integration's credential; it runs only when given. */
  readonly credentialHealthIntervalMs?: number | undefined
  /** MCP settings and secrets; the health checker runs when `healthIntervalMs` is above 0. */
  readonly mcp?: McpConfig | undefined
  /** Where the server's logs go; nowhere when absent. */
  readonly loggers?: ReadonlyArray<Logger.Logger<unknown, unknown>> | undefined
  /** Sign-in attempt limits; the domain's defaults when absent. */
  readonly signInLimits?: SignInLimitsShape | undefined
  /** What may answer from the snapshot while the store is unreachable; the domain's default when absent. */
  readonly storeOutage?: StoreOutageSettingsShape | undefined
  /**
   * The bootstrap a store brought with it (one written before the server started, read once the store is
   * built); the server bootstraps a new one when absent.
   */
  readonly bootstrapped?: (() => BootstrapResult) | undefined
}

export const makeTestLayer = (options: TestServerOptions = {}) =>
  HttpRouter.serve(
    layerRoutes({
      maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
      trustProxy: options.trustProxy,
      publicUrl: options.providers?.signIn?.publicUrl ?? undefined
    }),
    {
      disableLogger: true,
      disableListenLog: true
    }
  ).pipe(
    Layer.merge(options.mcp === undefined ? Layer.empty : layerMcpHealthChecks),
    Layer.merge(
      options.credentialHealthIntervalMs === undefined
        ? Layer.empty
        : layerCredentialHealthChecks(options.credentialHealthIntervalMs)
    ),
    Layer.provideMerge(NodeHttpServer.layer(createGatewayServer, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(
      layerDomain(
        typeof options.store === "object" ? options.store : storeLayer(options.store ?? "memory"),
        options.providers,
        options.renderLimits,
        options.mcp
      )
    ),
    Layer.provide(Logger.layer(options.loggers ?? [])),
    Layer.provide(
      options.storeOutage === undefined ? Layer.empty : Layer.succeed(StoreOutageSettings)(options.storeOutage)
    ),
    Layer.provide(
      options.signInLimits === undefined ? Layer.empty : Layer.succeed(SignInLimits)(options.signInLimits)
    ),
    Layer.provide(options.clock === undefined ? Layer.empty : Layer.succeed(Clock.Clock)(options.clock))
  )

export type TestLayer = ReturnType<typeof makeTestLayer>

/** The server, with raw HTTP (`request`, `send`) for tests about the wire and the typed client for the rest. */
export interface TestServer extends TypedCalls {
  readonly baseUrl: string
  readonly adminKey: string
  readonly organisationId: string
  readonly workspaceId: string
  readonly ownerId: string
  readonly runtime: ManagedRuntime.ManagedRuntime<Layer.Success<TestLayer>, Layer.Error<TestLayer>>
  readonly request: (path: string, init?: RequestInit & { readonly key?: string | null }) => Promise<Response>
  /** A JSON request with the admin key, or with `key` when given. */
  readonly send: (method: string, path: string, body: unknown, key?: string) => Promise<Response>
  readonly close: () => Promise<void>
}

export const startTestServer = async (options: TestServerOptions = {}): Promise<TestServer> => {
  const runtime = ManagedRuntime.make(makeTestLayer(options))
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  const address = server.address
  if (!("port" in address)) throw new Error("expected a TCP address")
  const baseUrl = `http://127.0.0.1:${address.port}`
  const boot = options.bootstrapped?.() ?? await runtime.runPromise(
    Effect.flatMap(
      Effect.service(Bootstrap),
      (bootstrap) => bootstrap.run({ organisationName: "Test Org", ownerEmail: "owner@example.com" })
    )
  )
  const adminKey = Redacted.value(boot.api_key)
  const request: TestServer["request"] = (path, init = {}) => {
    const { key, ...rest } = init
    const headers = new Headers(rest.headers)
    const chosen = key === undefined ? adminKey : key
    if (chosen !== null) headers.set("x-service-api-key", chosen)
    return fetch(`${baseUrl}${path}`, { ...rest, headers })
  }
  const send: TestServer["send"] = (method, path, body, key) =>
    request(path, {
      method,
      key,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
  return {
    ...typedCalls(baseUrl, adminKey),
    send,
    baseUrl,
    adminKey,
    organisationId: boot.organisation_id,
    workspaceId: boot.workspace_id,
    ownerId: boot.user_id,
    runtime,
    request,
    close: () => runtime.dispose()
  }
}

/** The error envelope of a non-2xx response. */
export const errorOf = async (response: Response) => {
  const body = (await response.json()) as {
    success: boolean
    error: { code: string; message: string; param: string | null }
  }
  return { status: response.status, success: body.success, ...body.error }
}

/** A response body as loosely-typed JSON, for assertions. */
export const jsonOf = (response: Response): Promise<any> => response.json()

/** Provider settings with OpenAI at `baseUrl` (port 9 of loopback by default: nothing listens there, so a call
 * that got past the rules fails fast instead of reaching the internet) and a fresh master key. */
export const openAiProviderAt = (baseUrl = "http://127.0.0.1:9", upstreamTimeoutMs = 1_000): ProviderSettings => ({
  registry: providerRegistry({ providerBaseUrls: [["openai", baseUrl]], upstreamTimeoutMs, trustedCustomHosts: [] }),
  masterKey: new Uint8Array(randomBytes(32))
})
