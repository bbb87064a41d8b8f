/**
 * The registry API's listing on `effect/sql`: servers joined with their integrations, keyset-paged on
 * (workspace_id, slug) by code point (`COLLATE "C"`, as the memory store compares), which the
 * `mcp_servers_directory` index serves in that order.
 */
import type { DirectoryEntry, DirectoryQuery, McpIntegration, McpServer, StoreError } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { likePattern } from "./queries.ts"
import { Jsonb } from "./rows.ts"
import { read } from "./statements.ts"

export const directoryOn = (
  sql: SqlClient.SqlClient,
  IntegrationRow: Schema.Decoder<McpIntegration>,
  ServerRow: Schema.Decoder<McpServer>
) => {
  const Row = Schema.Struct({ integration: Jsonb(IntegrationRow) })
  const decode = (row: unknown) =>
    Effect.all({
      server: Schema.decodeUnknownEffect(ServerRow)(row),
      integration: Effect.map(Schema.decodeUnknownEffect(Row)(row), (r) => r.integration)
    })

  return (query: DirectoryQuery): Effect.Effect<ReadonlyArray<DirectoryEntry>, StoreError> => {
    const clauses = [
      sql`s.organisation_id = ${query.organisationId}`,
      // The same rule as `usableBy`: the workspace's own integration, or an organisation's open to it.
      sql`(i.workspace_id = s.workspace_id OR (i.workspace_id IS NULL AND (i.global_workspace_access
            OR i.workspace_ids @> jsonb_build_array(s.workspace_id))))`
    ]
    if (query.workspaceId !== null) clauses.push(sql`s.workspace_id = ${query.workspaceId}`)
    if (!query.includeArchived) clauses.push(sql`i.status <> 'archived'`)
    if (query.after !== null) {
      clauses.push(
        sql`(s.workspace_id COLLATE "C", s.slug COLLATE "C") > (${query.after.workspaceId}, ${query.after.slug})`
      )
    }
    if (query.search !== null) {
      const pattern = likePattern(query.search)
      clauses.push(sql`(s.slug ILIKE ${pattern} OR s.name ILIKE ${pattern})`)
    }
    if (query.updatedSince !== null) {
      clauses.push(
        sql`GREATEST(s.created_at, i.last_updated_at, i.status_changed_at) > ${query.updatedSince}::timestamptz`
      )
    }
    return read(Effect.flatMap(
      sql`SELECT s.*, to_jsonb(i) AS integration
            FROM mcp_servers s JOIN mcp_integrations i ON i.id = s.mcp_integration_id
           WHERE ${sql.and(clauses)}
           ORDER BY s.workspace_id COLLATE "C", s.slug COLLATE "C" LIMIT ${query.limit}`,
      (rows) => Effect.forEach(rows, decode)
    ))
  }
}
