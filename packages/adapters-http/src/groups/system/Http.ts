import { Readiness } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { serviceUnavailable } from "../../ApiErrors.ts"
import { withService } from "../../internal/groupHandlers.ts"

const ok = { status: "ok" } as const

export const SystemHandlers = HttpApiBuilder.group(
  GatewayApi,
  "system",
  withService(Readiness, (handlers, readiness) =>
    handlers.handleAll({
      healthz: () => Effect.succeed(ok),
      readyz: () =>
        readiness.check.pipe(
          Effect.as(ok),
          Effect.catchCause(() => Effect.fail(serviceUnavailable("The store does not answer.")))
        )
    }))
)
