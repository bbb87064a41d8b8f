import { AuditLogs } from "@gateway-control/domain"
import { DateTime, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

/** One canonical form (`2025-01-31T10:00:00.000Z`), which every store compares alike. */
const instant = (value: DateTime.Utc | undefined) => value === undefined ? undefined : DateTime.formatIso(value)

export const AuditLogsHandlers = HttpApiBuilder.group(
  GatewayApi,
  "auditLogs",
  withService(AuditLogs, (handlers, auditLogs) =>
    handlers.handleAll({
      list: ({ query }) =>
        pageAsCaller(query, (principal, request) =>
          auditLogs.list(principal, {
            startTime: instant(query.start_time),
            endTime: instant(query.end_time),
            workspaceId: query.workspace_id,
            userId: query.user_id,
            action: query.action,
            resourceType: query.resource_type,
            responseStatusCode: query.response_status_code,
            workloadSubject: query.workload_subject,
            userEmail: query.user_email
          }, request)).pipe(
            // This list names its items `records`.
            Effect.map(({ data, ...page }) => ({ ...page, records: data }))
          )
    }))
)
