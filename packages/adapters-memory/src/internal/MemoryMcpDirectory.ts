/** The registry API's listing in memory: `McpServerStore.directory` over the server and integration tables. */
import {
  type DirectoryEntry,
  type DirectoryQuery,
  entryUpdatedAt,
  type McpIntegration,
  type McpServer,
  usableBy
} from "@gateway-control/domain"
import { Option } from "effect"
import { inScope, type Table } from "./Table.ts"

/** (workspace_id, slug) by code point: the order the SQL store gives with `COLLATE "C"`. */
const byPosition = (a: McpServer, b: McpServer) =>
  a.workspace_id !== b.workspace_id
    ? (a.workspace_id < b.workspace_id ? -1 : 1)
    : a.slug < b.slug
    ? -1
    : a.slug > b.slug
    ? 1
    : 0

const isAfter = (server: McpServer, after: NonNullable<DirectoryQuery["after"]>) =>
  server.workspace_id > after.workspaceId || (server.workspace_id === after.workspaceId && server.slug > after.slug)

export const directoryOf = (
  servers: Table<McpServer>,
  integrations: Table<McpIntegration>,
  query: DirectoryQuery
): ReadonlyArray<DirectoryEntry> => {
  const search = query.search?.toLowerCase() ?? null
  const entries: Array<DirectoryEntry> = []
  for (const server of servers.rows.values()) {
    if (!inScope(server, query.organisationId, query.workspaceId)) continue
    if (query.after !== null && !isAfter(server, query.after)) continue
    if (search !== null && !server.slug.toLowerCase().includes(search) && !server.name.toLowerCase().includes(search)) {
      continue
    }
    const integration = Option.getOrUndefined(integrations.get(server.mcp_integration_id))
    if (integration === undefined || !usableBy(integration, server.workspace_id)) continue
    if (!query.includeArchived && integration.status === "archived") continue
    const entry = { server, integration }
    if (query.updatedSince !== null && entryUpdatedAt(entry) <= query.updatedSince) continue
    entries.push(entry)
  }
  return entries.sort((a, b) => byPosition(a.server, b.server)).slice(0, query.limit)
}
