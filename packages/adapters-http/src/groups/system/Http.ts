import { Readiness } from "@gateway-control/domain"
import { Cause, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { serviceUnavailable, storeUnavailableMessage } from "../../ApiErrors.ts"
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
          Effect.catchCause((cause) =>
            Effect.fail(
              cause.reasons.some((reason) => Cause.isFailReason(reason) && reason.error._tag === "ShuttingDown")
                ? serviceUnavailable("The service is shutting down.")
                : storeUnavailableMessage("The store does not answer.")
            )
          )
        )
    }))
)
