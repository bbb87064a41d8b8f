/**
 * The registry API for MCP clients: a workspace's usable MCP servers as the official MCP registry lists them
 * (ServerJson.ts), keyset-paged by an opaque cursor, so that a walk of the pages lists each server that exists
 * throughout exactly once, whatever is created meanwhile.
 */
import { Context, Effect, Layer, Option, Result, Schema } from "effect"
import { Base64Url } from "effect/encoding"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { ensureAllowed, ensureListScope, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { McpIntegrationStore, McpServerStore, usableBy } from "./Mcp.ts"
import { ensurePersonMayUseServer, serversUsableByPerson } from "./McpUserAccess.ts"
import { parseServerName, type ServerList, type ServerResponse, serverResponseOf } from "./ServerJson.ts"

export interface DirectoryRequest {
  /** An admin key may name a workspace; without one it lists its whole organisation. */
  readonly workspaceId: string | undefined
  readonly limit: number
  readonly cursor: string | undefined
  readonly search: string | undefined
  /** ISO 8601; servers of archived integrations are then listed too, as `deleted`. */
  readonly updatedSince: string | undefined
  readonly includeDeleted: boolean
}

export const DEFAULT_DIRECTORY_LIMIT = 30
export const MAX_DIRECTORY_LIMIT = 100

/** The position after a server: its workspace and slug, as JSON in base64url, which clients do not read. */
const Position = Schema.fromJsonString(Schema.Tuple([Schema.String, Schema.String]))
const encodePosition = Schema.encodeSync(Position)
const decodePosition = Schema.decodeUnknownOption(Position)

const cursorOf = (workspaceId: string, slug: string) => Base64Url.encode(encodePosition([workspaceId, slug]))

const positionOf = (cursor: string) => {
  const text = Base64Url.decodeString(cursor)
  const position = Result.isSuccess(text) ? decodePosition(text.success) : Option.none()
  return Option.map(position, ([workspaceId, slug]) => ({ workspaceId, slug }))
}

export class McpDirectory extends Context.Service<
  McpDirectory,
  {
    readonly listServers: (
      principal: Principal,
      request: DirectoryRequest
    ) => Effect.Effect<ServerList, InvalidRequest | Forbidden | NotFound | StoreError>
    /** One server by its registry name: `io.gateway-control.<workspace id>/<slug>`. */
    readonly latestVersion: (
      principal: Principal,
      name: string,
      includeDeleted: boolean
    ) => Effect.Effect<ServerResponse, Forbidden | NotFound | StoreError>
  }
>()("@gateway-control/McpDirectory") {
  static readonly layer = Layer.effect(
    McpDirectory,
    Effect.gen(function*() {
      const servers = yield* McpServerStore
      const integrations = yield* McpIntegrationStore
      const workspaces = yield* WorkspaceStore

      const listServers = Effect.fn("McpDirectory.listServers")(
        function*(principal: Principal, request: DirectoryRequest) {
          const workspaceId = yield* ensureListScope(workspaces, principal, request.workspaceId, "mcp_servers.list")
          const after = request.cursor === undefined ? Option.none() : positionOf(request.cursor)
          if (request.cursor !== undefined && Option.isNone(after)) {
            return yield* InvalidRequest.of("cursor is not one this registry gave; start again without it.", "cursor")
          }
          // One more than asked for tells whether another page follows.
          const entries = yield* servers.directory({
            organisationId: principal.organisationId,
            workspaceId,
            after: Option.getOrNull(after),
            search: request.search?.trim() || null,
            updatedSince: request.updatedSince ?? null,
            // As the official registry does: a client syncing changes must learn of deletions.
            includeArchived: request.includeDeleted || request.updatedSince !== undefined,
            limit: request.limit + 1
          })
          const page = entries.slice(0, request.limit)
          const last = page[page.length - 1]
          // A person a server's user access denies does not see it; the cursor still moves past it.
          const usable = yield* serversUsableByPerson(servers, principal, page, (entry) => entry.server)
          return {
            servers: usable.map(serverResponseOf),
            metadata: entries.length > request.limit && last !== undefined
              ? { nextCursor: cursorOf(last.server.workspace_id, last.server.slug), count: usable.length }
              : { count: usable.length }
          } satisfies ServerList
        }
      )

      const latestVersion = Effect.fn("McpDirectory.latestVersion")(
        function*(principal: Principal, name: string, includeDeleted: boolean) {
          const parsed = parseServerName(name)
          const found = parsed === undefined
            ? Option.none()
            : yield* servers.findBySlug(parsed.workspaceId, parsed.slug)
          const server = yield* requireRow(found, "MCP server", name)
          yield* ensureAllowed(principal, "mcp_servers.list", Target.of(server), { type: "MCP server", id: name })
          yield* ensurePersonMayUseServer(servers, principal, server)
          const integration = yield* requireRow(
            Option.filter(
              yield* integrations.get(server.mcp_integration_id),
              (i) => usableBy(i, server.workspace_id) && (includeDeleted || i.status !== "archived")
            ),
            "MCP server",
            name
          )
          return serverResponseOf({ server, integration })
        }
      )

      return McpDirectory.of({ listServers, latestVersion })
    })
  )
}
