import { Audit, CurrentPrincipal, hasMore } from "@gateway-control/domain"
import { DateTime, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../Api.ts"
import { fromDomain } from "../ApiErrors.ts"
import { pageOf } from "../internal/listing.ts"

export const AuditLogsHandlers = HttpApiBuilder.group(
  GatewayApi,
  "auditLogs",
  Effect.fnUntraced(function*(handlers) {
    const audit = yield* Audit
    return handlers.handleAll({
      list: ({ query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const request = pageOf(query)
          const page = yield* audit.list(principal, {
            // One canonical form (`2025-01-31T10:00:00.000Z`), which every store compares alike.
            startTime: query.start_time === undefined ? undefined : DateTime.formatIso(query.start_time),
            endTime: query.end_time === undefined ? undefined : DateTime.formatIso(query.end_time),
            workspaceId: query.workspace_id,
            userId: query.user_id,
            action: query.action,
            resourceType: query.resource_type,
            responseStatusCode: query.response_status_code
          }, request)
          return { object: "list" as const, records: page.items, total: page.total, has_more: hasMore(page, request) }
        }).pipe(Effect.mapError(fromDomain))
    })
  })
)
