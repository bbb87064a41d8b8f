/**
 * The MCP registry as a principal uses it: integrations at organisation or workspace level
 * (McpIntegrations.ts), and servers, a workspace's instances of them (McpServers.ts).
 */
import { Context, Effect, Layer } from "effect"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase, resourceChange } from "../audit/AuditedUseCase.ts"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { McpIntegration, McpServer, McpUserAccessDefault } from "./Mcp.ts"
import {
  type Failure,
  type IntegrationInput,
  type IntegrationListRequest,
  type IntegrationView,
  type IntegrationWorkspace,
  type IntegrationWorkspacesInput,
  makeIntegrations
} from "./McpIntegrations.ts"
import { makeServers, type ServerInput, type ServerUpdateInput, type ServerView } from "./McpServers.ts"
import {
  makeUserAccess,
  type UpdateMcpServerUserAccessInput,
  type UserAccessEntry,
  type UserAccessListRequest
} from "./McpUserAccess.ts"

export type {
  IntegrationInput,
  IntegrationListRequest,
  IntegrationView,
  IntegrationWorkspace,
  IntegrationWorkspacesInput
} from "./McpIntegrations.ts"
export { SERVER_CACHE_TTL_MS, type ServerInput, type ServerUpdateInput, type ServerView } from "./McpServers.ts"
export {
  UpdateMcpServerUserAccess,
  type UpdateMcpServerUserAccessInput,
  type UserAccessEntry,
  type UserAccessListRequest
} from "./McpUserAccess.ts"

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
    /** Every workspace of the organisation the caller sees, and whether the integration is open to it. */
    readonly integrationWorkspaces: (
      principal: Principal,
      id: string
    ) => Effect.Effect<
      { readonly integration: McpIntegration; readonly workspaces: ReadonlyArray<IntegrationWorkspace> },
      Failure
    >
    /** Portkey's workspaces change: the update use case, of `workspace_ids` and `global_workspace_access`. */
    readonly setIntegrationWorkspaces: (
      principal: Principal,
      id: string,
      change: IntegrationWorkspacesInput
    ) => Effect.Effect<McpIntegration, Failure>
    readonly createServer: (principal: Principal, input: ServerInput) => Effect.Effect<McpServer, Failure | Conflict>
    readonly updateServer: (
      principal: Principal,
      idOrSlug: string,
      input: ServerUpdateInput
    ) => Effect.Effect<McpServer, Failure>
    readonly deleteServer: (principal: Principal, idOrSlug: string) => Effect.Effect<McpServer, Failure>
    readonly getServer: (
      principal: Principal,
      idOrSlug: string,
      workspaceId: string | undefined
    ) => Effect.Effect<ServerView, Failure>
    /** `ids`: only these servers (Portkey's comma-separated `id` filter). */
    readonly listServers: (
      principal: Principal,
      workspaceId: string | undefined,
      search: string | undefined,
      page: PageRequest,
      ids?: ReadonlyArray<string>
    ) => Effect.Effect<Page<McpServer>, Failure>
    /** Who may use the server (Portkey's user access): every member of its workspace, and the default. */
    readonly listServerUserAccess: (
      principal: Principal,
      idOrSlug: string,
      request: UserAccessListRequest,
      page: PageRequest
    ) => Effect.Effect<
      { readonly default_user_access: McpUserAccessDefault; readonly page: Page<UserAccessEntry> },
      Failure
    >
    /** Sets users' overrides (all or none) and the server's default: a manager's change, audited. */
    readonly updateServerUserAccess: (
      principal: Principal,
      idOrSlug: string,
      input: UpdateMcpServerUserAccessInput
    ) => Effect.Effect<McpServer, Failure>
    /** Whether the calling key's person may use the server. */
    readonly checkServerUserAccess: (
      principal: Principal,
      idOrSlug: string,
      workspaceId?: string
    ) => Effect.Effect<
      {
        readonly server: McpServer
        readonly user_id: string | null
        readonly enabled: boolean
        readonly has_override: boolean
        readonly default_user_access: McpUserAccessDefault
      },
      Failure
    >
    /** The people connected to the server (derived: see McpUserAccess.ts). */
    readonly listServerConnections: (
      principal: Principal,
      idOrSlug: string,
      request: UserAccessListRequest,
      page: PageRequest
    ) => Effect.Effect<Page<UserAccessEntry>, Failure>
  }
>()("@gateway-control/McpRegistry") {
  static readonly layer = Layer.effect(
    McpRegistry,
    Effect.gen(function*() {
      const { integrationChanged, ...servers } = yield* makeServers
      const integrations = yield* makeIntegrations(integrationChanged)
      const userAccess = yield* makeUserAccess
      const useCases = yield* AuditedUseCase
      return McpRegistry.of({
        ...integrations,
        ...servers,
        ...userAccess,
        updateServerUserAccess: (principal, idOrSlug, input) =>
          useCases.run(
            resourceChange("mcpRegistry.updateServerUserAccess", principal, input, idOrSlug),
            userAccess.updateServerUserAccess(principal, idOrSlug, input)
          ),
        createIntegration: (principal, input) =>
          useCases.run(
            resourceChange("mcpRegistry.createIntegration", principal, input),
            integrations.createIntegration(principal, input)
          ),
        updateIntegration: (principal, id, input) =>
          useCases.run(
            resourceChange("mcpRegistry.updateIntegration", principal, input, id),
            integrations.updateIntegration(principal, id, input)
          ),
        archiveIntegration: (principal, id) =>
          useCases.run(
            resourceChange("mcpRegistry.archiveIntegration", principal, null, id),
            integrations.archiveIntegration(principal, id)
          ),
        setIntegrationWorkspaces: (principal, id, change) =>
          useCases.run(
            resourceChange("mcpRegistry.updateIntegration", principal, change, id),
            integrations.setIntegrationWorkspaces(principal, id, change)
          ),
        updateServer: (principal, idOrSlug, input) =>
          useCases.run(
            resourceChange("mcpRegistry.updateServer", principal, input, idOrSlug),
            servers.updateServer(principal, idOrSlug, input)
          ),
        deleteServer: (principal, idOrSlug) =>
          useCases.run(
            resourceChange("mcpRegistry.deleteServer", principal, null, idOrSlug),
            servers.deleteServer(principal, idOrSlug)
          ),
        createServer: (principal, input) =>
          useCases.run(
            resourceChange("mcpRegistry.createServer", principal, input),
            servers.createServer(principal, input)
          )
      })
    })
  )
}
