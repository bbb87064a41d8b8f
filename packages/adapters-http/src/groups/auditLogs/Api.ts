import { AuditRecord } from "@gateway-control/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { InstantQuery } from "../../InputRules.ts"
import { PagingQuery, v1Group } from "../Common.ts"

export const AuditLogQuery = {
  start_time: Schema.optionalKey(InstantQuery),
  end_time: Schema.optionalKey(InstantQuery),
  workspace_id: Schema.optionalKey(Schema.String),
  user_id: Schema.optionalKey(Schema.String),
  action: Schema.optionalKey(Schema.String),
  resource_type: Schema.optionalKey(Schema.String),
  response_status_code: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 599 }))),
  workload_subject: Schema.optionalKey(
    Schema.String.annotate({ description: "Records of calls by workloads with this sub (token exchange)." })
  ),
  user_email: Schema.optionalKey(
    Schema.String.annotate({ description: "Records of calls made in sessions of the person with this email." })
  ),
  ...PagingQuery
}

export const AuditLogPage = Schema.Struct({
  object: Schema.Literal("list"),
  records: Schema.Array(AuditRecord),
  total: Schema.Int,
  has_more: Schema.Boolean
})

export class AuditLogsGroup extends v1Group(
  HttpApiGroup.make("auditLogs")
    .add(
      HttpApiEndpoint.get("list", "/audit-logs", { query: AuditLogQuery, success: AuditLogPage, error: CommonErrors })
        .annotate(
          OpenApi.Description,
          "Audit records of the organisation, newest first (admin key with audit_logs.list)."
        )
    )
) {}
