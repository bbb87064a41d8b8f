/**
 * The MCP registry: integrations (an MCP server's address and how to reach it, at organisation or
 * workspace level) and servers (a workspace's instance of an integration).
 */
import { Context, type Effect, type Option, Schema } from "effect"
import { maskKey } from "../credentials/ApiKey.ts"
import { JsonObject } from "../prompts/Prompt.ts"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { Name, slugOf } from "../shared/Rules.ts"

export const McpAuthType = Schema.Literals(["oauth_auto", "headers", "none"])
export const McpTransport = Schema.Literals(["http", "sse"])
export const McpIntegrationStatus = Schema.Literals(["active", "archived"])

export const SecretMapping = Schema.Struct({
  target_field: Schema.String,
  secret_reference_id: Schema.String,
  secret_key: Schema.String,
  value_format: Schema.Literals(["json", "string"])
})
export type SecretMapping = typeof SecretMapping.Type

/** Where an integration's configurations keep the HTTP headers sent to the MCP server: credentials, write-only. */
export const MCP_HEADERS_FIELD = "headers"

/** The fields of an integration's body that are secret: header values and the secret mappings' references. */
export const MCP_INTEGRATION_SECRET_FIELDS: ReadonlyArray<ReadonlyArray<string>> = [
  ["configurations", MCP_HEADERS_FIELD, "*"],
  ["secret_mappings", "*", "secret_reference_id"],
  ["secret_mappings", "*", "secret_key"]
]

const isPlainObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const maskHeaderValue = (value: unknown): string => (typeof value === "string" ? maskKey(value) : "****")

/** Configurations as reads show them: every header value masked like a virtual key (`Bear****1234`). */
export const maskedConfigurations = (
  configurations: Readonly<Record<string, unknown>>
): Readonly<Record<string, unknown>> => {
  const headers = configurations[MCP_HEADERS_FIELD]
  if (!isPlainObject(headers)) return configurations
  return {
    ...configurations,
    [MCP_HEADERS_FIELD]: Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, maskHeaderValue(value)])
    )
  }
}

/**
 * New configurations for an update. A header sent back exactly as a read showed it (masked) keeps its stored
 * value, so a client can write back what it read without destroying the credential it could not see.
 */
export const mergeConfigurations = (
  current: Readonly<Record<string, unknown>>,
  incoming: Readonly<Record<string, unknown>>
): Record<string, unknown> => {
  const currentHeaders = current[MCP_HEADERS_FIELD]
  const incomingHeaders = incoming[MCP_HEADERS_FIELD]
  if (!isPlainObject(currentHeaders) || !isPlainObject(incomingHeaders)) return { ...incoming }
  const headers = Object.entries(incomingHeaders).map(([name, value]) => {
    const stored = Object.hasOwn(currentHeaders, name) ? currentHeaders[name] : undefined
    return [name, stored !== undefined && value === maskHeaderValue(stored) ? stored : value] as const
  })
  return { ...incoming, [MCP_HEADERS_FIELD]: Object.fromEntries(headers) }
}

/** Slug lengths of the MCP contract: an integration's is unique in the organisation, a server's in its workspace. */
export const MCP_INTEGRATION_SLUG = { minimum: 1, maximum: 255 } as const
export const MCP_SERVER_SLUG = { minimum: 3, maximum: 50 } as const

export class McpIntegration extends Schema.Class<McpIntegration>("McpIntegration")({
  id: Schema.String,
  organisation_id: Schema.String,
  name: Name,
  slug: slugOf(MCP_INTEGRATION_SLUG),
  owner_id: Schema.NullOr(Schema.String),
  status: McpIntegrationStatus,
  url: Schema.String,
  description: Schema.NullOr(Schema.String),
  /** null for an organisation-level integration. */
  workspace_id: Schema.NullOr(Schema.String),
  configurations: JsonObject,
  auth_type: McpAuthType,
  transport: McpTransport,
  /** Organisation level only: every workspace may use it, or only `workspace_ids`. */
  global_workspace_access: Schema.Boolean,
  workspace_ids: Schema.Array(Schema.String),
  secret_mappings: Schema.Array(SecretMapping),
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

export class McpServer extends Schema.Class<McpServer>("McpServer")({
  id: Schema.String,
  organisation_id: Schema.String,
  workspace_id: Schema.String,
  slug: slugOf(MCP_SERVER_SLUG),
  name: Name,
  status: Schema.Literal("active"),
  description: Schema.NullOr(Schema.String),
  mcp_integration_id: Schema.String,
  created_at: Schema.String
}) {}

/** Which integrations a list asks for. */
export interface IntegrationQuery {
  readonly organisationId: string
  /** Only what this workspace can use: its own, and organisation-level ones open to it. */
  readonly usableBy: string | null
  readonly level: "workspace" | "organisation" | "all"
  readonly status: "active" | "archived"
  /** Case-insensitive match on name or slug. */
  readonly search: string | null
}

/** May this workspace use the integration? */
export const usableBy = (integration: McpIntegration, workspaceId: string): boolean =>
  integration.workspace_id === null
    ? integration.global_workspace_access || integration.workspace_ids.includes(workspaceId)
    : integration.workspace_id === workspaceId

export class McpIntegrationStore extends Context.Service<
  McpIntegrationStore,
  {
    /** `Conflict` when the slug is taken in the organisation. */
    readonly insert: (integration: McpIntegration) => Effect.Effect<void, Conflict>
    readonly update: (integration: McpIntegration) => Effect.Effect<void>
    readonly get: (id: string) => Effect.Effect<Option.Option<McpIntegration>>
    readonly findBySlug: (organisationId: string, slug: string) => Effect.Effect<Option.Option<McpIntegration>>
    /** Ordered by created_at, then id; paged by the store. */
    readonly list: (query: IntegrationQuery, page: PageRequest) => Effect.Effect<Page<McpIntegration>>
  }
>()("@gateway-control/McpIntegrationStore") {}

export class McpServerStore extends Context.Service<
  McpServerStore,
  {
    /** `Conflict` when the slug is taken in the workspace. */
    readonly insert: (server: McpServer) => Effect.Effect<void, Conflict>
    readonly get: (id: string) => Effect.Effect<Option.Option<McpServer>>
    readonly findBySlug: (workspaceId: string, slug: string) => Effect.Effect<Option.Option<McpServer>>
    readonly list: (
      organisationId: string,
      workspaceId: string | null,
      search: string | null,
      page: PageRequest
    ) => Effect.Effect<Page<McpServer>>
  }
>()("@gateway-control/McpServerStore") {}
