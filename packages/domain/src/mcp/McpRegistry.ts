/**
 * The MCP registry as a principal uses it: integrations at organisation or workspace level, and servers,
 * a workspace's instances of them.
 */
import { Context, Effect, Layer, Option } from "effect"
import { slugify } from "../access/AccessModel.ts"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { ensureAllowed, isAdminKey } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { type Conflict, Forbidden, InvalidRequest, NotFound } from "../shared/Errors.ts"
import { HTTP_URL_PROBLEMS, parseHttpUrl } from "../shared/HttpUrl.ts"
import { hotPathSpan } from "../shared/internal/hotPathSpan.ts"
import { nowIso } from "../shared/internal/time.ts"
import { TtlCache } from "../shared/internal/TtlCache.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import {
  type IntegrationQuery,
  maskedConfigurations,
  McpIntegration,
  McpIntegrationStore,
  McpServer,
  McpServerStore,
  mergeConfigurations,
  type SecretMapping,
  usableBy
} from "./Mcp.ts"

export interface IntegrationInput {
  readonly name?: string | undefined
  readonly url?: string | undefined
  readonly auth_type?: McpIntegration["auth_type"] | undefined
  readonly transport?: McpIntegration["transport"] | undefined
  readonly slug?: string | undefined
  readonly description?: string | undefined
  readonly workspace_id?: string | undefined
  readonly organisation_id?: string | undefined
  readonly configurations?: Readonly<Record<string, unknown>> | undefined
  readonly secret_mappings?: ReadonlyArray<SecretMapping> | undefined
  readonly global_workspace_access?: boolean | undefined
  readonly workspace_ids?: ReadonlyArray<string> | undefined
}

export interface ServerInput {
  readonly name: string
  readonly mcp_integration_id: string
  readonly workspace_id?: string | undefined
  readonly description?: string | undefined
  readonly slug?: string | undefined
}

export interface IntegrationListRequest {
  readonly organisationId: string | undefined
  readonly workspaceId: string | undefined
  readonly type: IntegrationQuery["level"]
  readonly status: IntegrationQuery["status"]
  readonly search: string | undefined
}

export interface IntegrationView {
  /** As reads show it: header values in `configurations` masked. */
  readonly integration: McpIntegration
  /** How many workspaces can use it. */
  readonly workspacesCount: number
}

/**
 * How long a server read reuses what an id or slug resolved to (server and integration). Changes made through
 * this process clear it at once; another process sharing the store sees them within this time.
 */
export const SERVER_CACHE_TTL_MS = 2_000

interface ResolvedServer {
  readonly server: McpServer
  readonly integration: McpIntegration
}

export interface ServerView {
  readonly server: McpServer
  /** As reads show it: header values in `configurations` masked. */
  readonly integration: McpIntegration
  /** The integration's details are shown to service keys only. */
  readonly showIntegrationDetails: boolean
}

type Failure = InvalidRequest | Forbidden | NotFound

/** An integration as reads show it: its secrets are write-only. */
const readable = (integration: McpIntegration) =>
  new McpIntegration({ ...integration, configurations: maskedConfigurations(integration.configurations) })

const SLUG = /^[a-zA-Z0-9_-]+$/

const checkUrl = (url: string) => {
  const parsed = parseHttpUrl(url)
  if (parsed instanceof URL) return Effect.void
  const hint = parsed === "credentials" ? "; use secret_mappings" : ""
  return Effect.fail(InvalidRequest.of(`url ${HTTP_URL_PROBLEMS[parsed]}${hint}.`, "url"))
}

const checkLength = (value: string | undefined, param: string, min: number, max: number) =>
  value !== undefined && (value.trim().length < min || value.length > max)
    ? Effect.fail(InvalidRequest.of(`${param} must be ${min} to ${max} characters.`, param))
    : Effect.void

export class McpRegistry extends Context.Service<
  McpRegistry,
  {
    readonly createIntegration: (
      principal: Principal,
      input: IntegrationInput
    ) => Effect.Effect<McpIntegration, Failure | Conflict>
    readonly updateIntegration: (
      principal: Principal,
      id: string,
      input: IntegrationInput
    ) => Effect.Effect<McpIntegration, Failure>
    readonly archiveIntegration: (principal: Principal, id: string) => Effect.Effect<McpIntegration, Failure>
    readonly getIntegration: (principal: Principal, id: string) => Effect.Effect<IntegrationView, Failure>
    readonly listIntegrations: (
      principal: Principal,
      request: IntegrationListRequest,
      page: PageRequest
    ) => Effect.Effect<Page<IntegrationView>, Failure>
    readonly createServer: (principal: Principal, input: ServerInput) => Effect.Effect<McpServer, Failure | Conflict>
    readonly getServer: (
      principal: Principal,
      idOrSlug: string,
      workspaceId: string | undefined
    ) => Effect.Effect<ServerView, Failure>
    readonly listServers: (
      principal: Principal,
      workspaceId: string | undefined,
      search: string | undefined,
      page: PageRequest
    ) => Effect.Effect<Page<McpServer>, Failure>
  }
>()("@gateway-control/McpRegistry") {
  static readonly layer = Layer.effect(
    McpRegistry,
    Effect.gen(function*() {
      const integrations = yield* McpIntegrationStore
      const servers = yield* McpServerStore
      const workspaces = yield* WorkspaceStore
      const crypto = yield* PlatformCrypto
      const resolvedServers = new TtlCache<string, ResolvedServer>(SERVER_CACHE_TTL_MS, 5_000)
      /** Any change that a server read shows, made in this process: the next read asks the store. */
      const serversChanged = Effect.sync(() => resolvedServers.clear())

      const workspaceOf = Effect.fnUntraced(function*(principal: Principal, id: string, param = "workspace_id") {
        const workspace = yield* workspaces.get(id)
        if (Option.isNone(workspace) || workspace.value.organisation_id !== principal.organisationId) {
          return yield* InvalidRequest.of(`No workspace '${id}' in this organisation.`, param)
        }
        return workspace.value
      })

      const organisationWorkspaces = (organisationId: string) =>
        Effect.map(workspaces.list(organisationId, { limit: 1, offset: 0 }), (page) => page.total)

      const countFor = (integration: McpIntegration, total: number) =>
        integration.workspace_id !== null
          ? 1
          : integration.global_workspace_access
          ? total
          : integration.workspace_ids.length

      const checkWorkspaceIds = Effect.fnUntraced(function*(principal: Principal, ids: ReadonlyArray<string>) {
        for (const [i, id] of ids.entries()) yield* workspaceOf(principal, id, `workspace_ids[${i}]`)
        return [...new Set(ids)]
      })

      const createIntegration = Effect.fn("McpRegistry.createIntegration")(
        function*(principal: Principal, input: IntegrationInput) {
          if (input.organisation_id !== undefined && input.organisation_id !== principal.organisationId) {
            return yield* new Forbidden({ message: "This API key belongs to another organisation." })
          }
          // A workspace key can only create in its own workspace, so it may leave workspace_id out.
          const workspaceId = input.workspace_id ??
            (isAdminKey(principal) ? undefined : principal.workspaceId ?? undefined)
          const workspace = workspaceId === undefined ? null : yield* workspaceOf(principal, workspaceId)
          yield* ensureAllowed(
            principal,
            workspace === null ? "mcp_integrations.create.organisation" : "mcp_integrations.create.workspace",
            { organisationId: principal.organisationId, workspaceId: workspace?.id ?? null },
            { type: "workspace", id: workspace?.id ?? principal.organisationId }
          )
          if (input.name === undefined) return yield* InvalidRequest.of("name is required.", "name")
          if (input.url === undefined) return yield* InvalidRequest.of("url is required.", "url")
          if (input.auth_type === undefined) return yield* InvalidRequest.of("auth_type is required.", "auth_type")
          if (input.transport === undefined) return yield* InvalidRequest.of("transport is required.", "transport")
          yield* checkLength(input.name, "name", 1, 255)
          yield* checkLength(input.description, "description", 0, 2000)
          yield* checkUrl(input.url)
          const slug = input.slug ?? slugify(input.name)
          if (!SLUG.test(slug) || slug.length > 255) {
            return yield* InvalidRequest.of("slug must be letters, digits, '_' or '-'.", "slug")
          }
          if (
            workspace !== null && (input.workspace_ids !== undefined || input.global_workspace_access !== undefined)
          ) {
            return yield* InvalidRequest.of(
              "global_workspace_access and workspace_ids apply to organisation-level integrations only.",
              input.workspace_ids !== undefined ? "workspace_ids" : "global_workspace_access"
            )
          }
          const now = yield* nowIso
          const integration = new McpIntegration({
            id: crypto.uuid(),
            organisation_id: principal.organisationId,
            name: input.name.trim(),
            slug,
            owner_id: principal.userId,
            status: "active",
            url: input.url,
            description: input.description ?? null,
            workspace_id: workspace?.id ?? null,
            configurations: { ...input.configurations },
            auth_type: input.auth_type,
            transport: input.transport,
            global_workspace_access: workspace === null ? (input.global_workspace_access ?? true) : false,
            workspace_ids: yield* checkWorkspaceIds(principal, input.workspace_ids ?? []),
            secret_mappings: [...(input.secret_mappings ?? [])],
            created_at: now,
            last_updated_at: now
          })
          yield* integrations.insert(integration)
          return integration
        }
      )

      /** An integration of the principal's organisation that the principal may manage or read. */
      const visibleIntegration = Effect.fnUntraced(
        function*(principal: Principal, idOrSlug: string, action: "mcp_integrations.update" | "mcp_integrations.read") {
          const byId = yield* integrations.get(idOrSlug)
          const found = Option.isSome(byId) ? byId : yield* integrations.findBySlug(principal.organisationId, idOrSlug)
          if (Option.isNone(found) || found.value.organisation_id !== principal.organisationId) {
            return yield* new NotFound({ resource: "MCP integration", id: idOrSlug })
          }
          const integration = found.value
          if (!isAdminKey(principal)) {
            const mine = integration.workspace_id === principal.workspaceId
            const usable = principal.workspaceId !== null && usableBy(integration, principal.workspaceId)
            if (action === "mcp_integrations.update" ? !mine : !usable) {
              return yield* new Forbidden({ message: `MCP integration '${idOrSlug}' is not this workspace's.` })
            }
          }
          yield* ensureAllowed(principal, action, {
            organisationId: integration.organisation_id,
            workspaceId: integration.workspace_id ?? principal.workspaceId
          }, { type: "MCP integration", id: idOrSlug })
          return integration
        }
      )

      const updateIntegration = Effect.fn("McpRegistry.updateIntegration")(
        function*(principal: Principal, id: string, input: IntegrationInput) {
          const current = yield* visibleIntegration(principal, id, "mcp_integrations.update")
          yield* checkLength(input.name, "name", 1, 255)
          if (input.url !== undefined) yield* checkUrl(input.url)
          if (
            current.workspace_id !== null &&
            (input.workspace_ids !== undefined || input.global_workspace_access !== undefined)
          ) {
            return yield* InvalidRequest.of(
              "global_workspace_access and workspace_ids apply to organisation-level integrations only.",
              "workspace_ids"
            )
          }
          const updated = new McpIntegration({
            ...current,
            name: input.name?.trim() ?? current.name,
            url: input.url ?? current.url,
            description: input.description ?? current.description,
            configurations: input.configurations === undefined
              ? current.configurations
              : mergeConfigurations(current.configurations, input.configurations),
            auth_type: input.auth_type ?? current.auth_type,
            transport: input.transport ?? current.transport,
            global_workspace_access: input.global_workspace_access ?? current.global_workspace_access,
            workspace_ids: input.workspace_ids === undefined
              ? current.workspace_ids
              : yield* checkWorkspaceIds(principal, input.workspace_ids),
            secret_mappings: input.secret_mappings === undefined ? current.secret_mappings : [...input.secret_mappings],
            last_updated_at: yield* nowIso
          })
          yield* integrations.update(updated)
          yield* serversChanged
          return updated
        }
      )

      const archiveIntegration = Effect.fn("McpRegistry.archiveIntegration")(
        function*(principal: Principal, id: string) {
          const current = yield* visibleIntegration(principal, id, "mcp_integrations.update")
          const archived = new McpIntegration({ ...current, status: "archived", last_updated_at: yield* nowIso })
          yield* integrations.update(archived)
          yield* serversChanged
          return archived
        }
      )

      const getIntegration = Effect.fn("McpRegistry.getIntegration")(function*(principal: Principal, id: string) {
        const integration = yield* visibleIntegration(principal, id, "mcp_integrations.read")
        return {
          integration: readable(integration),
          workspacesCount: countFor(integration, yield* organisationWorkspaces(integration.organisation_id))
        }
      })

      const listIntegrations = Effect.fn("McpRegistry.listIntegrations")(
        function*(principal: Principal, request: IntegrationListRequest, page: PageRequest) {
          if (isAdminKey(principal) && request.organisationId === undefined) {
            return yield* InvalidRequest.of(
              "organisation_id is required with an organisation admin key.",
              "organisation_id"
            )
          }
          if (request.organisationId !== undefined && request.organisationId !== principal.organisationId) {
            return yield* new Forbidden({
              message: `This API key cannot list organisation '${request.organisationId}'.`
            })
          }
          let usable: string | null = null
          if (!isAdminKey(principal)) {
            if (request.workspaceId !== undefined && request.workspaceId !== principal.workspaceId) {
              return yield* new Forbidden({
                message: `This API key belongs to another workspace than '${request.workspaceId}'.`
              })
            }
            usable = principal.workspaceId
          } else if (request.workspaceId !== undefined) {
            usable = (yield* workspaceOf(principal, request.workspaceId)).id
          }
          yield* ensureAllowed(principal, "mcp_integrations.list", {
            organisationId: principal.organisationId,
            workspaceId: usable
          }, { type: "organisation", id: principal.organisationId })
          const listed = yield* integrations.list({
            organisationId: principal.organisationId,
            usableBy: usable,
            level: request.type,
            status: request.status,
            search: request.search?.trim() || null
          }, page)
          const total = yield* organisationWorkspaces(principal.organisationId)
          return {
            items: listed.items.map((integration) => ({
              integration: readable(integration),
              workspacesCount: countFor(integration, total)
            })),
            total: listed.total
          }
        }
      )

      const createServer = Effect.fn("McpRegistry.createServer")(function*(principal: Principal, input: ServerInput) {
        const workspaceId = input.workspace_id ?? principal.workspaceId
        if (workspaceId === null) {
          return yield* InvalidRequest.of("workspace_id is required with an admin key.", "workspace_id")
        }
        const workspace = yield* workspaceOf(principal, workspaceId)
        yield* ensureAllowed(principal, "mcp_servers.create", {
          organisationId: workspace.organisation_id,
          workspaceId: workspace.id
        }, { type: "workspace", id: workspace.id })
        yield* checkLength(input.name, "name", 1, 255)
        yield* checkLength(input.description, "description", 0, 500)
        const slug = input.slug ?? slugify(input.name).slice(0, 50).padEnd(3, "-")
        if (!SLUG.test(slug) || slug.length < 3 || slug.length > 50) {
          return yield* InvalidRequest.of("slug must be 3 to 50 letters, digits, '_' or '-'.", "slug")
        }
        const byId = yield* integrations.get(input.mcp_integration_id)
        const found = Option.isSome(byId)
          ? byId
          : yield* integrations.findBySlug(principal.organisationId, input.mcp_integration_id)
        if (
          Option.isNone(found) || found.value.organisation_id !== principal.organisationId ||
          found.value.status !== "active" || !usableBy(found.value, workspace.id)
        ) {
          return yield* InvalidRequest.of(
            `MCP integration '${input.mcp_integration_id}' is not available to workspace '${workspace.id}'.`,
            "mcp_integration_id"
          )
        }
        const server = new McpServer({
          id: crypto.uuid(),
          organisation_id: workspace.organisation_id,
          workspace_id: workspace.id,
          slug,
          name: input.name.trim(),
          status: "active",
          description: input.description ?? null,
          mcp_integration_id: found.value.id,
          created_at: yield* nowIso
        })
        yield* servers.insert(server)
        yield* serversChanged
        return server
      })

      const findServer = Effect.fnUntraced(
        function*(principal: Principal, idOrSlug: string, scope: string | undefined) {
          let found = yield* servers.get(idOrSlug)
          if (Option.isNone(found) && scope !== undefined) found = yield* servers.findBySlug(scope, idOrSlug)
          if (Option.isNone(found) || found.value.organisation_id !== principal.organisationId) {
            return yield* new NotFound({ resource: "MCP server", id: idOrSlug })
          }
          const integration = Option.getOrThrow(yield* integrations.get(found.value.mcp_integration_id))
          const resolved: ResolvedServer = { server: found.value, integration: readable(integration) }
          return resolved
        }
      )

      // The gateway reads servers far more often than anyone changes them: the authenticated read path.
      const serverSpan = hotPathSpan("McpRegistry.getServer")
      const getServer = (principal: Principal, idOrSlug: string, workspaceId: string | undefined) =>
        serverSpan(Effect.clockWith((clock) => {
          const scope = isAdminKey(principal) ? workspaceId : (principal.workspaceId ?? undefined)
          const now = clock.currentTimeMillisUnsafe()
          const cacheKey = `${principal.organisationId}/${scope ?? "*"}/${idOrSlug}`
          const cached = resolvedServers.get(cacheKey, now)
          const resolved = cached !== undefined
            ? Effect.succeed(cached)
            : Effect.tap(
              findServer(principal, idOrSlug, scope),
              (r) => Effect.sync(() => resolvedServers.set(cacheKey, r, now))
            )
          return Effect.flatMap(resolved, ({ integration, server }) =>
            Effect.as(
              ensureAllowed(principal, "mcp_servers.read", {
                organisationId: server.organisation_id,
                workspaceId: server.workspace_id
              }, { type: "MCP server", id: idOrSlug }),
              { server, integration, showIntegrationDetails: principal.keyType !== "workspace-user" }
            ))
        }))

      const listServers = Effect.fn("McpRegistry.listServers")(
        function*(
          principal: Principal,
          workspaceId: string | undefined,
          search: string | undefined,
          page: PageRequest
        ) {
          const scope = workspaceId ?? principal.workspaceId
          yield* ensureAllowed(principal, "mcp_servers.list", {
            organisationId: principal.organisationId,
            workspaceId: scope
          }, { type: "workspace", id: scope ?? principal.organisationId })
          return yield* servers.list(principal.organisationId, scope, search?.trim() || null, page)
        }
      )

      return McpRegistry.of({
        createIntegration,
        updateIntegration,
        archiveIntegration,
        getIntegration,
        listIntegrations,
        createServer,
        getServer,
        listServers
      })
    })
  )
}
