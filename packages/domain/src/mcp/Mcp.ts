/**
 * The MCP registry: integrations (an MCP server's address and how to reach it, at organisation or
 * workspace level) and servers (a workspace's instance of an integration).
 */
import { Context, type Effect, type Option, Schema } from "effect"
import { ensureOpenToWorkspace, openToWorkspace, Target } from "../access/Policy.ts"
import { maskKey } from "../credentials/ApiKey.ts"
import { JsonObject } from "../prompts/Prompt.ts"
import { type Conflict, type Forbidden, InvalidRequest } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { Name, slugOf } from "../shared/Rules.ts"
import type { SecretBinding } from "../shared/StoredSecretBinding.ts"
import type { StoreError } from "../shared/StoreError.ts"

export const McpAuthType = Schema.Literals(["oauth_auto", "headers", "none"])
export const McpTransport = Schema.Literals(["http", "sse"])
/**
 * An integration's status: `active`, `unhealthy` after repeated failed health checks (McpHealth.ts), or
 * `archived`. Only archiving and the health checker change it.
 */
export const McpIntegrationStatus = Schema.Literals(["active", "unhealthy", "archived"])
export type McpIntegrationStatus = typeof McpIntegrationStatus.Type

/** What a list asks for: `active` is every integration in use (healthy or not), `archived` the others. */
export const McpIntegrationListStatus = Schema.Literals(["active", "archived"])

export const SecretMapping = Schema.Struct({
  target_field: Schema.String,
  secret_reference_id: Schema.String,
  secret_key: Schema.String,
  value_format: Schema.Literals(["json", "string"])
})
export type SecretMapping = typeof SecretMapping.Type

/** Where an integration's configurations keep the HTTP headers sent to the MCP server: credentials, write-only. */
export const MCP_HEADERS_FIELD = "headers"

/**
 * Portkey's spelling of `headers`: the same field. Input folds it into `headers` (`normalisedConfigurations`);
 * records stored before that still hold it, so reads mask it and calls send it like `headers`.
 */
export const MCP_CUSTOM_HEADERS_FIELD = "custom_headers"

/** The fields of an integration's body that are secret: header values and the secret mappings' references. */
export const MCP_INTEGRATION_SECRET_FIELDS: ReadonlyArray<ReadonlyArray<string>> = [
  ["configurations", MCP_HEADERS_FIELD, "*"],
  ["configurations", MCP_CUSTOM_HEADERS_FIELD, "*"],
  ["secret_mappings", "*", "secret_reference_id"],
  ["secret_mappings", "*", "secret_key"]
]

const isPlainObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const maskHeaderValue = (value: unknown): string => (typeof value === "string" ? maskKey(value) : "****")

const headerFields = [MCP_CUSTOM_HEADERS_FIELD, MCP_HEADERS_FIELD] as const

/**
 * The headers stored configurations hold, by name as given: `custom_headers` (only in records stored before it
 * became an alias), then `headers`, which wins on a name both hold. Pure.
 */
export const storedHeaders = (configurations: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> =>
  // fromEntries defines each name as an own field: a header named `__proto__` stays a header.
  Object.fromEntries(headerFields.flatMap((field) => {
    const headers = configurations[field]
    return isPlainObject(headers) ? Object.entries(headers) : []
  }))

/** Configurations as reads show them: every header value masked like a virtual key (`Bear****1234`). */
export const maskedConfigurations = (
  configurations: Readonly<Record<string, unknown>>
): Readonly<Record<string, unknown>> => {
  const masked = { ...configurations }
  for (const field of headerFields) {
    const headers = configurations[field]
    if (!isPlainObject(headers)) continue
    masked[field] = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, maskHeaderValue(value)]))
  }
  return masked
}

/**
 * Configurations as given (created or updated), with `custom_headers` folded into `headers`, so there is one
 * field of headers: masked on read, sent, and bound to the URL. A header both name (in any case) with two
 * values is refused, naming the `custom_headers` one. Pure.
 */
export const normalisedConfigurations = (
  configurations: Readonly<Record<string, unknown>>
): Record<string, unknown> | InvalidRequest => {
  const { [MCP_CUSTOM_HEADERS_FIELD]: custom, ...rest } = configurations
  if (custom === undefined) return { ...configurations }
  const param = `configurations.${MCP_CUSTOM_HEADERS_FIELD}`
  if (!isPlainObject(custom)) return InvalidRequest.of(`${param} must be an object of header values.`, param)
  const headers = rest[MCP_HEADERS_FIELD] ?? {}
  if (!isPlainObject(headers)) {
    return InvalidRequest.of(
      `configurations.${MCP_HEADERS_FIELD} must be an object of header values.`,
      `configurations.${MCP_HEADERS_FIELD}`
    )
  }
  const byName = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))
  for (const [name, value] of Object.entries(custom)) {
    const other = byName.get(name.toLowerCase())
    if (other !== undefined && other !== value) {
      return InvalidRequest.of(
        `The header '${name}' is given twice with different values, in headers and custom_headers (one field).`,
        `${param}.${name}`
      )
    }
  }
  // One entry per header name, whatever the case it was given in: `headers`' spelling wins.
  const merged = new Map(Object.entries(custom).map(([name, value]) => [name.toLowerCase(), [name, value]] as const))
  for (const [name, value] of Object.entries(headers)) merged.set(name.toLowerCase(), [name, value])
  return { ...rest, [MCP_HEADERS_FIELD]: Object.fromEntries(merged.values()) }
}

/**
 * New configurations for an update (already normalised). A header sent back exactly as a read showed it
 * (masked) keeps its stored value, so a client can write back what it read without destroying the credential it
 * could not see. `supplied` names the header fields the update gives in clear (StoredSecretBinding.ts).
 */
export const mergeConfigurations = (
  current: Readonly<Record<string, unknown>>,
  incoming: Readonly<Record<string, unknown>>
): { readonly configurations: Record<string, unknown>; readonly supplied: ReadonlyArray<string> } => {
  const currentHeaders = storedHeaders(current)
  const incomingHeaders = incoming[MCP_HEADERS_FIELD]
  if (!isPlainObject(incomingHeaders)) return { configurations: { ...incoming }, supplied: [] }
  const supplied: Array<string> = []
  const headers = Object.entries(incomingHeaders).map(([name, value]) => {
    const stored = Object.hasOwn(currentHeaders, name) ? currentHeaders[name] : undefined
    if (stored !== undefined && value === maskHeaderValue(stored)) return [name, stored] as const
    supplied.push(headerSecretField(name))
    return [name, value] as const
  })
  return { configurations: { ...incoming, [MCP_HEADERS_FIELD]: Object.fromEntries(headers) }, supplied }
}

/** The field a header's value is named by in the rule of stored secrets. */
const headerSecretField = (name: string) => `configurations.${MCP_HEADERS_FIELD}.${name}`

/** The field the secret mappings are named by in the rule of stored secrets: they are given, or kept, whole. */
export const SECRET_MAPPINGS_FIELD = "secret_mappings"

/**
 * An integration's stored secrets (StoredSecretBinding.ts): its header values and its secret mappings, bound to
 * its `url`. A mapping's secret lives outside the store, but the mapping that sends it to the URL is stored,
 * so it follows the same rule (and the secret also goes only to the hosts MCP_SECRETS_FILE lists for it).
 */
export const MCP_INTEGRATION_SECRETS: SecretBinding<McpIntegration> = {
  destinationField: "url",
  destination: (integration) => integration.url,
  secrets: (integration) =>
    new Map<string, unknown>([
      ...Object.entries(storedHeaders(integration.configurations)).map(([name, value]) =>
        [headerSecretField(name), value] as const
      ),
      ...(integration.secret_mappings.length === 0
        ? []
        : [[SECRET_MAPPINGS_FIELD, JSON.stringify(integration.secret_mappings)] as const])
    ])
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
  /** Whether capabilities a sync finds for the first time start enabled. */
  new_capabilities_enabled: Schema.Boolean,
  /** Why the status is what it is: the last failed check's error while unhealthy; null otherwise. */
  status_message: Schema.NullOr(Schema.String),
  status_changed_at: Schema.String,
  /**
   * Health checks failed in a row, until the integration is unhealthy and fails again the same way (then no
   * longer written); reset by the first success.
   */
  consecutive_failures: Schema.Int,
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/** An integration's status and health, which only archiving and the health checker write. */
export type StatusChange = Pick<
  McpIntegration,
  "status" | "status_message" | "status_changed_at" | "consecutive_failures"
>

export class McpServer extends Schema.Class<McpServer>("McpServer")({
  id: Schema.String,
  organisation_id: Schema.String,
  workspace_id: Schema.String,
  slug: slugOf(MCP_SERVER_SLUG),
  name: Name,
  /** Its integration's status, as reads show it (stored servers say `active`). */
  status: McpIntegrationStatus,
  description: Schema.NullOr(Schema.String),
  mcp_integration_id: Schema.String,
  created_at: Schema.String
}) {}

/** Whether a server's users may use it when they have no override of their own (Portkey's `default_user_access`). */
export const McpUserAccessDefault = Schema.Literals(["allow", "deny"])
export type McpUserAccessDefault = typeof McpUserAccessDefault.Type

/** One user's override of a server's default: whether that person may use the server. */
export class McpUserAccess extends Schema.Class<McpUserAccess>("McpUserAccess")({
  server_id: Schema.String,
  user_id: Schema.String,
  enabled: Schema.Boolean,
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/** Who may use a server: its default (`allow` until set) and the users' overrides. */
export interface ServerUserAccess {
  readonly default_user_access: McpUserAccessDefault
  readonly users: ReadonlyArray<McpUserAccess>
}

/** Which integrations a list asks for. */
export interface IntegrationQuery {
  readonly organisationId: string
  /** Only what this workspace can use: its own, and organisation-level ones open to it. */
  readonly usableBy: string | null
  readonly level: "workspace" | "organisation" | "all"
  readonly status: typeof McpIntegrationListStatus.Type
  /** Case-insensitive match on name or slug. */
  readonly search: string | null
}

/** The integration as an access target: a workspace's, or the organisation's open to the workspaces it names. */
export const integrationTarget = (integration: McpIntegration): Target =>
  integration.workspace_id !== null
    ? Target.workspace(integration.organisation_id, integration.workspace_id)
    : Target.shared(
      integration.organisation_id,
      integration.global_workspace_access ? "every-workspace" : integration.workspace_ids
    )

/** May this workspace use the integration now? The policy's answer (`openToWorkspace`). */
export const usableBy = (integration: McpIntegration, workspaceId: string): boolean =>
  openToWorkspace(integrationTarget(integration), {
    organisation_id: integration.organisation_id,
    workspace_id: workspaceId
  })

/**
 * The check of every path that reaches an integration through a server (test, read, the registry API): may
 * the server's workspace still use it. An organisation-level integration closed to a workspace
 * (`workspace_ids`) is closed to its servers there, whoever calls: `Forbidden` otherwise.
 */
export const ensureServerMayUse = (server: McpServer, integration: McpIntegration): Effect.Effect<void, Forbidden> =>
  ensureOpenToWorkspace(
    integrationTarget(integration),
    server,
    { type: "MCP server", id: server.id },
    "The integration"
  )

export class McpIntegrationStore extends Context.Service<
  McpIntegrationStore,
  {
    /** `Conflict` when the slug is taken in the organisation. */
    readonly insert: (integration: McpIntegration) => Effect.Effect<void, Conflict | StoreError>
    /** Writes the integration's definition; its status and health (`StatusChange`) stay as they are. */
    readonly update: (integration: McpIntegration) => Effect.Effect<void, StoreError>
    /**
     * Writes the status and health of an integration that is not archived; false when it is archived (or
     * gone), so a health check that ends after an archive cannot bring the integration back.
     */
    readonly setStatus: (id: string, change: StatusChange) => Effect.Effect<boolean, StoreError>
    /**
     * `setStatus` for several integrations in one write; answers the ids written (those not archived nor gone).
     * A health round writes its changes a few at a time (McpHealth.ts): with PGlite each statement holds the
     * thread that serves requests, and one of five rows costs about what one of one row does.
     */
    readonly setStatuses: (
      changes: ReadonlyArray<{ readonly id: string; readonly change: StatusChange }>
    ) => Effect.Effect<ReadonlySet<string>, StoreError>
    /** Up to `limit` integrations that are not archived, of every organisation, by id after `afterId`. */
    readonly listInUse: (
      afterId: string | null,
      limit: number
    ) => Effect.Effect<ReadonlyArray<McpIntegration>, StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<McpIntegration>, StoreError>
    readonly findBySlug: (
      organisationId: string,
      slug: string
    ) => Effect.Effect<Option.Option<McpIntegration>, StoreError>
    /** Ordered by created_at, then id; paged by the store. */
    readonly list: (query: IntegrationQuery, page: PageRequest) => Effect.Effect<Page<McpIntegration>, StoreError>
  }
>()("@gateway-control/McpIntegrationStore") {}

/** Which servers the registry API lists (McpDirectory.ts): keyset-paged by workspace, then slug. */
export interface DirectoryQuery {
  readonly organisationId: string
  /** One workspace's servers, or (null) the whole organisation's. */
  readonly workspaceId: string | null
  /** Only servers after this one, in (workspace_id, slug) order by code point. */
  readonly after: { readonly workspaceId: string; readonly slug: string } | null
  /** Case-insensitive match on the server's slug or name. */
  readonly search: string | null
  /** Only entries changed after this instant (ISO 8601): created, their integration updated or its status changed. */
  readonly updatedSince: string | null
  /** Servers of archived integrations too. */
  readonly includeArchived: boolean
  readonly limit: number
}

/** A server the registry API lists, with its integration (as stored: secrets unmasked, never shown). */
export interface DirectoryEntry {
  readonly server: McpServer
  readonly integration: McpIntegration
}

export class McpServerStore extends Context.Service<
  McpServerStore,
  {
    /** `Conflict` when the slug is taken in the workspace. */
    readonly insert: (server: McpServer) => Effect.Effect<void, Conflict | StoreError>
    /** Writes the server's name and description; false when it is gone. */
    readonly update: (server: McpServer) => Effect.Effect<boolean, StoreError>
    /** Removes the server; false when it was gone. */
    readonly delete: (id: string) => Effect.Effect<boolean, StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<McpServer>, StoreError>
    readonly findBySlug: (workspaceId: string, slug: string) => Effect.Effect<Option.Option<McpServer>, StoreError>
    /**
     * The organisation's servers (or a workspace's), by creation; with `search`, those whose name or slug holds it
     * in any case; with `ids`, only those servers (Portkey's `id` filter).
     */
    readonly list: (
      organisationId: string,
      workspaceId: string | null,
      search: string | null,
      page: PageRequest,
      ids?: ReadonlyArray<string>
    ) => Effect.Effect<Page<McpServer>, StoreError>
    /**
     * Up to `limit` servers whose integration their workspace may use (`usableBy`), in (workspace_id, slug)
     * order: a server that exists throughout a walk of the pages is listed once, whatever is inserted meanwhile.
     */
    readonly directory: (query: DirectoryQuery) => Effect.Effect<ReadonlyArray<DirectoryEntry>, StoreError>
    /** Who may use the server: `allow` and no overrides until set. */
    readonly userAccess: (serverId: string) => Effect.Effect<ServerUserAccess, StoreError>
    /**
     * Sets the server's default (unless null) and the overrides given (each replacing that user's), in one
     * change; the other users' overrides stay.
     */
    readonly setUserAccess: (
      serverId: string,
      defaultAccess: McpUserAccessDefault | null,
      overrides: ReadonlyArray<McpUserAccess>,
      at: string
    ) => Effect.Effect<void, StoreError>
  }
>()("@gateway-control/McpServerStore") {}

/** The instant a directory entry last changed: the server's creation, its integration's update or status change. */
export const entryUpdatedAt = ({ integration, server }: DirectoryEntry): string =>
  [server.created_at, integration.last_updated_at, integration.status_changed_at].reduce((a, b) => (a > b ? a : b))
