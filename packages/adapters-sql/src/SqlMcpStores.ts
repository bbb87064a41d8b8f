/**
 * The MCP registry on `effect/sql`. Lists are paged by the database (LIMIT/OFFSET over an index on
 * organisation/workspace, status, created_at and id).
 */
import {
  type IntegrationQuery,
  McpIntegration,
  McpIntegrationStore,
  McpServer,
  McpServerStore,
  McpUserAccess,
  McpUserAccessDefault
} from "@gateway-control/domain"
import { Context, Effect, Option, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as SqlSchema from "effect/sql/SqlSchema"
import { directoryOn } from "./internal/directory.ts"
import { likePattern, queriesOn } from "./internal/queries.ts"
import { Int, Jsonb, Timestamp, timestamps, toJson } from "./internal/rows.ts"
import { countOf, read, write } from "./internal/statements.ts"

const IntegrationRow = McpIntegration.mapFields((f) => ({
  ...f,
  ...timestamps,
  status_changed_at: Timestamp,
  consecutive_failures: Int,
  configurations: Jsonb(f.configurations),
  workspace_ids: Jsonb(f.workspace_ids),
  secret_mappings: Jsonb(f.secret_mappings)
})).pipe(Schema.decodeTo(McpIntegration))

const ServerRow = McpServer.mapFields((f) => ({ ...f, created_at: Timestamp })).pipe(Schema.decodeTo(McpServer))

const UserAccessRow = McpUserAccess.mapFields((f) => ({ ...f, ...timestamps })).pipe(Schema.decodeTo(McpUserAccess))
const AccessDefaultRow = Schema.Struct({ default_user_access: McpUserAccessDefault })

/**
 * Integrations in use (`active`: every status but archived) or archived. The "in use" indexes are partial on
 * exactly `status <> 'archived'`, so the condition must be written so.
 */
const lifecycleOn = (sql: SqlClient.SqlClient) => (status: IntegrationQuery["status"]) =>
  status === "archived" ? sql`status = 'archived'` : sql`status <> 'archived'`

export const makeMcpStores = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { byId, bySlug } = queriesOn(sql)
  const lifecycle = lifecycleOn(sql)

  // The page and the total are two queries: the page walks the (organisation, status, created_at, id) index
  // and stops at LIMIT; a window count over the same query would have to read every matching row first.
  // The total comes from `counted` when given (a maintained count), else from counting the matching rows.
  const pagedList = <A>(
    Result: Schema.Decoder<A>,
    table: string,
    where: ReturnType<typeof sql.and>,
    limit: number,
    offset: number,
    counted?: Effect.Effect<ReadonlyArray<unknown>, SqlError>
  ) =>
    Effect.all({
      items: read(
        SqlSchema.findAll({
          Request: Schema.Void,
          Result,
          execute: () =>
            sql`SELECT * FROM ${sql(table)} WHERE ${where} ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset}`
        })(undefined)
      ),
      total: countOf(counted ?? sql`SELECT count(*) AS n FROM ${sql(table)} WHERE ${where}`)
    })

  /**
   * An organisation's integrations by status and level, from the counts the 0006 trigger keeps: counting
   * 100,000 rows took longer than reading the first page (see README "Performance"). Visibility and search
   * filters still count rows; they are bounded by one workspace's integrations or by the match.
   */
  const maintainedCount = (query: IntegrationQuery) =>
    sql`SELECT COALESCE(sum(n), 0) AS n FROM mcp_integration_counts
             WHERE organisation_id = ${query.organisationId} AND ${lifecycle(query.status)}
             ${
      query.level === "all"
        ? sql``
        : sql`AND organisation_level = ${query.level === "organisation"}`
    }`

  const integrations = McpIntegrationStore.of({
    insert: (i) =>
      write(sql`INSERT INTO mcp_integrations (id, organisation_id, name, slug, owner_id, status, url, description,
                  workspace_id, configurations, auth_type, transport, global_workspace_access, workspace_ids,
                  secret_mappings, new_capabilities_enabled, status_message, status_changed_at,
                  consecutive_failures, created_at, last_updated_at)
                VALUES (${i.id}, ${i.organisation_id}, ${i.name}, ${i.slug}, ${i.owner_id}, ${i.status}, ${i.url},
                  ${i.description}, ${i.workspace_id}, ${toJson(i.configurations)}::jsonb, ${i.auth_type},
                  ${i.transport}, ${i.global_workspace_access}, ${toJson(i.workspace_ids)}::jsonb,
                  ${toJson(i.secret_mappings)}::jsonb, ${i.new_capabilities_enabled}, ${i.status_message},
                  ${i.status_changed_at}, ${i.consecutive_failures}, ${i.created_at}, ${i.last_updated_at})`),
    // The definition only: status and health are `setStatus`'s, so an edit cannot undo a health check.
    update: (i) =>
      read(Effect.asVoid(sql`UPDATE mcp_integrations SET name = ${i.name}, url = ${i.url},
                  description = ${i.description}, configurations = ${toJson(i.configurations)}::jsonb,
                  auth_type = ${i.auth_type}, transport = ${i.transport},
                  global_workspace_access = ${i.global_workspace_access},
                  workspace_ids = ${toJson(i.workspace_ids)}::jsonb,
                  secret_mappings = ${toJson(i.secret_mappings)}::jsonb,
                  new_capabilities_enabled = ${i.new_capabilities_enabled}, last_updated_at = ${i.last_updated_at}
                WHERE id = ${i.id}`)),
    setStatus: (id, change) =>
      read(Effect.map(
        sql`UPDATE mcp_integrations SET status = ${change.status}, status_message = ${change.status_message},
              status_changed_at = ${change.status_changed_at}, consecutive_failures = ${change.consecutive_failures}
            WHERE id = ${id} AND status <> 'archived' RETURNING id`,
        (rows) => rows.length > 0
      )),
    // The ids again, as a list: joined to the record set alone, the planner scanned the whole table.
    setStatuses: (changes) =>
      changes.length === 0 ? Effect.succeed(new Set<string>()) : read(Effect.map(
        sql`UPDATE mcp_integrations m
            SET status = c.status, status_message = c.status_message, status_changed_at = c.status_changed_at,
                consecutive_failures = c.consecutive_failures
            FROM jsonb_to_recordset(${toJson(changes.map(({ change, id }) => ({ id, ...change })))}::jsonb)
              AS c (id text, status text, status_message text, status_changed_at timestamptz, consecutive_failures int)
            WHERE m.id = c.id AND m.id IN ${sql.in(changes.map(({ id }) => id))} AND m.status <> 'archived'
            RETURNING m.id`,
        (rows) => new Set(rows.map((row) => String(row.id)))
      )),
    listInUse: (afterId, limit) =>
      read(
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: IntegrationRow,
          execute: () =>
            sql`SELECT * FROM mcp_integrations WHERE status <> 'archived'
                ${afterId === null ? sql`` : sql`AND id > ${afterId}`} ORDER BY id LIMIT ${limit}`
        })(undefined)
      ),
    get: byId("mcp_integrations", IntegrationRow),
    findBySlug: bySlug("mcp_integrations", "organisation_id", IntegrationRow),
    list: (query, page) => {
      const clauses = [sql`organisation_id = ${query.organisationId}`, lifecycle(query.status)]
      if (query.level === "workspace") clauses.push(sql`workspace_id IS NOT NULL`)
      if (query.level === "organisation") clauses.push(sql`workspace_id IS NULL`)
      if (query.usableBy !== null) {
        clauses.push(sql`(workspace_id = ${query.usableBy} OR (workspace_id IS NULL AND (global_workspace_access
          OR workspace_ids @> jsonb_build_array(${query.usableBy}::text))))`)
      }
      if (query.search !== null) {
        const pattern = likePattern(query.search)
        clauses.push(sql`(name ILIKE ${pattern} OR slug ILIKE ${pattern})`)
      }
      return pagedList(
        IntegrationRow,
        "mcp_integrations",
        sql.and(clauses),
        page.limit,
        page.offset,
        query.usableBy === null && query.search === null ? maintainedCount(query) : undefined
      )
    }
  })

  const accessDefault = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: AccessDefaultRow,
    execute: (serverId) => sql`SELECT default_user_access FROM mcp_server_access WHERE server_id = ${serverId}`
  })
  const accessOverrides = SqlSchema.findAll({
    Request: Schema.String,
    Result: UserAccessRow,
    execute: (serverId) => sql`SELECT * FROM mcp_server_user_access WHERE server_id = ${serverId} ORDER BY user_id`
  })

  const servers = McpServerStore.of({
    insert: (s) =>
      write(sql`INSERT INTO mcp_servers (id, organisation_id, workspace_id, slug, name, status, description,
                  mcp_integration_id, created_at)
                VALUES (${s.id}, ${s.organisation_id}, ${s.workspace_id}, ${s.slug}, ${s.name}, ${s.status},
                  ${s.description}, ${s.mcp_integration_id}, ${s.created_at})`),
    update: (s) =>
      read(Effect.map(
        sql`UPDATE mcp_servers SET name = ${s.name}, description = ${s.description} WHERE id = ${s.id} RETURNING id`,
        (rows) => rows.length > 0
      )),
    delete: (id) =>
      read(Effect.map(sql`DELETE FROM mcp_servers WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0)),
    get: byId("mcp_servers", ServerRow),
    findBySlug: bySlug("mcp_servers", "workspace_id", ServerRow),
    list: (organisationId, workspaceId, search, page, ids) => {
      const clauses = [sql`organisation_id = ${organisationId}`]
      if (workspaceId !== null) clauses.push(sql`workspace_id = ${workspaceId}`)
      if (ids !== undefined) clauses.push(ids.length === 0 ? sql`FALSE` : sql`id IN ${sql.in(ids)}`)
      if (search !== null) {
        const pattern = likePattern(search)
        clauses.push(sql`(name ILIKE ${pattern} OR slug ILIKE ${pattern})`)
      }
      return pagedList(ServerRow, "mcp_servers", sql.and(clauses), page.limit, page.offset)
    },
    directory: directoryOn(sql, IntegrationRow, ServerRow),
    userAccess: (serverId) =>
      read(Effect.gen(function*() {
        const stored = yield* accessDefault(serverId)
        return {
          default_user_access: Option.match(stored, {
            onNone: () => "allow" as const,
            onSome: (row) => row.default_user_access
          }),
          users: yield* accessOverrides(serverId)
        }
      })),
    setUserAccess: (serverId, defaultAccess, overrides, at) =>
      read(sql.withTransaction(Effect.gen(function*() {
        if (defaultAccess !== null) {
          yield* sql`INSERT INTO mcp_server_access (server_id, default_user_access, last_updated_at)
                     VALUES (${serverId}, ${defaultAccess}, ${at})
                     ON CONFLICT (server_id) DO UPDATE SET default_user_access = EXCLUDED.default_user_access,
                       last_updated_at = EXCLUDED.last_updated_at`
        }
        for (const o of overrides) {
          yield* sql`INSERT INTO mcp_server_user_access (server_id, user_id, enabled, created_at, last_updated_at)
                     VALUES (${serverId}, ${o.user_id}, ${o.enabled}, ${o.created_at}, ${o.last_updated_at})
                     ON CONFLICT (server_id, user_id) DO UPDATE SET enabled = EXCLUDED.enabled,
                       last_updated_at = EXCLUDED.last_updated_at`
        }
      })))
  })

  return Context.make(McpIntegrationStore, integrations).pipe(Context.add(McpServerStore, servers))
})
