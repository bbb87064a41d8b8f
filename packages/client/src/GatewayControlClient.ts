/**
 * The typed client of the gateway-control HTTP API, derived with `HttpApiClient.make` from the API definition
 * itself (`GatewayApi` of `@gateway-control/adapters-http/api`): every endpoint's request, success and error
 * types are the server's own schemas, so a change of contract is a compile error here.
 */
import { API_KEY_HEADER, ApiKeyAuth, GatewayApi } from "@gateway-control/adapters-http/api"
import { Context, Effect, Layer, Redacted } from "effect"
import { type HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import type { Simplify } from "effect/Types"

export interface GatewayControlClientOptions {
  /**
   * Where the API is served: the origin (`https://gateway.example.com`), or the origin and the prefix it is
   * mounted under (`https://example.com/gateway`). Endpoint paths (`/v1/...`, `/healthz`) are appended to it.
   */
  readonly baseUrl: string | URL
  /**
   * The API key every `/v1` call presents, in the header the API's security scheme names (`x-service-api-key`).
   * That header is not among the names effect redacts by default: a program that logs requests or captures
   * their headers in spans should add it to `Headers.CurrentRedactedNames`.
   */
  readonly apiKey: Redacted.Redacted<string> | string
}

/** The client `HttpApiClient.make` derives from the whole contract, groups as the definition has them. */
type DerivedClient = HttpApiClient.ForApi<typeof GatewayApi>

/**
 * The client: one object a group (`workspaces`, `apiKeys`, `users`, `scopes`, `auditLogs`, `prompts`, `labels`,
 * `mcpRegistry`, `mcpConnectivity`, `mcpDirectory`, `fineTuning`, `virtualKeys`, `configs`), one method an
 * endpoint, and the health checks (`healthz`, `readyz`) at the top. Each method takes `{ params, query,
 * payload }` as its endpoint declares them and answers an `Effect` whose success is
 * the decoded response and whose errors are the endpoint's error classes (`BadRequest`, `Unauthorized`,
 * `ForbiddenError`, `NotFoundError`, `ConflictError`, ..., each with the envelope's `error.code`, `message`
 * and `param`, and a `_tag` to `catchTag` on), plus `HttpClientError` (no answer, or a status the endpoint does
 * not declare) and `SchemaError` (a request that does not encode, or an answer that does not decode).
 *
 * Rendering (`prompts.render`) is served outside HttpApi, by a lean route, but the definition describes it in
 * a group of its own; the client puts it back among the prompts.
 */
export type GatewayControlClientShape = Simplify<
  Omit<DerivedClient, "promptRendering"> & {
    readonly prompts: Simplify<DerivedClient["prompts"] & DerivedClient["promptRendering"]>
  }
>

/**
 * The client side of `ApiKeyAuth`: the key goes in its header on exactly the endpoints that declare it (not on
 * the health checks). It stays redacted until a request is made.
 */
const layerApiKey = (apiKey: Redacted.Redacted<string> | string) => {
  const key = typeof apiKey === "string" ? Redacted.make(apiKey) : apiKey
  return HttpApiMiddleware.layerClient(
    ApiKeyAuth,
    ({ next, request }) => next(HttpClientRequest.setHeader(request, API_KEY_HEADER, Redacted.value(key)))
  )
}

const make = (
  options: GatewayControlClientOptions
): Effect.Effect<GatewayControlClientShape, never, HttpClient.HttpClient> =>
  Effect.map(
    Effect.provide(HttpApiClient.make(GatewayApi, { baseUrl: options.baseUrl }), layerApiKey(options.apiKey)),
    ({ promptRendering, ...groups }) => ({ ...groups, prompts: { ...groups.prompts, ...promptRendering } })
  )

/**
 * The gateway-control client as an Effect service.
 *
 * - `GatewayControlClient.make({ baseUrl, apiKey })` builds a client;
 * - `GatewayControlClient.layer({ baseUrl, apiKey })` provides the service.
 *
 * Both need an `HttpClient`: provide `FetchHttpClient.layer` (from `effect/http`), which works on Node, Bun,
 * Deno and in browsers, or `NodeHttpClient.layerUndici` of `@effect/platform-node`.
 *
 * @example
 * ```ts
 * import { GatewayControlClient } from "@gateway-control/client"
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* GatewayControlClient
 *   const rendered = yield* client.prompts.render({ params: { promptId: "support-bot" }, payload: { variables: {} } })
 *   return rendered.data
 * }).pipe(
 *   Effect.catchTag("NotFoundError", (e) => Effect.succeed(e.error.message)),
 *   Effect.provide(GatewayControlClient.layer({ baseUrl: "http://localhost:8787", apiKey: process.env.KEY! })),
 *   Effect.provide(FetchHttpClient.layer)
 * )
 * ```
 */
export class GatewayControlClient extends Context.Service<GatewayControlClient, GatewayControlClientShape>()(
  "@gateway-control/client/GatewayControlClient"
) {
  /** A client for the API at `baseUrl`, calling with `apiKey`. */
  static readonly make = make

  /** The service, built once with `make`. */
  static readonly layer = (
    options: GatewayControlClientOptions
  ): Layer.Layer<GatewayControlClient, never, HttpClient.HttpClient> =>
    Layer.effect(GatewayControlClient, make(options))
}
