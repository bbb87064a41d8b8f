/**
 * Every call the console makes, imported from here: the pages need no other module to reach the API. The
 * transport is `api/client.ts`; resources with many calls have a file of their own beside it (`api/apiKeys.ts`).
 * The types are the API's answers as a client sees them, derived from the API definition (`api/contract.ts`):
 * none is copied here, so a renamed or retyped field fails the pages that read it.
 */
import { get, type Item, type Paging, type Query, request, segment, send } from "./api/client.ts"
import type { Answer, Body } from "./api/contract.ts"

export * from "./api/apiKeys.ts"
export * from "./api/client.ts"
export type * from "./api/contract.ts"
export * from "./api/identityProviders.ts"
export * from "./api/integrations.ts"
export * from "./api/promptCompletions.ts"
export * from "./api/scimTokens.ts"
export * from "./api/secondFactor.ts"
export * from "./api/secretReferences.ts"
export * from "./api/sessions.ts"
export * from "./api/trustPolicies.ts"

// ---- the calling key ----

export type CallingKey = Answer<"scopes", "list">["key"]

export const scopes = () => get<"scopes", "list">("/scopes")

// ---- workspaces, users, members ----

export type Workspace = Answer<"workspaces", "get">
export type User = Item<Answer<"users", "list">>
export type Member = Item<Answer<"users", "listMembers">>

export const listWorkspaces = (paging: Paging) => get<"workspaces", "list">("/workspaces", { ...paging })
export const createWorkspace = (body: Body<"workspaces", "create">) =>
  send<"workspaces", "create">("POST", "/workspaces", body)
export const listUsers = (paging: Paging) => get<"users", "list">("/users", { ...paging })
export const createUser = (body: Body<"users", "create">) => send<"users", "create">("POST", "/users", body)
export const listMembers = (workspaceId: string, paging: Paging) =>
  get<"users", "listMembers">(`/workspaces/${segment(workspaceId)}/members`, { ...paging })
export const addMember = (workspaceId: string, body: Body<"users", "addMember">) =>
  send<"users", "addMember">("POST", `/workspaces/${segment(workspaceId)}/members`, body)
export const removeMember = (workspaceId: string, userId: string) =>
  send<"users", "removeMember">("DELETE", `/workspaces/${segment(workspaceId)}/members/${segment(userId)}`)

// ---- prompts and partials ----

export type Prompt = Item<Answer<"prompts", "list">>
export type PromptDetails = Answer<"prompts", "get">
export type PromptVersion = PromptDetails["versions"][number]
/** A version as the version routes answer it: with the names of the labels pointing at it. */
export type LabelledVersion = Item<Answer<"prompts", "listVersions">>
export type VersionCreated = Answer<"prompts", "create">
/** A label of the organisation or of one workspace; a built-in one's id is its name. */
export type Label = Item<Answer<"labels", "list">>

const newestFirst = <V extends { readonly version: number }>(versions: ReadonlyArray<V>) =>
  [...versions].sort((a, b) => b.version - a.version)

export const listPrompts = (workspaceId: string | undefined, paging: Paging, collectionId?: string) =>
  get<"prompts", "list">("/prompts", { workspace_id: workspaceId, collection_id: collectionId, ...paging })

// ---- collections ----

export type Collection = Item<Answer<"collections", "list">>

export const listCollections = (workspaceId: string | undefined, paging: Paging) =>
  get<"collections", "list">("/collections", { workspace_id: workspaceId, ...paging })
export const createCollection = (body: Body<"collections", "create">) =>
  send<"collections", "create">("POST", "/collections", body)
export const getPrompt = (idOrSlug: string) => get<"prompts", "get">(`/prompts/${segment(idOrSlug)}`)
export const createPrompt = (body: Body<"prompts", "create">) => send<"prompts", "create">("POST", "/prompts", body)
export const updatePrompt = (id: string, body: Body<"prompts", "update">) =>
  send<"prompts", "update">("PUT", `/prompts/${segment(id)}`, body)
export const publishVersion = (id: string, version: number) =>
  send<"prompts", "makeDefault">("PUT", `/prompts/${segment(id)}/makeDefault`, { version })
export const deletePrompt = (id: string) => send<"prompts", "delete">("DELETE", `/prompts/${segment(id)}`)

/** A prompt and its versions, newest first, each with its labels. */
export const promptVersions = async (id: string) => {
  const [prompt, versions] = await Promise.all([
    getPrompt(id),
    get<"prompts", "listVersions">(`/prompts/${segment(id)}/versions`)
  ])
  return { prompt, versions: newestFirst(versions.data) }
}

/** The labels a workspace's prompts may point: the built-in ones, the organisation's and the workspace's. */
export const listLabels = async (workspaceId: string) =>
  (await get<"labels", "list">("/labels", { workspace_id: workspaceId, page_size: 1000 })).data

/** Points a label (by its id) at a version (by its number). */
export const moveLabel = (id: string, labelId: string, version: number) =>
  send<"prompts", "setVersionLabel">("PUT", `/prompts/${segment(id)}/versions/${version}`, { label_id: labelId })

/** A rendered body, with the variables it missed and the deprecated fields it used (from the answer's headers). */
export interface Rendered {
  readonly data: Answer<"promptRendering", "render">["data"]
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
export const render = async (ref: string, body: Body<"promptRendering", "render">): Promise<Rendered> => {
  const answer = await request<"promptRendering", "render">("POST", `/prompts/${segment(ref)}/render`, body)
  return {
    data: answer.body.data,
    missingVariables: headerList(answer.headers.get("x-service-missing-variables")).map(decodedName),
    missingVariablesOmitted: Number(answer.headers.get("x-service-missing-variables-omitted") ?? 0) || 0,
    deprecatedFields: headerList(answer.headers.get("x-service-deprecated-fields"))
  }
}

/** An archived partial stays readable, and renders as a missing one. */
export type Partial = Item<Answer<"prompts", "listPartials">>
/** With the published version's template (`string`). */
export type PartialDetails = Answer<"prompts", "getPartial">
export type PartialVersion = Item<Answer<"prompts", "listPartialVersions">>
/** A partial after a change, with its published version. */
export type PartialChanged = Answer<"prompts", "updatePartial">

export const listPartials = (workspaceId: string | undefined, paging: Paging) =>
  get<"prompts", "listPartials">("/prompts/partials", { workspace_id: workspaceId, ...paging })
export const getPartial = (idOrSlug: string) => get<"prompts", "getPartial">(`/prompts/partials/${segment(idOrSlug)}`)
export const createPartial = (body: Body<"prompts", "createPartial">) =>
  send<"prompts", "createPartial">("POST", "/prompts/partials", body)
/** A `string` adds a version and publishes it; `name`, `description` and `status` alone change only the partial. */
export const updatePartial = (id: string, body: Body<"prompts", "updatePartial">) =>
  send<"prompts", "updatePartial">("PUT", `/prompts/partials/${segment(id)}`, body)
export const publishPartialVersion = (id: string, version: number) =>
  send<"prompts", "publishPartial">("PUT", `/prompts/partials/${segment(id)}/makeDefault`, { version })
export const deletePartial = (id: string) =>
  send<"prompts", "deletePartial">("DELETE", `/prompts/partials/${segment(id)}`)

/** A partial and its versions, newest first. */
export const partialVersions = async (id: string) => {
  const [partial, versions] = await Promise.all([
    getPartial(id),
    get<"prompts", "listPartialVersions">(`/prompts/partials/${segment(id)}/versions`)
  ])
  return { partial, versions: newestFirst(versions.data) }
}

/** A partial by slug as a prompt of `workspaceId` renders it: its published template, or version `version`'s. */
export const partialTemplate = async (slug: string, workspaceId: string, version: number | undefined) => {
  const partial = await get<"prompts", "getPartial">(`/prompts/partials/${segment(slug)}`, {
    workspace_id: workspaceId
  })
  // An archived partial renders as a missing one.
  if (partial.status === "archived") return undefined
  if (version === undefined) return partial.string
  const versions = await get<"prompts", "listPartialVersions">(`/prompts/partials/${segment(partial.id)}/versions`)
  return versions.data.find((v) => v.version === version)?.string
}

// ---- providers (a workspace's handles on integrations) ----

export type WorkspaceProvider = Item<Answer<"providers", "list">>

export const listWorkspaceProviders = (workspaceId: string | undefined, paging: Paging) =>
  get<"providers", "list">("/providers", { workspace_id: workspaceId, ...paging })

// ---- MCP registry ----

export type McpIntegration = Item<Answer<"mcpRegistry", "listIntegrations">>
export type McpServer = Item<Answer<"mcpRegistry", "listServers">>

export const listIntegrations = (query: Query & Paging) =>
  get<"mcpRegistry", "listIntegrations">("/mcp-integrations", query)
export const createIntegration = (body: Body<"mcpRegistry", "createIntegration">) =>
  send<"mcpRegistry", "createIntegration">("POST", "/mcp-integrations", body)
export const archiveIntegration = (id: string) =>
  send<"mcpRegistry", "archiveIntegration">("DELETE", `/mcp-integrations/${segment(id)}`)
export const getIntegration = (id: string) => get<"mcpRegistry", "getIntegration">(`/mcp-integrations/${segment(id)}`)
export type McpTestResult = Answer<"mcpConnectivity", "testIntegration">
export type McpSyncResult = Answer<"mcpConnectivity", "syncCapabilities">
export type McpCapability = Item<Answer<"mcpConnectivity", "listCapabilities">>
/** Connects to the integration's server (initialize, then ping): the outcome and its latency. */
export const testIntegration = (id: string) =>
  send<"mcpConnectivity", "testIntegration">("POST", `/mcp-integrations/${segment(id)}/test`)
/** Lists the server's capabilities and stores them, keeping earlier on/off choices. */
export const syncCapabilities = (id: string) =>
  send<"mcpConnectivity", "syncCapabilities">("POST", `/mcp-integrations/${segment(id)}/capabilities/sync`)
export const integrationMetadata = (id: string) =>
  get<"mcpConnectivity", "integrationMetadata">(`/mcp-integrations/${segment(id)}/metadata`)
export const listCapabilities = (id: string, query: Query & Paging) =>
  get<"mcpConnectivity", "listCapabilities">(`/mcp-integrations/${segment(id)}/capabilities`, query)
export const setCapabilities = (id: string, body: Body<"mcpConnectivity", "setCapabilities">) =>
  send<"mcpConnectivity", "setCapabilities">("PUT", `/mcp-integrations/${segment(id)}/capabilities`, body)
export const listServers = (query: Query & Paging) => get<"mcpRegistry", "listServers">("/mcp-servers", query)
export const createServer = (body: Body<"mcpRegistry", "createServer">) =>
  send<"mcpRegistry", "createServer">("POST", "/mcp-servers", body)

// ---- virtual keys and configs ----

/** Its provider key masked: a provider key is write-only. */
export type VirtualKey = Item<Answer<"virtualKeys", "list">>
/** Without its API key, which is write-only. */
export type GatewayConfig = Item<Answer<"configs", "list">>

export const listVirtualKeys = (workspaceId: string | undefined, paging: Paging) =>
  get<"virtualKeys", "list">("/virtual-keys", { workspace_id: workspaceId, ...paging })
export const createVirtualKey = (body: Body<"virtualKeys", "create">) =>
  send<"virtualKeys", "create">("POST", "/virtual-keys", body)
export const deleteVirtualKey = (id: string) => send<"virtualKeys", "delete">("DELETE", `/virtual-keys/${segment(id)}`)
export const listConfigs = (workspaceId: string | undefined, paging: Paging) =>
  get<"configs", "list">("/configs", { workspace_id: workspaceId, ...paging })
export const createConfig = (body: Body<"configs", "create">) => send<"configs", "create">("POST", "/configs", body)
export const deleteConfig = (id: string) => send<"configs", "delete">("DELETE", `/configs/${segment(id)}`)

// ---- audit log ----

export type AuditRecord = Answer<"auditLogs", "list">["records"][number]

export const listAuditLogs = async (query: Query & Paging) => {
  const page = await get<"auditLogs", "list">("/audit-logs", query)
  return { data: page.records, total: page.total, has_more: page.has_more }
}
