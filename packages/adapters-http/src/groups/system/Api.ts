import { ReadinessStatus } from "@gateway-control/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ServiceUnavailable } from "../../ApiErrors.ts"

export const HealthStatus = Schema.Struct({ status: Schema.Literal("ok") })

export class SystemGroup extends HttpApiGroup.make("system", { topLevel: true }).add(
  HttpApiEndpoint.get("healthz", "/healthz", { success: HealthStatus }).annotate(
    OpenApi.Description,
    "Liveness: the process answers."
  ),
  HttpApiEndpoint.get("readyz", "/readyz", { success: ReadinessStatus, error: ServiceUnavailable }).annotate(
    OpenApi.Description,
    "Readiness: `ok` while the store answers; `degraded` (200, with the reason and since when) while it does not, " +
      "as cached keys and renders still answer from their snapshot and everything else answers 503 " +
      "`store_unavailable` with `Retry-After`; 503 `service_unavailable` once the service is shutting down."
  )
) {}
