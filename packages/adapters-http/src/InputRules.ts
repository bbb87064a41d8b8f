/**
 * The domain's input rules (`InputRules.ts` there: no NUL or lone surrogate in text, JSON at most
 * `MAX_JSON_DEPTH` deep) applied to every request, in the places that see every value once:
 *
 * - path parameters and query values, as the router decoded them, by a route middleware around every route;
 * - JSON bodies of HttpApi endpoints, by `JsonBodyRules`, an HttpApi middleware every `/v1` group declares
 *   inside its key check, so an unauthenticated request is refused before its body is read;
 * - the lean render route's body, checked by the route itself right after parsing (handlers/Render.ts);
 * - `x-service-config`, the header that carries JSON, where the domain parses it (VirtualKeys.ts).
 *
 * And the schema of instants in queries, which every store must be able to compare.
 */
import { jsonProblem, textProblem } from "@gateway-control/domain"
import { Context, Effect, Layer, Schema, type Types } from "effect"
import { HttpRouter, HttpServerRequest, type HttpServerResponse } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import { BadRequest, badRequest, errorResponse } from "./ApiErrors.ts"

/** The 400 answering the first refused path parameter or query value, or undefined when all are accepted. */
const pathOrQueryProblem = (
  params: Readonly<Record<string, string | undefined>>,
  query: Readonly<Record<string, string | ReadonlyArray<string>>>
) => {
  for (const name in params) {
    const value = params[name]
    const problem = value === undefined ? undefined : textProblem(value)
    if (problem !== undefined) return errorResponse(400, "invalid_request", `${name} (path): ${problem}.`, name)
  }
  for (const name in query) {
    const nameProblem = textProblem(name)
    if (nameProblem !== undefined) {
      return errorResponse(400, "invalid_request", `A query parameter name ${nameProblem}.`)
    }
    const value = query[name]!
    for (const item of typeof value === "string" ? [value] : value) {
      const problem = textProblem(item)
      if (problem !== undefined) return errorResponse(400, "invalid_request", `${name} (query): ${problem}.`, name)
    }
  }
  return undefined
}

/** Answers 400 for a path parameter or query value the rules refuse, before the handler (or its key check). */
export const PathAndQueryRules = HttpRouter.middleware((httpEffect) =>
  Effect.withFiber((fiber) => {
    const { params } = Context.getUnsafe(fiber.context, HttpRouter.RouteContext)
    const refused = pathOrQueryProblem(params, Context.getUnsafe(fiber.context, HttpServerRequest.ParsedSearchParams))
    return refused === undefined ? httpEffect : Effect.succeed(refused)
  })
)

/** The input rules on the JSON body of an HttpApi endpoint, before HttpApi decodes it. */
export class JsonBodyRules extends HttpApiMiddleware.Service<JsonBodyRules>()(
  "@gateway-control/http/JsonBodyRules",
  { error: BadRequest }
) {}

/**
 * HttpApi parses the body and decodes it in one step, with no place in between; so this parses the body
 * too (the text itself is read once: the platform caches it). That costs a second parse on the
 * administrative endpoints only: rendering, the hot path, checks the value it parses itself.
 */
export const JsonBodyRulesLive = Layer.succeed(JsonBodyRules)((httpEffect, { endpoint }) => {
  if (endpoint.payload.size === 0) return httpEffect
  const checked = (
    text: string
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled | BadRequest> => {
    if (text === "") return httpEffect
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return httpEffect // HttpApi answers invalid_json.
    }
    const problem = jsonProblem(body)
    return problem === undefined ? httpEffect : Effect.fail(badRequest(problem.message, problem.param))
  }
  return Effect.flatMap(
    Effect.service(HttpServerRequest.HttpServerRequest),
    // A body that cannot be read fails again, the same way, when HttpApi reads it.
    (request) => Effect.flatMap(Effect.orElseSucceed(request.text, () => ""), checked)
  )
})

const EARLIEST = Date.parse("0001-01-01T00:00:00Z")
const LATEST = Date.parse("9999-12-31T23:59:59.999Z")

/**
 * An instant in a query, decoded to UTC: ISO 8601 (`2025-01-31`, `2025-01-31T12:00:00+02:00`; without a zone
 * it reads as UTC). Years 1 to 9999 only: PostgreSQL has no year 0 and the memory store compares ISO text.
 */
export const InstantQuery = Schema.DateTimeUtcFromString.check(
  Schema.makeFilter((instant) => instant.epochMilliseconds >= EARLIEST && instant.epochMilliseconds <= LATEST, {
    expected: "a date-time between the years 1 and 9999"
  })
)

/** Installs `PathAndQueryRules` around the routes of the layer it is provided to. */
export const layerPathAndQueryRules = PathAndQueryRules.layer
