import { DEFAULT_DIRECTORY_LIMIT, McpDirectory } from "@gateway-control/domain"
import { DateTime } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

/** The name as clients send it, URL-encoded (`%2F` for the slash); a malformed escape stays as it came. */
const decodedName = (name: string) => {
  try {
    return decodeURIComponent(name)
  } catch {
    return name
  }
}

export const McpDirectoryHandlers = HttpApiBuilder.group(
  GatewayApi,
  "mcpDirectory",
  withService(McpDirectory, (handlers, directory) =>
    handlers.handleAll({
      listServers: ({ query }) =>
        asCaller((principal) =>
          directory.listServers(principal, {
            workspaceId: query.workspace_id,
            limit: query.limit ?? DEFAULT_DIRECTORY_LIMIT,
            cursor: query.cursor,
            search: query.search,
            updatedSince: query.updated_since === undefined ? undefined : DateTime.formatIso(query.updated_since),
            includeDeleted: query.include_deleted === "true"
          })
        ),
      latestVersion: ({ params, query }) =>
        asCaller((principal) =>
          directory.latestVersion(principal, decodedName(params.serverName), query.include_deleted === "true")
        )
    }))
)
