/**
 * The hash-chained audit log on `effect/sql`. Appends are serialised across processes by an advisory lock
 * held to the end of the appending transaction, so positions run 1, 2, 3… without gaps and each record
 * links to the one before it.
 */
import { AuditLogStore, AuditRecord, GENESIS_HASH } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { Int, Timestamp, toJson } from "./internal/rows.ts"
import { pageOf, read } from "./internal/statements.ts"

/**
 * The body is read as `request_body::text`: drivers hand a jsonb value back parsed or not, and a body may
 * itself be a JSON string, so only its text is unambiguous.
 */
const AuditRow = Schema.Struct({
  ...AuditRecord.fields,
  seq: Int,
  timestamp: Timestamp,
  response_status_code: Int,
  request_body: Schema.NullOr(Schema.fromJsonString(Schema.Unknown))
}).pipe(Schema.decodeTo(AuditRecord))

/** Every column, the body as its JSON text. */
const auditColumns = `seq, id, timestamp, organisation_id, workspace_id, user_id, user_type, api_key_id, action,
  resource_type, resource_id, method, uri, request_id, request_body::text AS request_body, response_status_code,
  client_ip, sanitized, hash_algorithm, previous_hash, hash`

const ChainEnd = Schema.Struct({ seq: Int, hash: Schema.String })

/** An arbitrary constant: the advisory lock that serialises audit appends across processes. */
const AUDIT_CHAIN_LOCK = 7_321_004_212

export const makeAuditLogStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(auditColumns)

  const chainEnd = SqlSchema.findOneOption({
    Request: Schema.Void,
    Result: ChainEnd,
    execute: () => sql`SELECT seq, hash FROM audit_logs ORDER BY seq DESC LIMIT 1`
  })
  const scan = SqlSchema.findAll({
    Request: Schema.Struct({ afterSeq: Schema.Int, limit: Schema.Int }),
    Result: AuditRow,
    execute: ({ afterSeq, limit }) =>
      sql`SELECT ${columns} FROM audit_logs WHERE seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`
  })

  return AuditLogStore.of({
    append: (build) =>
      read(Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK})`
        const last = yield* chainEnd(undefined)
        const r = last._tag === "None" ? build(GENESIS_HASH, 1) : build(last.value.hash, last.value.seq + 1)
        yield* sql`INSERT INTO audit_logs (seq, id, timestamp, organisation_id, workspace_id, user_id, user_type,
                     api_key_id, action, resource_type, resource_id, method, uri, request_id, request_body,
                     response_status_code, client_ip, sanitized, hash_algorithm, previous_hash, hash)
                   VALUES (${r.seq}, ${r.id}, ${r.timestamp}, ${r.organisation_id}, ${r.workspace_id}, ${r.user_id},
                     ${r.user_type}, ${r.api_key_id}, ${r.action}, ${r.resource_type}, ${r.resource_id}, ${r.method},
                     ${r.uri}, ${r.request_id}, ${toJson(r.request_body)}::jsonb, ${r.response_status_code},
                     ${r.client_ip}, ${r.sanitized}, ${r.hash_algorithm}, ${r.previous_hash}, ${r.hash})`
        return r
      })),
    list: (organisationId, filters, request) => {
      const clauses = [
        organisationId === null ? sql`organisation_id IS NULL` : sql`organisation_id = ${organisationId}`
      ]
      if (filters.startTime !== undefined) clauses.push(sql`timestamp >= ${filters.startTime}`)
      if (filters.endTime !== undefined) clauses.push(sql`timestamp <= ${filters.endTime}`)
      if (filters.workspaceId !== undefined) clauses.push(sql`workspace_id = ${filters.workspaceId}`)
      if (filters.userId !== undefined) clauses.push(sql`user_id = ${filters.userId}`)
      if (filters.action !== undefined) clauses.push(sql`action = ${filters.action}`)
      if (filters.resourceType !== undefined) clauses.push(sql`resource_type = ${filters.resourceType}`)
      if (filters.responseStatusCode !== undefined) {
        clauses.push(sql`response_status_code = ${filters.responseStatusCode}`)
      }
      const where = sql.and(clauses)
      return pageOf(
        AuditRow,
        sql`SELECT ${columns}, count(*) OVER () AS total_count FROM audit_logs WHERE ${where}
            ORDER BY seq DESC LIMIT ${request.limit} OFFSET ${request.offset}`,
        request,
        sql`SELECT count(*) AS n FROM audit_logs WHERE ${where}`
      )
    },
    scan: (afterSeq, limit) => read(scan({ afterSeq, limit }))
  })
})
