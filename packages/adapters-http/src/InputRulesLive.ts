/**
 * The domain's input rules (`InputRules.ts` there: no NUL or lone surrogate in text, JSON at most
 * `MAX_JSON_DEPTH` deep) applied to every request, in the places that see every value once:
 *
 * - path parameters, query values and JSON bodies of HttpApi endpoints, by `RequestInputRulesLive`, the HttpApi
 *   middleware every `/v1` group declares (InputRules.ts) inside its key check, so an unauthenticated request is refused
 *   before its body is read, and a refused mutating call is audited like one that does not decode;
 * - path parameters and query values of the other routes, by a route middleware around them;
 * - the lean render route's body, checked by the route itself right after parsing (groups/prompts/RenderRoute.ts);
 * - `x-service-config`, the header that carries JSON, where it is parsed (groups/fineTuning/ProviderHeaders.ts).
 */
import { jsonProblem, textProblem } from "@gateway-control/domain"
import { Context, Effect, Layer, type Types } from "effect"
import { HttpRouter, HttpServerRequest, type HttpServerResponse } from "effect/http"
import { BadRequest, badRequest, errorResponse } from "./ApiErrors.ts"
import { RequestInputRules } from "./InputRules.ts"

/** The first refused path parameter or query value, as a 400, or undefined when all are accepted. */
const pathOrQueryProblem = (
  params: Readonly<Record<string, string | undefined>>,
  query: Readonly<Record<string, string | ReadonlyArray<string>>>
): BadRequest | undefined => {
  for (const name in params) {
    const value = params[name]
    const problem = value === undefined ? undefined : textProblem(value)
    if (problem !== undefined) return badRequest(`${name} (path): ${problem}.`, name)
  }
  for (const name in query) {
    const nameProblem = textProblem(name)
    if (nameProblem !== undefined) return badRequest(`A query parameter name ${nameProblem}.`)
    const value = query[name]!
    for (const item of typeof value === "string" ? [value] : value) {
      const problem = textProblem(item)
      if (problem !== undefined) return badRequest(`${name} (query): ${problem}.`, name)
    }
  }
  return undefined
}

const routeInputProblem = (context: Context.Context<never>) =>
  pathOrQueryProblem(
    Context.getUnsafe(context, HttpRouter.RouteContext).params,
    Context.getUnsafe(context, HttpServerRequest.ParsedSearchParams)
  )

/**
 * The 400s the input rules give, told apart from every other 400 so that the audit log records them as
 * refusals of the request itself (internal/auditRefusals.ts), as it records requests that do not decode.
 */
const inputRefusals = new WeakSet<BadRequest>()
const refusedInput = (refusal: BadRequest) => {
  inputRefusals.add(refusal)
  return Effect.fail(refusal)
}
export const isInputRefusal = (failure: unknown): boolean => failure instanceof BadRequest && inputRefusals.has(failure)

/**
 * The rules on the path and query of the routes outside HttpApi (render, the OpenAPI document, the docs),
 * before their handlers. HttpApi endpoints apply them in `RequestInputRules`, inside their key check.
 */
export const PathAndQueryRules = HttpRouter.middleware((httpEffect) =>
  Effect.withFiber((fiber) => {
    const refused = routeInputProblem(fiber.context)
    return refused === undefined
      ? httpEffect
      : Effect.succeed(errorResponse(400, refused.error.code, refused.error.message, refused.error.param))
  })
)

/**
 * HttpApi parses the body and decodes it in one step, with no place in between; so this parses the body
 * too (the text itself is read once: the platform caches it). That costs a second parse on the
 * administrative endpoints only: rendering, the hot path, checks the value it parses itself.
 */
export const RequestInputRulesLive = Layer.succeed(RequestInputRules)((httpEffect, { endpoint }) =>
  Effect.withFiber((fiber) => {
    const refused = routeInputProblem(fiber.context)
    if (refused !== undefined) return refusedInput(refused)
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
      return problem === undefined ? httpEffect : refusedInput(badRequest(problem.message, problem.param))
    }
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    // A body that cannot be read fails again, the same way, when HttpApi reads it.
    return Effect.flatMap(Effect.orElseSucceed(request.text, () => ""), checked)
  })
)

/** Installs `PathAndQueryRules` around the routes of the layer it is provided to. */
export const layerPathAndQueryRules = PathAndQueryRules.layer
