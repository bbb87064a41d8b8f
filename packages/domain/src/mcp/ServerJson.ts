/**
 * MCP servers as the official MCP registry publishes them (`modelcontextprotocol/registry`): a `server.json`
 * document (schema 2025-12-11) with registry metadata under `_meta`, listed with a cursor. The registry API
 * (McpDirectory.ts) answers in this format so that MCP clients read the gateway like any registry.
 */
import { Schema } from "effect"
import { type DirectoryEntry, entryUpdatedAt, McpIntegrationStatus } from "./Mcp.ts"

export const SERVER_SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

/** The official registry's rule: reverse-DNS namespace, one slash, a name; 3 to 200 characters. */
export const ServerName = Schema.String.check(
  Schema.isPattern(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/),
  Schema.isMinLength(3),
  Schema.isMaxLength(200)
)

const ShortText = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(100))

export const RemoteTransport = Schema.Struct({
  type: Schema.Literals(["streamable-http", "sse"]),
  url: Schema.String.check(Schema.isPattern(/^https?:\/\/\S+$/))
})

/** `server.json`: what the official schema requires (`name`, `description`, `version`) and the remotes. */
export const ServerJson = Schema.Struct({
  $schema: Schema.String,
  name: ServerName,
  title: ShortText,
  description: ShortText,
  version: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)),
  remotes: Schema.Array(RemoteTransport)
})
export type ServerJson = typeof ServerJson.Type

export const OFFICIAL_META = "io.modelcontextprotocol.registry/official"
/** The gateway's own metadata, beside the official registry's (whose keys are closed). */
export const GATEWAY_META = "io.gateway-control/mcp"

export const ServerResponse = Schema.Struct({
  server: ServerJson,
  _meta: Schema.Struct({
    [OFFICIAL_META]: Schema.Struct({
      /** The lifecycle the official registry knows: an archived integration's servers read `deleted`. */
      status: Schema.Literals(["active", "deprecated", "deleted"]),
      statusMessage: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(500))),
      statusChangedAt: Schema.String,
      publishedAt: Schema.String,
      updatedAt: Schema.String,
      isLatest: Schema.Boolean
    }),
    [GATEWAY_META]: Schema.Struct({
      /** The integration's status, health included. */
      status: McpIntegrationStatus,
      statusMessage: Schema.NullOr(Schema.String),
      serverId: Schema.String,
      integrationId: Schema.String,
      workspaceId: Schema.String
    })
  })
})
export type ServerResponse = typeof ServerResponse.Type

export const ServerList = Schema.Struct({
  servers: Schema.Array(ServerResponse),
  metadata: Schema.Struct({
    /** Absent on the last page. */
    nextCursor: Schema.optionalKey(Schema.String),
    count: Schema.Int
  })
})
export type ServerList = typeof ServerList.Type

/** Every server has one version: its changes show in `updatedAt`. */
export const SERVER_VERSION = "1.0.0"

const NAMESPACE_PREFIX = "io.gateway-control."

/** A server's registry name: its workspace's namespace, then its slug. Ids and slugs fit the pattern. */
export const serverNameOf = (workspaceId: string, slug: string) => `${NAMESPACE_PREFIX}${workspaceId}/${slug}`

/** The workspace and slug a registry name stands for; undefined for a name this registry never gives. */
export const parseServerName = (name: string): { readonly workspaceId: string; readonly slug: string } | undefined => {
  const slash = name.indexOf("/")
  if (!name.startsWith(NAMESPACE_PREFIX) || slash === -1) return undefined
  const workspaceId = name.slice(NAMESPACE_PREFIX.length, slash)
  const slug = name.slice(slash + 1)
  return workspaceId.length > 0 && slug.length > 0 ? { workspaceId, slug } : undefined
}

/** At most `max` characters, cut with an ellipsis. */
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

/** The registry document of a server. Pure. */
export const serverResponseOf = (entry: DirectoryEntry): ServerResponse => {
  const { integration, server } = entry
  const description = server.description?.trim() || integration.description?.trim() || server.name
  const official = {
    status: integration.status === "archived" ? "deleted" as const : "active" as const,
    statusChangedAt: integration.status_changed_at,
    publishedAt: server.created_at,
    updatedAt: entryUpdatedAt(entry),
    isLatest: true
  }
  return {
    server: {
      $schema: SERVER_SCHEMA_URL,
      name: serverNameOf(server.workspace_id, server.slug),
      title: clip(server.name.trim(), 100),
      description: clip(description, 100),
      version: SERVER_VERSION,
      // The parsed URL's own serialisation: what was connected to, with nothing the schema's pattern refuses.
      remotes: [{
        type: integration.transport === "sse" ? "sse" : "streamable-http",
        url: new URL(integration.url).href
      }]
    },
    _meta: {
      [OFFICIAL_META]: integration.status_message === null
        ? official
        : { ...official, statusMessage: clip(integration.status_message, 500) },
      [GATEWAY_META]: {
        status: integration.status,
        statusMessage: integration.status_message,
        serverId: server.id,
        integrationId: integration.id,
        workspaceId: server.workspace_id
      }
    }
  }
}
