/**
 * The HTTP contract of gateway-control: groups, endpoints and their Schemas. The OpenAPI document is
 * generated from this definition.
 */
import { Workspace } from "@gateway-control/domain"
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors, ServiceUnavailable } from "./ApiErrors.ts"
import { ApiKeyAuth } from "./Security.ts"

export const HealthStatus = Schema.Struct({ status: Schema.Literal("ok") })

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

export const listOf = <S extends Schema.Top>(item: S) =>
  Schema.Struct({
    object: Schema.Literal("list"),
    data: Schema.Array(item),
    total: Schema.Int,
    has_more: Schema.Boolean
  })

export class SystemGroup extends HttpApiGroup.make("system", { topLevel: true }).add(
  HttpApiEndpoint.get("healthz", "/healthz", { success: HealthStatus }).annotate(
    OpenApi.Description,
    "Liveness: the process answers."
  ),
  HttpApiEndpoint.get("readyz", "/readyz", { success: HealthStatus, error: ServiceUnavailable }).annotate(
    OpenApi.Description,
    "Readiness: the store answers."
  )
) {}

export const CreateWorkspace = Schema.Struct({
  name: Schema.String,
  slug: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1000)))
})

export const CreatedWorkspace = Schema.Struct({
  id: Schema.String,
  slug: Schema.String,
  object: Schema.Literal("workspace")
}).annotate({ httpApiStatus: 201 })

export class WorkspacesGroup extends HttpApiGroup.make("workspaces")
  .add(
    HttpApiEndpoint.post("create", "/workspaces", {
      payload: CreateWorkspace,
      success: CreatedWorkspace,
      error: CommonErrors
    }),
    HttpApiEndpoint.get("list", "/workspaces", {
      query: PagingQuery,
      success: listOf(Workspace),
      error: CommonErrors
    }),
    HttpApiEndpoint.get("get", "/workspaces/:workspaceId", {
      params: { workspaceId: Schema.String },
      success: Workspace,
      error: CommonErrors
    })
  )
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}

export class GatewayApi extends HttpApi.make("gateway-control")
  .add(SystemGroup)
  .add(WorkspacesGroup)
  .annotateMerge(
    OpenApi.annotations({
      title: "gateway-control",
      version: "2.0.0",
      description:
        "Control plane of an LLM API gateway: prompt rendering, MCP registry, fine-tuning job listing and API-key administration."
    })
  )
{}
