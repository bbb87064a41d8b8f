/**
 * Serving the API under a path prefix (`basePath`, e.g. `/gateway`) in someone else's server: the routes
 * see the path with the prefix taken off; a request outside the prefix is not the API's.
 */
import { Effect, type Types } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, type HttpServerResponse } from "effect/http"

/** The URL below `basePath` (`/gateway/v1/x?y` → `/v1/x?y`, `/gateway` → `/`), or undefined outside it. */
export const underBasePath = (url: string, basePath: string): string | undefined => {
  if (!url.startsWith(basePath)) return undefined
  const rest = url.slice(basePath.length)
  if (rest.length === 0) return "/"
  if (rest.startsWith("/")) return rest
  return rest.startsWith("?") ? `/${rest}` : undefined
}

/**
 * Routes the request on its path below `basePath`; outside it, no route matches. Installed after the edge,
 * so it runs inside it: the edge's request id, log line, audit `uri` and 404 envelope see the path the
 * client sent, prefix included.
 */
export const layerMount = (basePath: string) =>
  HttpRouter.middleware((httpEffect) =>
    Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (
      request
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, HttpServerError.HttpServerError | Types.unhandled> => {
      const url = underBasePath(request.url, basePath)
      return url === undefined
        ? Effect.fail(new HttpServerError.HttpServerError({ reason: new HttpServerError.RouteNotFound({ request }) }))
        : Effect.provideService(httpEffect, HttpServerRequest.HttpServerRequest, request.modify({ url }))
    }), { global: true })
