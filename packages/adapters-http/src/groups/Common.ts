/**
 * Schemas every group's contract shares: paging, the list envelopes, the answers to creations and
 * deletions. Entity schemas come from the domain; these only wrap them.
 */
import { Schema } from "effect"
import type { HttpRouter } from "effect/http"
import { HttpApiEndpoint, type HttpApiGroup } from "effect/http-api"
import { CommonErrors } from "../ApiErrors.ts"
import { RequestInputRules } from "../InputRules.ts"
import { ApiKeyAuth } from "../Security.ts"

/** `page_size` (1–1000) and `current_page` (from 0), shared by list endpoints. */
export const PagingQuery = {
  page_size: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })).annotate({
      description: "Items per page, 1 to 1000; default 100."
    })
  ),
  current_page: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Page number from 0; default 0." })
  )
}

/** The query of lists scoped to a workspace: the caller's own unless an admin key names one. */
export const WorkspaceListQuery = { workspace_id: Schema.optionalKey(Schema.String), ...PagingQuery }

/** A free-text description a request may carry. */
export { Description } from "@gateway-control/domain"

export const listOf = <S extends Schema.Top>(item: S) =>
  Schema.Struct({
    object: Schema.Literal("list"),
    data: Schema.Array(item),
    total: Schema.Int,
    has_more: Schema.Boolean
  })

/** The list envelope of the MCP registry, which has no `object`. */
export const pagedList = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ data: Schema.Array(item), total: Schema.Int, has_more: Schema.Boolean })

/** The answer of an endpoint that creates: 201. */
export const created = <S extends Schema.Top>(schema: S) => schema.annotate({ httpApiStatus: 201 })

/** The answer to a deletion: which resource, and that it is gone. */
export const deletedOf = <const O extends string>(object: O) =>
  Schema.Struct({ id: Schema.String, object: Schema.Literal(object), deleted: Schema.Literal(true) })

/**
 * A `/v1` group: `RequestInputRules` declared and then `ApiKeyAuth`. HttpApi runs the middleware declared last
 * first, so the key is checked before the body is read and held to the input rules (InputRules.ts).
 */
export const v1Group = <Id extends string, Endpoints extends HttpApiEndpoint.Constraint>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints>
) => group.middleware(RequestInputRules).middleware(ApiKeyAuth).prefix("/v1")

/** The path parameter of a resource addressed by id. */
export const ById = { id: Schema.String }

/**
 * Where a slug in the path is looked up: the named workspace, else the key's own (the policy's `slugScope`); an
 * id finds the resource wherever it is.
 */
export const SlugQuery = {
  workspace_id: Schema.optionalKey(
    Schema.String.annotate({ description: "The workspace a slug in the path names a resource of; default the key's." })
  )
}

/**
 * The options of an endpoint on one workspace resource that `params` names by id or slug: with the slug's
 * workspace in the query, and the common errors. A `PUT` adds its `payload`.
 */
export const byRef = <const Params extends Schema.Struct.Fields, S extends Schema.Top>(params: Params, success: S) => ({
  params,
  query: SlugQuery,
  success,
  error: CommonErrors
})

/** `POST path`: creates from `payload`, answers 201 with `success`. */
export const createEndpoint = <
  const Name extends string,
  const Path extends HttpRouter.PathInput,
  P extends Schema.Top,
  S extends Schema.Top
>(name: Name, path: Path, payload: P, success: S) =>
  HttpApiEndpoint.post(name, path, { payload, success: created(success), error: CommonErrors })

/** `PUT path`: changes the resource `params` name from `payload`, answers 200 with `success`. */
export const updateEndpoint = <
  const Name extends string,
  const Path extends HttpRouter.PathInput,
  const Params extends Schema.Struct.Fields,
  P extends Schema.Top,
  S extends Schema.Top
>(name: Name, path: Path, params: Params, payload: P, success: S) =>
  HttpApiEndpoint.put(name, path, { params, payload, success, error: CommonErrors })

/** `GET path` of a workspace-scoped list: one page of `item`s in the list envelope. */
export const listEndpoint = <const Name extends string, const Path extends HttpRouter.PathInput, S extends Schema.Top>(
  name: Name,
  path: Path,
  item: S
) => HttpApiEndpoint.get(name, path, { query: WorkspaceListQuery, success: listOf(item), error: CommonErrors })

/** `GET path/:id`: one resource. */
export const getByIdEndpoint = <
  const Name extends string,
  const Path extends HttpRouter.PathInput,
  S extends Schema.Top
>(name: Name, path: Path, success: S) => HttpApiEndpoint.get(name, path, { params: ById, success, error: CommonErrors })

/** `DELETE path/:id`: deletes, revokes or archives one resource, answering with `success`. */
export const deleteByIdEndpoint = <
  const Name extends string,
  const Path extends HttpRouter.PathInput,
  S extends Schema.Top
>(name: Name, path: Path, success: S) =>
  HttpApiEndpoint.delete(name, path, { params: ById, success, error: CommonErrors })
