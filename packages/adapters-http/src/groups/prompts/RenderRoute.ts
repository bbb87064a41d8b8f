/**
 * `POST /v1/prompts/{promptId}/render`, served straight on the router instead of through HttpApi's endpoint
 * pipeline. It is the service's hot path: measured on one core, HttpApi's per-endpoint decoding, security
 * middleware and encoding cost more than the render itself (see README "Performance"). The route keeps the
 * contract the API definition documents (`PromptRenderGroup` in Api.ts beside it): the same admission as every
 * other endpoint (Admission.ts: key, rate limit, refusal records), the same envelope for every failure, the
 * same input rules and body limits (the edge checks the declared length before this runs).
 */
import { jsonProblem, type Principal, Prompts, type Rendered } from "@gateway-control/domain"
import { Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { type AdmittedEndpoint, makeAdmission, presentedApiKey } from "../../Admission.ts"
import { domainErrorResponse, errorResponse, isDomainError, withSnapshotAge } from "../../ApiErrors.ts"
import { readBodyText } from "../../internal/bodyText.ts"
import { encodedHeaderList } from "../../internal/headerList.ts"

export const RENDER_PATH = "/v1/prompts/:promptId/render"

const notAnObject = errorResponse(
  400,
  "invalid_request",
  "The request body must be a JSON object: variables (object, required) and any request field at the root."
)
const notJson = errorResponse(400, "invalid_json", "The request body is not valid JSON.")

/** The body as a JSON object held to the input rules (InputRules.ts), or the envelope answering why not. */
const parseBody = (text: string): Record<string, unknown> | HttpServerResponse.HttpServerResponse => {
  if (text.length === 0) return notAnObject
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return notJson
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return notAnObject
  const refused = jsonProblem(body)
  return refused === undefined ? body as Record<string, unknown> : domainErrorResponse(refused)
}

/**
 * The missing variables' names come from the template, so any character: each is percent-encoded, and the list
 * bounded (headerList.ts), with how many more there were. Deprecated fields are the service's own field names.
 */
const respond = (rendered: Rendered) => {
  let headers: Record<string, string> | undefined
  if (rendered.missingVariables.length > 0) {
    const { omitted, value } = encodedHeaderList(rendered.missingVariables)
    headers = {}
    if (value.length > 0) headers["x-service-missing-variables"] = value
    if (omitted > 0) headers["x-service-missing-variables-omitted"] = String(omitted)
  }
  if (rendered.deprecatedFields.length > 0) {
    headers = { ...headers, "x-service-deprecated-fields": rendered.deprecatedFields.join(",") }
  }
  const response = HttpServerResponse.jsonUnsafe({ success: true, data: rendered.data }, { headers })
  return rendered.snapshotAgeMs === undefined ? response : withSnapshotAge(response, rendered.snapshotAgeMs)
}

/**
 * The render endpoint as the audit log names it (`auditedEndpoints.ts`). Only a known key's 401 is recorded:
 * a stranger's flood of renders would otherwise write to the store at its own rate.
 */
const RENDER_ENDPOINT: AdmittedEndpoint = {
  group: { identifier: "promptRendering" },
  endpoint: { identifier: "render", method: "POST" },
  unauthenticatedRefusals: "knownKeysOnly"
}

export const layerRenderRoute = (options: { readonly maxBodyBytes: number }) =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    const admit = (yield* makeAdmission).endpointAdmission(RENDER_ENDPOINT)
    const prompts = yield* Prompts
    // Plain combinators rather than a generator: this runs on every render.
    const render = (request: HttpServerRequest.HttpServerRequest, principal: Principal) =>
      Effect.flatMap(readBodyText(request, options.maxBodyBytes), (text) => {
        if (typeof text !== "string") return Effect.succeed(text)
        const body = parseBody(text)
        if (HttpServerResponse.isHttpServerResponse(body)) return Effect.succeed(body)
        return Effect.flatMap(
          HttpRouter.params,
          (params) => Effect.map(prompts.render(principal, params.promptId ?? "", body), respond)
        )
      })
    const handler = (request: HttpServerRequest.HttpServerRequest) =>
      admit(
        presentedApiKey(request.headers),
        // Refusals of the render itself are answered here, so a limited key's carry its limit's headers too.
        (principal) =>
          Effect.catchIf(
            render(request, principal),
            isDomainError,
            (error) => Effect.succeed(domainErrorResponse(error))
          )
      )
    yield* router.add("POST", RENDER_PATH, handler)
  }))
