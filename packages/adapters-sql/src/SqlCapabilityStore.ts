/**
 * MCP capabilities on `effect/sql`. Type and name are `COLLATE "C"`, so the primary key's index gives the
 * order lists promise (by code point, as the memory store compares). Sets of rows travel as one JSON
 * parameter, unpacked by `jsonb_to_recordset`.
 */
import { McpCapability, McpCapabilityStore } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { likePattern } from "./internal/queries.ts"
import { Jsonb, Timestamp, toJson } from "./internal/rows.ts"
import { pageOf, read } from "./internal/statements.ts"

const CapabilityRow = McpCapability.mapFields((f) => ({
  ...f,
  input_schema: Jsonb(f.input_schema),
  synced_at: Timestamp
})).pipe(Schema.decodeTo(McpCapability))

export const makeCapabilityStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const all = SqlSchema.findAll({
    Request: Schema.String,
    Result: CapabilityRow,
    execute: (integrationId) =>
      sql`SELECT * FROM mcp_capabilities WHERE integration_id = ${integrationId} ORDER BY type, name`
  })

  return McpCapabilityStore.of({
    all: (integrationId) => read(all(integrationId)),
    replace: (integrationId, capabilities) => {
      const remove = sql`DELETE FROM mcp_capabilities WHERE integration_id = ${integrationId}`
      const insert = sql`INSERT INTO mcp_capabilities
            (integration_id, type, name, description, enabled, input_schema, synced_at)
          SELECT ${integrationId}, c.type, c.name, c.description, c.enabled, c.input_schema, c.synced_at
            FROM jsonb_to_recordset(${toJson(capabilities)}::jsonb) AS c(type text, name text, description text,
              enabled boolean, input_schema jsonb, synced_at timestamptz)`
      return read(Effect.asVoid(capabilities.length === 0 ? remove : Effect.andThen(remove, insert)))
    },
    list: (query, page) => {
      const clauses = [sql`integration_id = ${query.integrationId}`]
      if (query.type !== null) clauses.push(sql`type = ${query.type}`)
      if (query.search !== null) {
        const pattern = likePattern(query.search)
        clauses.push(sql`(name ILIKE ${pattern} OR description ILIKE ${pattern})`)
      }
      const where = sql.and(clauses)
      return pageOf(
        CapabilityRow,
        sql`SELECT *, count(*) OVER () AS total_count FROM mcp_capabilities WHERE ${where}
              ORDER BY type, name LIMIT ${page.limit} OFFSET ${page.offset}`,
        page,
        sql`SELECT count(*) AS n FROM mcp_capabilities WHERE ${where}`
      )
    },
    setEnabled: (integrationId, toggles) =>
      read(Effect.asVoid(sql`UPDATE mcp_capabilities c SET enabled = t.enabled
          FROM jsonb_to_recordset(${toJson(toggles)}::jsonb) AS t(type text, name text, enabled boolean)
         WHERE c.integration_id = ${integrationId} AND c.type = t.type AND c.name = t.name`))
  })
})
