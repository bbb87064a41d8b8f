/**
 * The engine for plain TypeScript: `createGatewayControl(options)` opens the store and serves the whole API
 * in-process, as a web-standard `fetch` handler and as a Node `(req, res)` handler, with `run` to call the
 * domain directly and `close` to release the store. The HTTP app is the server's own (App.ts `makeHttpApp`),
 * so every edge behaviour (error envelope, input rules, request ids, audit, client address) is the same.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { errorResponse } from "@gateway-control/adapters-http"
import type { BootstrapInput } from "@gateway-control/domain"
import { Context, Effect, Layer, ManagedRuntime, Option, Result, type Scope } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { IncomingMessage, ServerResponse } from "node:http"
import { isIP } from "node:net"
import {
  type BootstrapOutput,
  bootstrapStore,
  layerConfiguredDomain,
  layerLogging,
  makeHttpApp,
  requestBaseContext
} from "./App.ts"
import { type AppConfig, configFromOptions } from "./AppConfig.ts"
import type { DomainOptions, Services, StoreOptions } from "./GatewayControl.ts"
import { makeInFlight } from "./internal/InFlight.ts"
import { underBasePath } from "./internal/Mount.ts"
import type { TrustProxyInput } from "./Settings.ts"

/** The settings of the HTTP side and of the engine's own runtime, each with the server's default. */
export interface HttpOptions {
  /** Largest accepted request body in bytes; larger ones answer 413 (`MAX_BODY_BYTES`, default 1 MiB). */
  readonly maxBodyBytes?: number | undefined
  /**
   * Which proxies' `X-Forwarded-For` entries name the client for the audit log (`TRUST_PROXY`, default
   * `false`): `false`, `true` (the one nearest proxy), a number of proxies, or proxy addresses and CIDR
   * ranges (`loopback`, `linklocal`, `uniquelocal`), as a list or as the variable's comma-separated text.
   * The walk starts at the peer: the socket's address for `nodeHandler`, `remoteAddress` for `fetch`.
   */
  readonly trustProxy?: TrustProxyInput | undefined
  /** Least level logged, as JSON lines on stderr (`LOG_LEVEL`, default `info`: one line a request). */
  readonly logLevel?: "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "none" | undefined
  /** How long `close()` waits for requests in flight before cancelling them (`SHUTDOWN_TIMEOUT_MS`, 20000). */
  readonly shutdownTimeoutMs?: number | undefined
  /**
   * A path prefix the API is mounted under, e.g. `/gateway`: `/gateway/v1/prompts` is served as
   * `/v1/prompts`, while logs and the audit log keep the path as sent. Requests outside it answer the 404
   * envelope, or, in `nodeHandler`, go to `next` when one is given. No prefix by default.
   */
  readonly basePath?: string | undefined
}

/** What `createGatewayControl` takes: a store, the domain's settings and the HTTP side's. */
export type GatewayControlOptions = StoreOptions & DomainOptions & HttpOptions

/** What the host server knows about a request that a web `Request` does not carry. */
export interface FetchInfo {
  /**
   * The address of the peer the request came from (Node's `socket.remoteAddress`; Bun's
   * `server.requestIP(request)`; Deno's `info.remoteAddr.hostname`). Without it, or when it is not an IP
   * address, the client address is unknown: the audit log records none, and `X-Forwarded-For` is not
   * believed whatever `trustProxy` says, since there is no peer to trust.
   */
  readonly remoteAddress?: string | undefined
}

/** A running engine: the API over one store, in-process. */
export interface GatewayControlEngine {
  /**
   * Creates the first organisation, its owner, a default workspace and an admin key, as
   * `gateway-control bootstrap` does; fails with `AlreadyBootstrapped` when the store has an organisation,
   * or `InvalidRequest` (naming `organisation_name` or `owner_email`).
   */
  readonly bootstrap: (input: BootstrapInput) => Promise<BootstrapOutput>
  /** The whole API, `/v1/openapi.json` and `/docs` included, as a web-standard handler. */
  readonly fetch: (request: Request, info?: FetchInfo) => Promise<Response>
  /**
   * The whole API for `node:http`, Express (`app.use(engine.nodeHandler)`; mount it before any body
   * parser) and Fastify (`reply.hijack()`, then `engine.nodeHandler(request.raw, reply.raw)`). With
   * `basePath` and a `next`, requests outside the prefix go to `next`; every request inside it is the API's.
   */
  readonly nodeHandler: (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void
  /**
   * Runs an Effect program against the domain services, e.g. `ApiKeys.authenticate` then `Prompts.render`.
   * It rejects with the program's own failure. Changes made here are audited like the API's (method `EMBEDDED`).
   */
  readonly run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>
  /**
   * Stops taking requests (they answer 503), lets those in flight finish for up to `shutdownTimeoutMs`,
   * cancels the rest and releases the store: a PGlite data directory can then be opened by a new engine.
   * Calling it again waits for the same close.
   */
  readonly close: () => Promise<void>
}

class EngineHttp extends Context.Service<EngineHttp, {
  readonly fetch: (request: Request, context?: Context.Context<never>) => Promise<Response>
  readonly nodeHandler: (request: IncomingMessage, response: ServerResponse) => void
}>()("@gateway-control/server/EngineHttp") {}

/** The peer address `fetch` was given for the current request. */
const PeerAddress = Context.Reference<string | undefined>("@gateway-control/server/PeerAddress", {
  defaultValue: () => undefined
})

/** The app, with the peer address (when given to `fetch`) as the request's remote address. */
const withPeerAddress = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.withFiber((fiber) => {
    const address = fiber.getRef(PeerAddress)
    if (address === undefined) return app
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    return Effect.provideService(
      app,
      HttpServerRequest.HttpServerRequest,
      request.modify({ remoteAddress: Option.some(address) })
    )
  })

const layerEngineHttp = (config: AppConfig) =>
  Layer.effect(
    EngineHttp,
    Effect.gen(function*() {
      const app = yield* makeHttpApp(config)
      type Needs = Effect.Services<typeof app>
      type Provided = Exclude<Needs, Scope.Scope | HttpServerRequest.HttpServerRequest>
      const context = requestBaseContext(yield* Effect.context<Provided>())
      const scope = yield* Effect.scope
      // Node requests run in this scope, so closing the engine cancels those still running.
      const nodeHandler = yield* Effect.provideContext(NodeHttpServer.makeHandler(app, { scope }), context)
      const fetch = HttpEffect.toWebHandlerWith<Provided, Needs>(context)(withPeerAddress(app))
      return EngineHttp.of({ fetch, nodeHandler })
    })
  ).pipe(Layer.provide(NodeHttpServer.layerHttpServices))

const layerEngine = (config: AppConfig) =>
  layerEngineHttp(config).pipe(
    Layer.provideMerge(layerConfiguredDomain(config)),
    Layer.provideMerge(layerLogging(config.logLevel))
  )

const closedResponse = () =>
  HttpServerResponse.toWeb(errorResponse(503, "service_unavailable", "This gateway-control engine is closed."))

const answerClosed = async (response: ServerResponse) => {
  const answer = closedResponse()
  response.writeHead(answer.status, Object.fromEntries(answer.headers))
  response.end(Buffer.from(await answer.arrayBuffer()))
}

/**
 * Opens the store (migrating a SQL one) and starts the engine. Options are checked as the server checks
 * its variables, with the same defaults: an invalid one rejects with `InvalidConfiguration` naming it.
 */
export const createGatewayControl = async (options: GatewayControlOptions = {}): Promise<GatewayControlEngine> => {
  const decoded = configFromOptions(options)
  if (Result.isFailure(decoded)) throw decoded.failure
  const config = decoded.success
  const runtime = ManagedRuntime.make(layerEngine(config))
  const http = await runtime.runPromise(Effect.service(EngineHttp)).catch(async (error: unknown) => {
    await runtime.dispose()
    throw error
  })
  const inFlight = makeInFlight()
  const cancelFetches = new AbortController()
  let closing: Promise<void> | undefined
  const basePath = Option.getOrUndefined(config.basePath)

  return {
    bootstrap: (input) => runtime.runPromise(bootstrapStore(input)),
    fetch: (request, info) => {
      if (closing !== undefined) return Promise.resolve(closedResponse())
      const address = info?.remoteAddress
      const peer = typeof address === "string" && isIP(address) !== 0 ? Context.make(PeerAddress, address) : undefined
      const cancellable = new Request(request, { signal: AbortSignal.any([request.signal, cancelFetches.signal]) })
      return inFlight.track(http.fetch(cancellable, peer))
    },
    nodeHandler: (request, response, next) => {
      if (next !== undefined && basePath !== undefined && underBasePath(request.url ?? "/", basePath) === undefined) {
        return next()
      }
      if (closing !== undefined) return void answerClosed(response)
      inFlight.trackUntil(response, "close")
      http.nodeHandler(request, response)
    },
    run: (effect) =>
      closing === undefined
        ? runtime.runPromise(effect)
        : Promise.reject(new Error("This gateway-control engine is closed.")),
    close: () =>
      closing ??= (async () => {
        await inFlight.settled(config.shutdownTimeoutMs)
        // Cancelled requests answer 503 as they stop; node requests are cancelled as the runtime closes.
        cancelFetches.abort()
        await inFlight.settled(config.shutdownTimeoutMs)
        await runtime.dispose()
      })()
  }
}
