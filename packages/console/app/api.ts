/**
 * Every call the console makes, imported from here: the pages need no other module to reach the API. The
 * transport is `api/client.ts`; resources with many calls have a file of their own beside it (`api/apiKeys.ts`).
 * The types are the API's answers as a client sees them.
 */
import type { KeyType } from "./api/apiKeys.ts"
import { get, type Json, type ListPage, type Paging, type Query, request, segment, send } from "./api/client.ts"

export * from "./api/apiKeys.ts"
export * from "./api/client.ts"

// ---- the calling key ----

export interface CallingKey {
  readonly id: string
  readonly type: KeyType
  readonly organisation_id: string
  readonly workspace_id: string | null
  readonly user_id: string | null
  readonly scopes: ReadonlyArray<string>
}

export const scopes = () => get<{ data: ReadonlyArray<string>; key: CallingKey }>("/scopes")

// ---- workspaces, users, members ----

export interface Workspace {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly description: string | null
  readonly created_at: string
}

export interface User {
  readonly id: string
  readonly email: string
  readonly name: string | null
  readonly role: string
}

export interface Member {
  readonly workspace_id: string
  readonly user_id: string
  readonly role: string
}

export const listWorkspaces = (paging: Paging) => get<ListPage<Workspace>>("/workspaces", { ...paging })
export const createWorkspace = (body: Json) => send<{ id: string; slug: string }>("POST", "/workspaces", body)
export const listUsers = (paging: Paging) => get<ListPage<User>>("/users", { ...paging })
export const createUser = (body: Json) => send<{ id: string }>("POST", "/users", body)
export const listMembers = (workspaceId: string, paging: Paging) =>
  get<ListPage<Member>>(`/workspaces/${segment(workspaceId)}/members`, { ...paging })
export const addMember = (workspaceId: string, body: Json) =>
  send<Member>("POST", `/workspaces/${segment(workspaceId)}/members`, body)
export const removeMember = (workspaceId: string, userId: string) =>
  send<Member>("DELETE", `/workspaces/${segment(workspaceId)}/members/${segment(userId)}`)

// ---- prompts and partials ----

export interface Prompt {
  readonly id: string
  readonly workspace_id: string
  readonly name: string
  readonly slug: string
  readonly published_version: number
  readonly created_at: string
  readonly last_updated_at: string
}

export interface PromptVersion {
  readonly id: string
  readonly version: number
  readonly string: string
  readonly parameters: Json
  readonly model: string | null
  readonly type: "chat" | "completion"
  readonly is_raw_template: boolean
  readonly version_description: string | null
  readonly created_at: string
}

export interface PromptDetails extends Prompt {
  readonly versions: ReadonlyArray<PromptVersion>
}

/** A version as the version routes answer it: with the names of the labels pointing at it. */
export interface LabelledVersion extends PromptVersion {
  readonly labels: ReadonlyArray<string>
}

export interface VersionCreated {
  readonly id: string
  readonly slug: string
  readonly version: number
}

/** A label of the organisation or of one workspace; a built-in one's id is its name. */
export interface Label {
  readonly id: string
  readonly name: string
  readonly workspace_id: string | null
}

const newestFirst = <V extends { readonly version: number }>(versions: ReadonlyArray<V>) =>
  [...versions].sort((a, b) => b.version - a.version)

export const listPrompts = (workspaceId: string | undefined, paging: Paging) =>
  get<ListPage<Prompt>>("/prompts", { workspace_id: workspaceId, ...paging })
export const getPrompt = (idOrSlug: string) => get<PromptDetails>(`/prompts/${segment(idOrSlug)}`)
export const createPrompt = (body: Json) => send<VersionCreated>("POST", "/prompts", body)
export const updatePrompt = (id: string, body: Json) => send<VersionCreated>("PUT", `/prompts/${segment(id)}`, body)
export const publishVersion = (id: string, version: number) =>
  send<Prompt>("PUT", `/prompts/${segment(id)}/makeDefault`, { version })
export const deletePrompt = (id: string) => send<{ id: string }>("DELETE", `/prompts/${segment(id)}`)

/** A prompt and its versions, newest first, each with its labels. */
export const promptVersions = async (id: string) => {
  const [prompt, versions] = await Promise.all([
    getPrompt(id),
    get<ListPage<LabelledVersion>>(`/prompts/${segment(id)}/versions`)
  ])
  return { prompt, versions: newestFirst(versions.data) }
}

/** The labels a workspace's prompts may point: the built-in ones, the organisation's and the workspace's. */
export const listLabels = async (workspaceId: string) =>
  (await get<ListPage<Label>>("/labels", { workspace_id: workspaceId, page_size: 1000 })).data

/** Points a label (by its id) at a version (by its number). */
export const moveLabel = (id: string, labelId: string, version: number) =>
  send<LabelledVersion>("PUT", `/prompts/${segment(id)}/versions/${version}`, { label_id: labelId })

export interface Rendered {
  readonly data: Json
  readonly missingVariables: ReadonlyArray<string>
  /** Missing variables the header left out: it lists the first ones only. */
  readonly missingVariablesOmitted: number
  readonly deprecatedFields: ReadonlyArray<string>
}

const headerList = (value: string | null) =>
  value === null ? [] : value.split(",").map((s) => s.trim()).filter((s) => s.length > 0)

/** A name the server percent-encoded (UTF-8) so that any character fits in a header. */
const decodedName = (name: string) => {
  try {
    return decodeURIComponent(name)
  } catch {
    return name
  }
}

/** Renders `ref` (an id or slug, with `@N`, `@latest` or `@label`), with the missing variables and deprecated fields. */
export const render = async (ref: string, body: Json): Promise<Rendered> => {
  const answer = await request<{ data: Json }>("POST", `/prompts/${segment(ref)}/render`, body)
  return {
    data: answer.body.data,
    missingVariables: headerList(answer.headers.get("x-service-missing-variables")).map(decodedName),
    missingVariablesOmitted: Number(answer.headers.get("x-service-missing-variables-omitted") ?? 0) || 0,
    deprecatedFields: headerList(answer.headers.get("x-service-deprecated-fields"))
  }
}

export interface Partial extends Prompt {
  readonly description: string | null
  /** An archived partial stays readable, and renders as a missing one. */
  readonly status: "active" | "archived"
}

export interface PartialDetails extends Partial {
  /** The published version's template. */
  readonly string: string
  readonly version_id: string
}

export interface PartialVersion {
  readonly id: string
  readonly version: number
  readonly string: string
  readonly version_description: string | null
  readonly created_at: string
}

/** A partial after a change, with its published version. */
export interface PartialChanged extends Partial {
  readonly version: number
}

export const listPartials = (workspaceId: string | undefined, paging: Paging) =>
  get<ListPage<Partial>>("/prompts/partials", { workspace_id: workspaceId, ...paging })
export const getPartial = (idOrSlug: string) => get<PartialDetails>(`/prompts/partials/${segment(idOrSlug)}`)
export const createPartial = (body: Json) => send<VersionCreated>("POST", "/prompts/partials", body)
/** A `string` adds a version and publishes it; `name`, `description` and `status` alone change only the partial. */
export const updatePartial = (id: string, body: Json) =>
  send<PartialChanged>("PUT", `/prompts/partials/${segment(id)}`, body)
export const publishPartialVersion = (id: string, version: number) =>
  send<PartialChanged>("PUT", `/prompts/partials/${segment(id)}/makeDefault`, { version })
export const deletePartial = (id: string) => send<{ id: string }>("DELETE", `/prompts/partials/${segment(id)}`)

/** A partial and its versions, newest first. */
export const partialVersions = async (id: string) => {
  const [partial, versions] = await Promise.all([
    getPartial(id),
    get<ListPage<PartialVersion>>(`/prompts/partials/${segment(id)}/versions`)
  ])
  return { partial, versions: newestFirst(versions.data) }
}

// ---- MCP registry ----

export interface McpIntegration {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly status: "active" | "archived"
  readonly url: string
  readonly description: string | null
  readonly workspace_id: string | null
  readonly configurations: Json
  readonly auth_type: string
  readonly transport: string
  readonly global_workspace_access: boolean
  readonly workspace_ids: ReadonlyArray<string>
  readonly workspaces_count: number
  readonly created_at: string
}

export interface McpServer {
  readonly id: string
  readonly workspace_id: string
  readonly slug: string
  readonly name: string
  readonly status: string
  readonly description: string | null
  readonly mcp_integration_id: string
  readonly created_at: string
}

export const listIntegrations = (query: Query & Paging) => get<ListPage<McpIntegration>>("/mcp-integrations", query)
export const createIntegration = (body: Json) => send<{ id: string; slug: string }>("POST", "/mcp-integrations", body)
export const archiveIntegration = (id: string) => send<McpIntegration>("DELETE", `/mcp-integrations/${segment(id)}`)
export const listServers = (query: Query & Paging) => get<ListPage<McpServer>>("/mcp-servers", query)
export const createServer = (body: Json) => send<{ id: string; slug: string }>("POST", "/mcp-servers", body)

// ---- virtual keys and configs ----

export interface VirtualKey {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly provider: string
  /** Masked: a provider key is write-only. */
  readonly masked_key: string
  readonly custom_host: string | null
  readonly workspace_id: string
  readonly created_at: string
}

export interface GatewayConfig {
  readonly id: string
  readonly name: string
  readonly slug: string
  /** Without its API key, which is write-only. */
  readonly config: Json
  readonly masked_api_key: string | null
  readonly workspace_id: string
  readonly created_at: string
}

export const listVirtualKeys = (workspaceId: string | undefined, paging: Paging) =>
  get<ListPage<VirtualKey>>("/virtual-keys", { workspace_id: workspaceId, ...paging })
export const createVirtualKey = (body: Json) => send<{ id: string }>("POST", "/virtual-keys", body)
export const deleteVirtualKey = (id: string) => send<{ id: string }>("DELETE", `/virtual-keys/${segment(id)}`)
export const listConfigs = (workspaceId: string | undefined, paging: Paging) =>
  get<ListPage<GatewayConfig>>("/configs", { workspace_id: workspaceId, ...paging })
export const createConfig = (body: Json) => send<{ id: string }>("POST", "/configs", body)
export const deleteConfig = (id: string) => send<{ id: string }>("DELETE", `/configs/${segment(id)}`)

// ---- audit log ----

export interface AuditRecord {
  readonly id: string
  readonly seq: number
  readonly timestamp: string
  readonly workspace_id: string | null
  readonly user_id: string | null
  readonly user_type: string
  readonly api_key_id: string | null
  readonly action: string
  readonly resource_type: string
  readonly resource_id: string | null
  readonly method: string
  readonly uri: string
  readonly request_id: string
  readonly request_body: unknown
  readonly response_status_code: number
  readonly client_ip: string | null
  readonly sanitized: boolean
}

export const listAuditLogs = async (query: Query & Paging): Promise<ListPage<AuditRecord>> => {
  const page = await get<{ records: ReadonlyArray<AuditRecord>; total: number; has_more: boolean }>(
    "/audit-logs",
    query
  )
  return { data: page.records, total: page.total, has_more: page.has_more }
}
