import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ServiceUnavailable } from "../../ApiErrors.ts"

export const HealthStatus = Schema.Struct({ status: Schema.Literal("ok") })

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
