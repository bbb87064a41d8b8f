/**
 * What the registry does with live MCP servers for a principal: test a server (initialize and ping), sync an
 * integration's capabilities from its server, list them, and turn them on and off. Every connection goes
 * through `makeEndpointOf` (the address guard, headers and secrets); no unit of work stays open while a server
 * is called, so a slow server holds no database connection.
 */
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase, type UseCaseSpec } from "../audit/AuditedUseCase.ts"
import type { UseCaseName } from "../audit/UseCases.ts"
import { type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { StoreTransaction } from "../shared/StoreTransaction.ts"
import { refuseUnsupported } from "../shared/Unsupported.ts"
import {
  capabilityKey,
  type CapabilityQuery,
  type CapabilityToggle,
  type McpCapability,
  McpCapabilityStore,
  syncedCapabilities,
  unknownToggle
} from "./Capabilities.ts"
import {
  ensureServerMayUse,
  integrationTarget,
  type McpIntegration,
  McpIntegrationStore,
  type McpServer,
  McpServerStore
} from "./Mcp.ts"
import { type CapabilityType, type McpCallError, upstreamConnections } from "./McpConnections.ts"
import { makeEndpointOf } from "./McpEndpoints.ts"
import { PUSHED_SYNC_FIELDS, type SyncInput } from "./McpInputs.ts"
import { findIntegrationIn, managedIn } from "./McpIntegrations.ts"
import { ensurePersonMayUseServer } from "./McpUserAccess.ts"

/** The answer of a server test: whether `initialize` and `ping` succeeded, and how long they took. */
export const ServerTestResult = Schema.Struct({
  success: Schema.Boolean,
  /** The HTTP status the server answered with: the connection's on success, the failing one's otherwise; null when none came. */
  status_code: Schema.NullOr(Schema.Int),
  response_time_ms: Schema.Int,
  error: Schema.NullOr(Schema.String)
})
export type ServerTestResult = typeof ServerTestResult.Type

export const SyncResult = Schema.Struct({
  synced_at: Schema.String,
  total: Schema.Int,
  /** Capabilities seen for the first time. */
  added: Schema.Int,
  /** Capabilities the server no longer lists. */
  removed: Schema.Int
})
export type SyncResult = typeof SyncResult.Type

/**
 * A sync whose server has answered: `commit` stores what it listed, in the use case's unit of work (with its
 * audit record) after the network call, not around it.
 */
interface PreparedSync {
  readonly integration: McpIntegration
  readonly commit: Effect.Effect<SyncResult, StoreError>
}

type Failure = InvalidRequest | Forbidden | NotFound | StoreError

/**
 * What the last sync of an integration found (Portkey's integration metadata), from its stored capabilities:
 * when it ran, and which kinds of capability the server listed. The server's name and version are not kept.
 */
export const IntegrationMetadata = Schema.Struct({
  sync_status: Schema.Literals(["synced", "pending"]),
  last_synced_at: Schema.NullOr(Schema.String),
  capability_flags: Schema.NullOr(Schema.Struct({
    tools: Schema.Boolean,
    prompts: Schema.Boolean,
    resources: Schema.Boolean,
    resource_templates: Schema.Boolean
  }))
})
export type IntegrationMetadata = typeof IntegrationMetadata.Type

/** The metadata of stored capabilities: `pending` until a sync stored any. Pure. */
export const metadataOf = (stored: ReadonlyArray<McpCapability>): IntegrationMetadata => {
  if (stored.length === 0) return { sync_status: "pending", last_synced_at: null, capability_flags: null }
  const has = (type: CapabilityType) => stored.some((capability) => capability.type === type)
  return {
    sync_status: "synced",
    last_synced_at: stored.map((capability) => capability.synced_at).reduce((a, b) => (a > b ? a : b)),
    capability_flags: {
      tools: has("tool"),
      prompts: has("prompt"),
      resources: has("resource"),
      resource_templates: has("resource_template")
    }
  }
}

/**
 * How each use case here is recorded: under the integration or server its result holds (`key`), in that one's
 * workspace, with the reference the call named for a call that fails before it finds one.
 */
const recordedUnder = <
  K extends "integration" | "server",
  A extends { readonly [P in K]: { readonly id: string; readonly workspace_id: string | null } }
>(
  key: K,
  useCase: UseCaseName,
  principal: Principal,
  idOrSlug: string,
  body: unknown
): UseCaseSpec<A> => ({
  useCase,
  actor: principal,
  resourceId: (result) => result[key].id,
  workspaceId: (result) => result[key].workspace_id,
  requestedId: idOrSlug,
  body
})

export class McpConnectivity extends Context.Service<
  McpConnectivity,
  {
    readonly testServer: (
      principal: Principal,
      idOrSlug: string
    ) => Effect.Effect<{ readonly server: McpServer; readonly result: ServerTestResult }, Failure>
    /** Connects to the integration's own server (initialize, then ping), as its managers may. */
    readonly testIntegration: (
      principal: Principal,
      idOrSlug: string
    ) => Effect.Effect<{ readonly integration: McpIntegration; readonly result: ServerTestResult }, Failure>
    readonly integrationMetadata: (
      principal: Principal,
      idOrSlug: string
    ) => Effect.Effect<IntegrationMetadata, Failure>
    /** The capabilities of a server's integration, read through the server (its readers, while it may use it). */
    readonly serverCapabilities: (
      principal: Principal,
      serverIdOrSlug: string,
      query: { readonly type: CapabilityType | undefined; readonly search: string | undefined },
      page: PageRequest
    ) => Effect.Effect<Page<McpCapability>, Failure>
    /** Lists the server's capabilities, then stores them: the call first, in no unit of work. */
    readonly syncCapabilities: (
      principal: Principal,
      idOrSlug: string,
      input?: SyncInput
    ) => Effect.Effect<{ readonly integration: McpIntegration; readonly result: SyncResult }, Failure | McpCallError>
    readonly listCapabilities: (
      principal: Principal,
      idOrSlug: string,
      query: { readonly type: CapabilityType | undefined; readonly search: string | undefined },
      page: PageRequest
    ) => Effect.Effect<Page<McpCapability>, Failure>
    readonly setCapabilities: (
      principal: Principal,
      idOrSlug: string,
      toggles: ReadonlyArray<CapabilityToggle>
    ) => Effect.Effect<
      { readonly integration: McpIntegration; readonly capabilities: ReadonlyArray<McpCapability> },
      Failure
    >
  }
>()("@gateway-control/McpConnectivity") {
  static readonly layer = Layer.effect(
    McpConnectivity,
    Effect.gen(function*() {
      const integrations = yield* McpIntegrationStore
      const servers = yield* McpServerStore
      const capabilities = grantedWrites(yield* McpCapabilityStore, {
        replace: ["mcp_integrations.update.organisation", "mcp_integrations.update.workspace"],
        setEnabled: ["mcp_integrations.update.organisation", "mcp_integrations.update.workspace"]
      })
      const connections = yield* upstreamConnections
      const transaction = yield* StoreTransaction
      const endpointOf = yield* makeEndpointOf
      const findIntegration = findIntegrationIn(integrations)

      /** An integration a call may connect to: archived ones are out of use. */
      const inUse = (integration: McpIntegration) =>
        integration.status === "archived"
          ? Effect.fail(InvalidRequest.of(`The MCP integration '${integration.slug}' is archived.`, null))
          : Effect.void

      const managed = managedIn(integrations)

      /** Capability changes of one integration, one at a time across processes: a sync must not undo a toggle. */
      const exclusively = <A, E>(integrationId: string, effect: Effect.Effect<A, E>) =>
        transaction.withTransaction(Effect.andThen(transaction.lock(`mcp-capabilities:${integrationId}`), effect))

      /** `initialize` then `ping` against an integration in use, timed; a failure is an answer, not an error. */
      const probeOf = Effect.fnUntraced(function*(integration: McpIntegration) {
        yield* inUse(integration)
        const endpoint = yield* endpointOf(integration)
        const started = yield* Clock.currentTimeMillis
        const outcome = yield* Effect.result(connections.probe(endpoint))
        const responseTimeMs = Math.max(0, Math.round((yield* Clock.currentTimeMillis) - started))
        const result: ServerTestResult = outcome._tag === "Success"
          ? { success: true, status_code: outcome.success.statusCode, response_time_ms: responseTimeMs, error: null }
          : {
            success: false,
            status_code: outcome.failure._tag === "McpUnreachable" ? outcome.failure.statusCode : null,
            response_time_ms: responseTimeMs,
            error: outcome.failure.message
          }
        return result
      })

      const testServer = Effect.fn("McpConnectivity.testServer")(function*(principal: Principal, idOrSlug: string) {
        // A slug is looked up in the key's own workspace; an admin key names servers by id.
        const slugScope = principal.workspaceId
        const byId = yield* servers.get(idOrSlug)
        const found = Option.isSome(byId) || slugScope === null ? byId : yield* servers.findBySlug(slugScope, idOrSlug)
        const server = yield* requireRow(found, "MCP server", idOrSlug)
        yield* ensureAllowed(principal, "mcp_servers.test", Target.of(server), { type: "MCP server", id: idOrSlug })
        yield* ensurePersonMayUseServer(servers, principal, server)
        const integration = yield* requireRow(
          yield* integrations.get(server.mcp_integration_id),
          "MCP integration",
          server.mcp_integration_id
        )
        // The gateway would connect with the integration's headers: only while the server's workspace may use it.
        yield* ensureServerMayUse(server, integration)
        return { server, result: yield* probeOf(integration) }
      })

      const testIntegration = Effect.fn("McpConnectivity.testIntegration")(
        function*(principal: Principal, idOrSlug: string) {
          const { integration } = yield* managed(principal, idOrSlug)
          return { integration, result: yield* probeOf(integration) }
        }
      )

      const integrationMetadata = Effect.fn("McpConnectivity.integrationMetadata")(
        function*(principal: Principal, idOrSlug: string) {
          const integration = yield* findIntegration(principal, idOrSlug)
          yield* ensureAllowed(principal, "mcp_integrations.read", integrationTarget(integration), {
            type: "MCP integration",
            id: idOrSlug
          })
          return metadataOf(yield* capabilities.all(integration.id))
        }
      )

      const serverCapabilities = Effect.fn("McpConnectivity.serverCapabilities")(function*(
        principal: Principal,
        serverIdOrSlug: string,
        query: { readonly type: CapabilityType | undefined; readonly search: string | undefined },
        page: PageRequest
      ) {
        const slugScope = principal.workspaceId
        const byId = yield* servers.get(serverIdOrSlug)
        const found = Option.isSome(byId) || slugScope === null
          ? byId
          : yield* servers.findBySlug(slugScope, serverIdOrSlug)
        const server = yield* requireRow(found, "MCP server", serverIdOrSlug)
        yield* ensureAllowed(principal, "mcp_servers.read", Target.of(server), {
          type: "MCP server",
          id: serverIdOrSlug
        })
        yield* ensurePersonMayUseServer(servers, principal, server)
        const integration = yield* requireRow(
          yield* integrations.get(server.mcp_integration_id),
          "MCP integration",
          server.mcp_integration_id
        )
        yield* ensureServerMayUse(server, integration)
        return yield* capabilities.list({
          integrationId: integration.id,
          type: query.type ?? null,
          search: query.search?.trim() || null
        }, page)
      })

      const prepareSync = Effect.fn("McpConnectivity.prepareSync")(function*(
        principal: Principal,
        idOrSlug: string,
        input: SyncInput
      ) {
        const { allowed, integration } = yield* managed(principal, idOrSlug)
        yield* refuseUnsupported(
          input,
          PUSHED_SYNC_FIELDS,
          "a sync lists the capabilities from the MCP server itself; nothing pushed to it is stored."
        )
        yield* inUse(integration)
        const discovered = yield* connections.listCapabilities(yield* endpointOf(integration))
        const commit = exclusively(
          integration.id,
          Effect.gen(function*() {
            const previous = yield* capabilities.all(integration.id)
            const syncedAt = yield* nowIso
            const synced = syncedCapabilities(
              integration.id,
              previous,
              discovered,
              integration.new_capabilities_enabled,
              syncedAt
            )
            yield* capabilities.replace(allowed, integration.id, synced.capabilities)
            const result: SyncResult = {
              synced_at: syncedAt,
              total: synced.capabilities.length,
              added: synced.added,
              removed: synced.removed
            }
            return result
          })
        )
        return { integration, commit } satisfies PreparedSync
      })

      const listCapabilities = Effect.fn("McpConnectivity.listCapabilities")(function*(
        principal: Principal,
        idOrSlug: string,
        query: { readonly type: CapabilityType | undefined; readonly search: string | undefined },
        page: PageRequest
      ) {
        const integration = yield* findIntegration(principal, idOrSlug)
        yield* ensureAllowed(principal, "mcp_integrations.read", integrationTarget(integration), {
          type: "MCP integration",
          id: idOrSlug
        })
        const request: CapabilityQuery = {
          integrationId: integration.id,
          type: query.type ?? null,
          search: query.search?.trim() || null
        }
        return yield* capabilities.list(request, page)
      })

      const setCapabilities = Effect.fn("McpConnectivity.setCapabilities")(function*(
        principal: Principal,
        idOrSlug: string,
        toggles: ReadonlyArray<CapabilityToggle>
      ) {
        const { allowed, integration } = yield* managed(principal, idOrSlug)
        return yield* exclusively(
          integration.id,
          Effect.gen(function*() {
            const unknown = unknownToggle(yield* capabilities.all(integration.id), toggles)
            if (unknown !== undefined) {
              return yield* InvalidRequest.of(
                `The integration has no ${unknown.toggle.type} '${unknown.toggle.name}'; sync its capabilities first.`,
                `capabilities[${unknown.index}]`
              )
            }
            yield* capabilities.setEnabled(allowed, integration.id, toggles)
            const named = new Set(toggles.map(capabilityKey))
            const after = yield* capabilities.all(integration.id)
            return { integration, capabilities: after.filter((c) => named.has(capabilityKey(c))) }
          })
        )
      })

      const useCases = yield* AuditedUseCase
      return McpConnectivity.of({
        // The server is called outside any unit of work; the record of the test follows it.
        testServer: (principal, idOrSlug) =>
          useCases.runSteps(
            recordedUnder("server", "mcpConnectivity.testServer", principal, idOrSlug, null),
            testServer(principal, idOrSlug),
            Effect.succeed
          ),
        syncCapabilities: (principal, idOrSlug, input = {}) =>
          useCases.runSteps(
            recordedUnder(
              "integration",
              "mcpConnectivity.syncCapabilities",
              principal,
              idOrSlug,
              Object.keys(input).length === 0 ? null : input
            ),
            prepareSync(principal, idOrSlug, input),
            ({ commit, integration }) => Effect.map(commit, (result) => ({ integration, result }))
          ),
        testIntegration: (principal, idOrSlug) =>
          useCases.runSteps(
            recordedUnder("integration", "mcpConnectivity.testIntegration", principal, idOrSlug, null),
            testIntegration(principal, idOrSlug),
            Effect.succeed
          ),
        integrationMetadata,
        serverCapabilities,
        listCapabilities,
        setCapabilities: (principal, idOrSlug, toggles) =>
          useCases.run(
            recordedUnder("integration", "mcpConnectivity.setCapabilities", principal, idOrSlug, {
              capabilities: toggles
            }),
            setCapabilities(principal, idOrSlug, toggles)
          )
      })
    })
  )
}
