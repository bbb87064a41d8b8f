/**
 * `/scim/v2`: the SCIM 2.0 service provider (RFC 7644), on the router beside HttpApi. It speaks SCIM rather
 * than this API's dialect: a SCIM token as `Authorization: Bearer`, `application/scim+json` bodies and answers,
 * and refusals in SCIM's error format (`{schemas: [Error], status, scimType?, detail}`). A store that cannot
 * answer is the envelope's 503 like everywhere else. This adapter maps requests and errors; the domain's `Scim`
 * does the rest.
 */
import {
  type Principal,
  Scim,
  SCIM_ERROR_SCHEMA,
  SCIM_LIST_SCHEMA,
  ScimGroups,
  type ScimPage,
  type ScimResource,
  ScimTokens,
  type ScimType
} from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { domainErrorResponse } from "../../ApiErrors.ts"
import { readBodyText } from "../../internal/bodyText.ts"
import { resourceTypes, schemas, serviceProviderConfig } from "./ScimDiscovery.ts"
import { SCIM_MEDIA_TYPE, SCIM_PATH } from "./ScimPaths.ts"

const HEADERS = { "content-type": SCIM_MEDIA_TYPE }

const scimJson = (body: unknown, status = 200) =>
  HttpServerResponse.jsonUnsafe(body, { status, headers: HEADERS }).pipe(
    HttpServerResponse.setHeader("content-type", SCIM_MEDIA_TYPE)
  )

/** RFC 7644 §3.12. */
export const scimError = (status: number, detail: string, scimType?: ScimType) =>
  scimJson(
    { schemas: [SCIM_ERROR_SCHEMA], status: String(status), ...(scimType === undefined ? {} : { scimType }), detail },
    status
  )

type Failure = { readonly _tag: string; readonly message: string } & Partial<{ scimType: ScimType; detail: string }>

const failureResponse = (error: Failure) => {
  switch (error._tag) {
    case "ScimInvalid":
      return scimError(400, error.detail ?? error.message, error.scimType)
    case "InvalidRequest":
      return scimError(400, error.message, "invalidValue")
    case "Unauthenticated":
      return scimError(401, error.message)
    case "Forbidden":
      return scimError(403, error.message)
    case "NotFound":
      return scimError(404, error.message)
    case "Conflict":
      return scimError(409, error.message, "uniqueness")
    default:
      return undefined
  }
}

const bearerOf = (request: HttpServerRequest.HttpServerRequest) => {
  const header = request.headers.authorization ?? ""
  const match = /^Bearer\s+(.+)$/i.exec(header.trim())
  return Redacted.make(match?.[1]?.trim() ?? "", { label: "scim-token" })
}

const listResponse = (page: ScimPage) => ({
  schemas: [SCIM_LIST_SCHEMA],
  totalResults: page.totalResults,
  startIndex: page.startIndex,
  itemsPerPage: page.resources.length,
  Resources: page.resources
})

/** A query integer, or the default when absent or not a number (RFC 7644 §3.4.2.4 is lenient). */
const intParam = (params: URLSearchParams, name: string, fallback: number) => {
  const value = Number.parseInt(params.get(name) ?? "", 10)
  return Number.isFinite(value) ? value : fallback
}

const MAX_COUNT = 1000

const searchOf = (request: HttpServerRequest.HttpServerRequest) =>
  new URL(request.url, "http://scim.local").searchParams

/** A list request's filter and page (RFC 7644 §3.4.2). */
const queryOf = (params: URLSearchParams) => {
  const filter = params.get("filter") ?? undefined
  return {
    filter: filter === undefined || filter.trim() === "" ? undefined : filter,
    startIndex: intParam(params, "startIndex", 1),
    count: Math.min(MAX_COUNT, intParam(params, "count", 100))
  }
}

/**
 * The resource without the attributes `excludedAttributes` names (RFC 7644 §3.9): identity providers ask for
 * groups without their members. `id` and `schemas` are always returned.
 */
const shown = (resource: ScimResource, params: URLSearchParams): ScimResource => {
  const excluded = new Set(
    (params.get("excludedAttributes") ?? "").split(",").map((name) => name.trim().toLowerCase())
  )
  return Object.fromEntries(
    Object.entries(resource).filter(([name]) =>
      name === "id" || name === "schemas" || !excluded.has(name.toLowerCase())
    )
  )
}

export const layerScimRoute = (options: { readonly maxBodyBytes: number }) =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    const scim = yield* Scim
    const groups = yield* ScimGroups
    const tokens = yield* ScimTokens

    /** Runs `body` as the SCIM token's principal, answering its result or its failure in SCIM's terms. */
    const handle = <E extends Failure>(
      run: (
        principal: Principal,
        request: HttpServerRequest.HttpServerRequest
      ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, HttpRouter.RouteContext>
    ) =>
    (request: HttpServerRequest.HttpServerRequest) =>
      Effect.flatMap(tokens.authenticate(bearerOf(request)), (principal) => run(principal, request)).pipe(
        Effect.catch((error: Failure) => {
          const mapped = failureResponse(error)
          return Effect.succeed(
            mapped ?? domainErrorResponse(error as Parameters<typeof domainErrorResponse>[0])
          )
        })
      )

    /** The JSON body, or the SCIM error to answer. */
    const bodyOf = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.map(
        readBodyText(request, options.maxBodyBytes),
        (text): { readonly body: unknown } | HttpServerResponse.HttpServerResponse => {
          if (typeof text !== "string") return text
          try {
            return { body: JSON.parse(text) }
          } catch {
            return scimError(400, "The request body is not JSON.", "invalidSyntax")
          }
        }
      )

    const withBody = (
      use: (
        principal: Principal,
        body: unknown,
        id: string
      ) => Effect.Effect<HttpServerResponse.HttpServerResponse, Failure>
    ) =>
      handle((principal, request) =>
        Effect.gen(function*() {
          const read = yield* Effect.orDie(bodyOf(request))
          if (HttpServerResponse.isHttpServerResponse(read)) return read
          const params = yield* HttpRouter.params
          return yield* use(principal, read.body, params.id ?? "")
        })
      )

    const idOf = Effect.map(HttpRouter.params, (params) => params.id ?? "")

    const user = (resource: ScimResource, status = 200) => scimJson(resource, status)

    yield* router.add(
      "GET",
      `${SCIM_PATH}/ServiceProviderConfig`,
      handle(() => Effect.succeed(scimJson(serviceProviderConfig)))
    )
    yield* router.add("GET", `${SCIM_PATH}/ResourceTypes`, handle(() => Effect.succeed(scimJson(resourceTypes))))
    yield* router.add("GET", `${SCIM_PATH}/Schemas`, handle(() => Effect.succeed(scimJson(schemas))))

    yield* router.add(
      "GET",
      `${SCIM_PATH}/Users`,
      handle((principal, request) => {
        const params = searchOf(request)
        return Effect.map(scim.listUsers(principal, queryOf(params)), (page) => scimJson(listResponse(page)))
      })
    )
    yield* router.add(
      "POST",
      `${SCIM_PATH}/Users`,
      withBody((principal, body) => Effect.map(scim.createUser(principal, body), (created) => user(created, 201)))
    )
    yield* router.add(
      "GET",
      `${SCIM_PATH}/Users/:id`,
      handle((principal) =>
        Effect.flatMap(idOf, (id) => Effect.map(scim.getUser(principal, id), (found) => user(found)))
      )
    )
    yield* router.add(
      "PUT",
      `${SCIM_PATH}/Users/:id`,
      withBody((principal, body, id) => Effect.map(scim.replaceUser(principal, id, body), (changed) => user(changed)))
    )
    yield* router.add(
      "PATCH",
      `${SCIM_PATH}/Users/:id`,
      withBody((principal, body, id) => Effect.map(scim.patchUser(principal, id, body), (changed) => user(changed)))
    )
    yield* router.add(
      "GET",
      `${SCIM_PATH}/Groups`,
      handle((principal, request) => {
        const params = searchOf(request)
        return Effect.map(
          groups.listGroups(principal, queryOf(params)),
          (page) => scimJson(listResponse({ ...page, resources: page.resources.map((group) => shown(group, params)) }))
        )
      })
    )
    yield* router.add(
      "POST",
      `${SCIM_PATH}/Groups`,
      withBody((principal, body) =>
        Effect.map(groups.createGroup(principal, body), (created) => scimJson(created, 201))
      )
    )
    yield* router.add(
      "GET",
      `${SCIM_PATH}/Groups/:id`,
      handle((principal, request) =>
        Effect.flatMap(
          idOf,
          (id) => Effect.map(groups.getGroup(principal, id), (found) => scimJson(shown(found, searchOf(request))))
        )
      )
    )
    yield* router.add(
      "PUT",
      `${SCIM_PATH}/Groups/:id`,
      withBody((principal, body, id) =>
        Effect.map(groups.replaceGroup(principal, id, body), (changed) => scimJson(changed))
      )
    )
    yield* router.add(
      "PATCH",
      `${SCIM_PATH}/Groups/:id`,
      withBody((principal, body, id) =>
        Effect.map(groups.patchGroup(principal, id, body), (changed) => scimJson(changed))
      )
    )
    yield* router.add(
      "DELETE",
      `${SCIM_PATH}/Groups/:id`,
      handle((principal) =>
        Effect.flatMap(
          idOf,
          (id) => Effect.as(groups.deleteGroup(principal, id), HttpServerResponse.empty({ status: 204 }))
        )
      )
    )
    yield* router.add(
      "DELETE",
      `${SCIM_PATH}/Users/:id`,
      handle((principal) =>
        Effect.flatMap(
          idOf,
          (id) => Effect.as(scim.deleteUser(principal, id), HttpServerResponse.empty({ status: 204 }))
        )
      )
    )
  }))
