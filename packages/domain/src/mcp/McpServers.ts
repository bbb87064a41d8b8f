/**
 * MCP servers as a principal uses them: a workspace's instances of the integrations it may use. Reads are the
 * gateway's hot path, so what an id or slug resolved to is cached for a short while.
 */
import { Effect, Option } from "effect"
import { slugify } from "../access/AccessModel.ts"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureAllowed, ensureListScope, seesIntegrationDetails, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { type Change, type ChangeEvent, ChangeFeed } from "../shared/ChangeFeed.ts"
import { InvalidRequest, requireRow } from "../shared/Errors.ts"
import { hotPathSpan } from "../shared/internal/hotPathSpan.ts"
import { nowIso } from "../shared/internal/time.ts"
import { TtlCache } from "../shared/internal/TtlCache.ts"
import type { PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName, checkSlug } from "../shared/Rules.ts"
import { StoreOutage } from "../shared/StoreOutage.ts"
import {
  MCP_SERVER_SLUG,
  type McpIntegration,
  McpIntegrationStore,
  McpServer,
  McpServerStore,
  usableBy
} from "./Mcp.ts"
import type { ServerInput, ServerUpdateInput } from "./McpInputs.ts"
import { checkLength, readable } from "./McpIntegrations.ts"
import { ensurePersonMayUseServer } from "./McpUserAccess.ts"

export type { ServerInput, ServerUpdateInput } from "./McpInputs.ts"

/**
 * How long a server read reuses what an id or slug resolved to (server and integration). Changes made through
 * this process clear it at once; another process sharing the store sees them as soon as the change feed tells
 * it (PostgreSQL), else within this time.
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

/** The server as reads show it: its status is its integration's (archived integrations' servers read archived). */
export const withStatusOf = (server: McpServer, integration: McpIntegration) =>
  server.status === integration.status ? server : new McpServer({ ...server, status: integration.status })

/** The server operations, and `integrationChanged`, which any change of an integration must run. */
export const makeServers = Effect.gen(function*() {
  const integrations = yield* McpIntegrationStore
  const servers = grantedWrites(yield* McpServerStore, {
    insert: "mcp_servers.create",
    update: "mcp_servers.update",
    delete: "mcp_servers.delete"
  })
  const workspaces = yield* WorkspaceStore
  const crypto = yield* PlatformCrypto
  const feed = yield* ChangeFeed
  const resolvedServers = new TtlCache<string, ResolvedServer>(SERVER_CACHE_TTL_MS, 5_000)
  // Bumped by every change: a read that went to the store before one does not fill the cache.
  let generation = 0
  /** Forgets exactly what server reads hold of a change, made here or in another process. */
  const forget = (event: ChangeEvent) => {
    if (event._tag !== "McpIntegrationChanged" && event._tag !== "Resync") return
    generation++
    if (event._tag === "Resync") return resolvedServers.clear()
    resolvedServers.deleteWhere(({ integration }) => integration.id === event.integrationId)
  }
  yield* feed.subscribe(forget)
  yield* (yield* StoreOutage).onRecovery(forget)
  /** The integration changed: server reads here and in the other processes read it again. */
  const integrationChanged = (integrationId: string) => {
    const change: Change = { _tag: "McpIntegrationChanged", integrationId }
    return Effect.andThen(Effect.sync(() => forget(change)), feed.publish(change))
  }

  const createServer = Effect.fn("McpRegistry.createServer")(function*(principal: Principal, input: ServerInput) {
    const workspaceId = input.workspace_id ?? principal.workspaceId
    if (workspaceId === null) {
      return yield* InvalidRequest.of("workspace_id is required with an admin key.", "workspace_id")
    }
    const workspace = yield* requireRow(yield* workspaces.get(workspaceId), "workspace", workspaceId)
    const creating = yield* ensureAllowed(
      principal,
      "mcp_servers.create",
      Target.workspace(workspace.organisation_id, workspace.id),
      { type: "workspace", id: workspace.id }
    )
    yield* checkName(input.name)
    yield* checkLength(input.description, "description", 0, 500)
    const slug = input.slug ?? slugify(input.name).slice(0, 50).padEnd(3, "-")
    yield* checkSlug(slug, MCP_SERVER_SLUG)
    const byId = yield* integrations.get(input.mcp_integration_id)
    const found = Option.isSome(byId)
      ? byId
      : yield* integrations.findBySlug(workspace.organisation_id, input.mcp_integration_id)
    if (
      Option.isNone(found) || found.value.organisation_id !== workspace.organisation_id ||
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
    yield* servers.insert(creating, server)
    return server
  })

  /** A server by id, or by slug within a workspace; whether the principal sees it is the policy's question. */
  const findServer = Effect.fnUntraced(function*(idOrSlug: string, workspaceId: string | null) {
    let found = yield* servers.get(idOrSlug)
    if (Option.isNone(found) && workspaceId !== null) found = yield* servers.findBySlug(workspaceId, idOrSlug)
    const server = yield* requireRow(found, "MCP server", idOrSlug)
    const integration = Option.getOrThrow(yield* integrations.get(server.mcp_integration_id))
    const resolved: ResolvedServer = { server: withStatusOf(server, integration), integration: readable(integration) }
    return resolved
  })

  /** The servers as reads show them: each with its integration's status. */
  const withStatuses = Effect.fnUntraced(function*(listed: ReadonlyArray<McpServer>) {
    const ids = [...new Set(listed.map((server) => server.mcp_integration_id))]
    const found = yield* Effect.forEach(ids, (id) => integrations.get(id), { concurrency: 8 })
    const byId = new Map(found.flatMap((integration) => Option.toArray(integration)).map((i) => [i.id, i]))
    return listed.map((server) => {
      const integration = byId.get(server.mcp_integration_id)
      return integration === undefined ? server : withStatusOf(server, integration)
    })
  })

  // The gateway reads servers far more often than anyone changes them: the authenticated read path.
  const serverSpan = hotPathSpan("McpRegistry.getServer")
  const getServer = (principal: Principal, idOrSlug: string, workspaceId: string | undefined) =>
    serverSpan(Effect.clockWith((clock) => {
      // Slugs are looked up in the named workspace, else the key's own; a workspace the key cannot reach hides.
      const scope = workspaceId ?? principal.workspaceId
      const now = clock.currentTimeMillisUnsafe()
      const cacheKey = `${scope ?? "*"}/${idOrSlug}`
      const cached = resolvedServers.get(cacheKey, now)
      const startedAt = generation
      const resolved = cached !== undefined
        ? Effect.succeed(cached)
        : Effect.tap(findServer(idOrSlug, scope), (r) =>
          Effect.sync(() => {
            if (generation === startedAt) resolvedServers.set(cacheKey, r, now)
          }))
      return Effect.flatMap(resolved, ({ integration, server }) =>
        Effect.as(
          Effect.andThen(
            ensureAllowed(
              principal,
              "mcp_servers.read",
              Target.workspace(server.organisation_id, server.workspace_id),
              {
                type: "MCP server",
                id: idOrSlug
              }
            ),
            ensurePersonMayUseServer(servers, principal, server)
          ),
          {
            server,
            integration,
            // An integration no longer open to the server's workspace is not the workspace's to read.
            showIntegrationDetails: seesIntegrationDetails(principal) && usableBy(integration, server.workspace_id)
          }
        ))
    }))

  const listServers = Effect.fn("McpRegistry.listServers")(
    function*(
      principal: Principal,
      workspaceId: string | undefined,
      search: string | undefined,
      page: PageRequest,
      ids?: ReadonlyArray<string>
    ) {
      const scope = yield* ensureListScope(workspaces, principal, workspaceId, "mcp_servers.list")
      // Portkey's `id` filter keeps only these servers of those the list covers; the store applies it.
      const listed = yield* servers.list(principal.organisationId, scope, search?.trim() || null, page, ids)
      return { items: yield* withStatuses(listed.items), total: listed.total }
    }
  )

  /** A server to change: by id, or by slug in the key's workspace (or `workspaceId`'s), with the policy's leave. */
  const changing = <A extends "mcp_servers.update" | "mcp_servers.delete">(
    principal: Principal,
    idOrSlug: string,
    action: A
  ) =>
    Effect.gen(function*() {
      const scope = principal.workspaceId
      const byId = yield* servers.get(idOrSlug)
      const found = Option.isSome(byId) || scope === null ? byId : yield* servers.findBySlug(scope, idOrSlug)
      const server = yield* requireRow(found, "MCP server", idOrSlug)
      const allowed = yield* ensureAllowed(principal, action, Target.of(server), { type: "MCP server", id: idOrSlug })
      return { server, allowed }
    })

  const updateServer = Effect.fn("McpRegistry.updateServer")(
    function*(principal: Principal, idOrSlug: string, input: ServerUpdateInput) {
      const { allowed, server } = yield* changing(principal, idOrSlug, "mcp_servers.update")
      if (input.name !== undefined) yield* checkName(input.name)
      yield* checkLength(input.description ?? undefined, "description", 0, 500)
      const updated = new McpServer({
        ...server,
        name: input.name?.trim() ?? server.name,
        description: input.description === undefined ? server.description : input.description
      })
      // Gone meanwhile (deleted by another call): not found, as a read after it would say.
      if (!(yield* servers.update(allowed, updated))) {
        yield* requireRow(yield* servers.get(server.id), "MCP server", idOrSlug)
      }
      // Server reads cache what a slug resolved to, by integration: they read it again.
      yield* integrationChanged(server.mcp_integration_id)
      return updated
    }
  )

  const deleteServer = Effect.fn("McpRegistry.deleteServer")(function*(principal: Principal, idOrSlug: string) {
    const { allowed, server } = yield* changing(principal, idOrSlug, "mcp_servers.delete")
    if (!(yield* servers.delete(allowed, server.id))) {
      yield* requireRow(yield* servers.get(server.id), "MCP server", idOrSlug)
    }
    yield* integrationChanged(server.mcp_integration_id)
    return server
  })

  return { createServer, getServer, listServers, updateServer, deleteServer, integrationChanged }
})
