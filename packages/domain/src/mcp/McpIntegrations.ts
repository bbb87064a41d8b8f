/**
 * MCP integrations as a principal uses them: created at organisation or workspace level, updated, archived,
 * read and listed. Who may do what, and who sees which integration, is the policy's (access/Policy.ts): an
 * integration is a workspace-level target, or an organisation-level one open to the workspaces it names.
 */
import { Effect, Option } from "effect"
import { slugify } from "../access/AccessModel.ts"
import type { Workspace } from "../access/AccessModel.ts"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { canSee, ensureAllowed, isAdminKey, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { HTTP_URL_PROBLEMS, parseHttpUrl } from "../shared/HttpUrl.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName, checkSlug } from "../shared/Rules.ts"
import { secretBoundWrites } from "../shared/StoredSecretBinding.ts"
import type { StoreError } from "../shared/StoreError.ts"
import {
  type IntegrationQuery,
  integrationTarget,
  maskedConfigurations,
  MCP_INTEGRATION_SECRETS,
  MCP_INTEGRATION_SLUG,
  McpIntegration,
  McpIntegrationStore,
  mergeConfigurations,
  normalisedConfigurations,
  SECRET_MAPPINGS_FIELD
} from "./Mcp.ts"
import type { IntegrationInput, IntegrationWorkspacesInput } from "./McpInputs.ts"

export type { IntegrationInput, IntegrationWorkspacesInput } from "./McpInputs.ts"

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

export type Failure = InvalidRequest | Forbidden | NotFound | StoreError

/** A workspace and whether an integration is open to it (Portkey's integration workspaces). */
export interface IntegrationWorkspace {
  readonly workspace: Workspace
  readonly enabled: boolean
}

/**
 * The update that Portkey's workspaces change of an organisation-level integration asks for: the named
 * workspaces on or off (the others kept, or off with `override_existing_workspace_access`), and the global
 * access when given. A workspace-level integration is open to its own workspace only (400). Pure.
 */
export const workspacesChange = (
  current: McpIntegration,
  change: IntegrationWorkspacesInput
): IntegrationInput | InvalidRequest => {
  if (current.workspace_id !== null) {
    return InvalidRequest.of(
      "Workspaces apply to organisation-level integrations only: this one belongs to one workspace.",
      "workspaces"
    )
  }
  const open = new Set(change.override_existing_workspace_access === true ? [] : current.workspace_ids)
  for (const { enabled, id } of change.workspaces) {
    if (enabled) open.add(id)
    else open.delete(id)
  }
  return {
    workspace_ids: [...open],
    global_workspace_access: change.global_workspace_access?.enabled ?? current.global_workspace_access
  }
}

/** An integration as reads show it: its secrets are write-only. */
export const readable = (integration: McpIntegration) =>
  new McpIntegration({ ...integration, configurations: maskedConfigurations(integration.configurations) })

/** The action that changes the integration: organisation-level ones are for owners and admins. */
export const updateActionOf = (integration: McpIntegration) =>
  integration.workspace_id === null
    ? "mcp_integrations.update.organisation" as const
    : "mcp_integrations.update.workspace" as const

/** Finds an integration by id, or by slug within the principal's organisation; whether it may be seen is the policy's. */
export const findIntegrationIn = (integrations: Pick<McpIntegrationStore["Service"], "get" | "findBySlug">) =>
  Effect.fnUntraced(function*(principal: Principal, idOrSlug: string) {
    const byId = yield* integrations.get(idOrSlug)
    const found = Option.isSome(byId) ? byId : yield* integrations.findBySlug(principal.organisationId, idOrSlug)
    return yield* requireRow(found, "MCP integration", idOrSlug)
  })

/**
 * The integration, and the policy's leave to change it (its capabilities are part of it): organisation-level
 * ones are for owners and admins.
 */
export const managedIn = (integrations: Pick<McpIntegrationStore["Service"], "get" | "findBySlug">) => {
  const find = findIntegrationIn(integrations)
  return Effect.fnUntraced(function*(principal: Principal, idOrSlug: string) {
    const integration = yield* find(principal, idOrSlug)
    const allowed = yield* ensureAllowed(principal, updateActionOf(integration), integrationTarget(integration), {
      type: "MCP integration",
      id: idOrSlug
    })
    return { integration, allowed }
  })
}

const checkUrl = (url: string) => {
  const parsed = parseHttpUrl(url)
  if (parsed instanceof URL) return Effect.void
  const hint = parsed === "credentials" ? "; use secret_mappings" : ""
  return Effect.fail(InvalidRequest.of(`url ${HTTP_URL_PROBLEMS[parsed]}${hint}.`, "url"))
}

export const checkLength = (value: string | undefined, param: string, min: number, max: number) =>
  value !== undefined && (value.trim().length < min || value.length > max)
    ? Effect.fail(InvalidRequest.of(`${param} must be ${min} to ${max} characters.`, param))
    : Effect.void

/** The integration operations; `integrationChanged` clears what server reads cached of an integration. */
export const makeIntegrations = (integrationChanged: (integrationId: string) => Effect.Effect<void, StoreError>) =>
  Effect.gen(function*() {
    // Updates go through the rule of stored secrets: header values and secret mappings stay with the URL.
    const integrations = secretBoundWrites(
      grantedWrites(yield* McpIntegrationStore, {
        insert: ["mcp_integrations.create.organisation", "mcp_integrations.create.workspace"],
        update: ["mcp_integrations.update.organisation", "mcp_integrations.update.workspace"],
        setStatus: ["mcp_integrations.update.organisation", "mcp_integrations.update.workspace"]
      }),
      MCP_INTEGRATION_SECRETS
    )
    const workspaces = yield* WorkspaceStore
    const crypto = yield* PlatformCrypto

    /** An update, which server reads may have cached. */
    const save: typeof integrations.update = (allowed, update) =>
      Effect.andThen(integrations.update(allowed, update), integrationChanged(update.updated.id))

    const organisationWorkspaces = (organisationId: string) =>
      Effect.map(workspaces.list(organisationId, { limit: 1, offset: 0 }), (page) => page.total)

    const countFor = (integration: McpIntegration, total: number) =>
      integration.workspace_id !== null
        ? 1
        : integration.global_workspace_access
        ? total
        : integration.workspace_ids.length

    /** The workspaces an organisation-level integration is to be open to: each must be one the key can see. */
    const checkWorkspaceIds = Effect.fnUntraced(function*(principal: Principal, ids: ReadonlyArray<string>) {
      for (const [i, id] of ids.entries()) {
        const workspace = yield* workspaces.get(id)
        if (Option.isNone(workspace) || !canSee(principal, Target.workspace(workspace.value.organisation_id, id))) {
          return yield* InvalidRequest.of(`No workspace '${id}' in this organisation.`, `workspace_ids[${i}]`)
        }
      }
      return [...new Set(ids)]
    })

    const createIntegration = Effect.fn("McpRegistry.createIntegration")(
      function*(principal: Principal, input: IntegrationInput) {
        // A workspace key can only create in its own workspace, so it may leave workspace_id out.
        const workspaceId = input.workspace_id ?? principal.workspaceId ?? undefined
        const workspace = workspaceId === undefined
          ? null
          : yield* requireRow(yield* workspaces.get(workspaceId), "workspace", workspaceId)
        const organisationId = input.organisation_id ?? principal.organisationId
        const allowed = workspace === null
          ? yield* ensureAllowed(
            principal,
            "mcp_integrations.create.organisation",
            Target.organisation(organisationId),
            {
              type: "organisation",
              id: organisationId
            }
          )
          : yield* ensureAllowed(
            principal,
            "mcp_integrations.create.workspace",
            Target.workspace(workspace.organisation_id, workspace.id),
            { type: "workspace", id: workspace.id }
          )
        if (input.name === undefined) return yield* InvalidRequest.of("name is required.", "name")
        if (input.url === undefined) return yield* InvalidRequest.of("url is required.", "url")
        if (input.auth_type === undefined) return yield* InvalidRequest.of("auth_type is required.", "auth_type")
        if (input.transport === undefined) return yield* InvalidRequest.of("transport is required.", "transport")
        yield* checkName(input.name)
        yield* checkLength(input.description, "description", 0, 2000)
        yield* checkUrl(input.url)
        const configurations = input.configurations === undefined
          ? {}
          : normalisedConfigurations(input.configurations)
        if (configurations instanceof InvalidRequest) return yield* configurations
        const slug = input.slug ?? slugify(input.name)
        yield* checkSlug(slug, MCP_INTEGRATION_SLUG)
        if (workspace !== null && (input.workspace_ids !== undefined || input.global_workspace_access !== undefined)) {
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
          configurations,
          auth_type: input.auth_type,
          transport: input.transport,
          global_workspace_access: workspace === null ? (input.global_workspace_access ?? true) : false,
          workspace_ids: yield* checkWorkspaceIds(principal, input.workspace_ids ?? []),
          secret_mappings: [...(input.secret_mappings ?? [])],
          new_capabilities_enabled: input.new_capabilities_enabled ?? true,
          status_message: null,
          status_changed_at: now,
          consecutive_failures: 0,
          created_at: now,
          last_updated_at: now
        })
        yield* integrations.insert(allowed, integration)
        return integration
      }
    )

    const findIntegration = findIntegrationIn(integrations)
    const managed = managedIn(integrations)

    const updateIntegration = Effect.fn("McpRegistry.updateIntegration")(
      function*(principal: Principal, id: string, input: IntegrationInput) {
        const { allowed, integration: current } = yield* managed(principal, id)
        if (input.name !== undefined) yield* checkName(input.name)
        if (input.url !== undefined) yield* checkUrl(input.url)
        const incoming = input.configurations === undefined
          ? undefined
          : normalisedConfigurations(input.configurations)
        if (incoming instanceof InvalidRequest) return yield* incoming
        const configurations = incoming === undefined
          ? undefined
          : mergeConfigurations(current.configurations, incoming)
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
          configurations: configurations?.configurations ?? current.configurations,
          auth_type: input.auth_type ?? current.auth_type,
          transport: input.transport ?? current.transport,
          global_workspace_access: input.global_workspace_access ?? current.global_workspace_access,
          workspace_ids: input.workspace_ids === undefined
            ? current.workspace_ids
            : yield* checkWorkspaceIds(principal, input.workspace_ids),
          secret_mappings: input.secret_mappings === undefined ? current.secret_mappings : [...input.secret_mappings],
          new_capabilities_enabled: input.new_capabilities_enabled ?? current.new_capabilities_enabled,
          last_updated_at: yield* nowIso
        })
        // What the request gives again in clear may follow a new url; anything kept from the store may not.
        const supplied = [
          ...(configurations?.supplied ?? []),
          ...(input.secret_mappings === undefined ? [] : [SECRET_MAPPINGS_FIELD])
        ]
        yield* save(allowed, { current, updated, supplied })
        return updated
      }
    )

    const archiveIntegration = Effect.fn("McpRegistry.archiveIntegration")(
      function*(principal: Principal, id: string) {
        const { allowed, integration: current } = yield* managed(principal, id)
        const now = yield* nowIso
        const archived = new McpIntegration({
          ...current,
          status: "archived",
          status_message: null,
          status_changed_at: now,
          consecutive_failures: 0,
          last_updated_at: now
        })
        yield* integrations.update(allowed, { current, updated: archived, supplied: [] })
        yield* integrations.setStatus(allowed, archived.id, archived)
        yield* integrationChanged(archived.id)
        return archived
      }
    )

    const getIntegration = Effect.fn("McpRegistry.getIntegration")(function*(principal: Principal, id: string) {
      const integration = yield* findIntegration(principal, id)
      yield* ensureAllowed(principal, "mcp_integrations.read", integrationTarget(integration), {
        type: "MCP integration",
        id
      })
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
        const organisationId = request.organisationId ?? principal.organisationId
        yield* ensureAllowed(principal, "mcp_integrations.list", Target.organisation(organisationId), {
          type: "organisation",
          id: organisationId
        })
        // A workspace's list shows what that workspace may use; without one, an admin key's shows the whole
        // catalogue, which no workspace key sees.
        const usable = request.workspaceId ?? principal.workspaceId
        const workspace = usable === null ? null : yield* requireRow(yield* workspaces.get(usable), "workspace", usable)
        yield* ensureAllowed(
          principal,
          "mcp_integrations.list",
          workspace === null
            ? Target.shared(organisationId, [])
            : Target.workspace(workspace.organisation_id, workspace.id),
          { type: "workspace", id: usable ?? organisationId }
        )
        const listed = yield* integrations.list({
          organisationId,
          usableBy: usable,
          level: request.type,
          status: request.status,
          search: request.search?.trim() || null
        }, page)
        const total = yield* organisationWorkspaces(organisationId)
        return {
          items: listed.items.map((integration) => ({
            integration: readable(integration),
            workspacesCount: countFor(integration, total)
          })),
          total: listed.total
        }
      }
    )

    /** Every workspace of the integration's organisation the caller sees, and whether the integration is open to it. */
    const integrationWorkspaces = Effect.fn("McpRegistry.integrationWorkspaces")(
      function*(principal: Principal, id: string) {
        const integration = yield* findIntegration(principal, id)
        yield* ensureAllowed(principal, "mcp_integrations.read", integrationTarget(integration), {
          type: "MCP integration",
          id
        })
        const all: Array<Workspace> = []
        for (let offset = 0;; offset += 100) {
          const page = yield* workspaces.list(integration.organisation_id, { limit: 100, offset })
          all.push(...page.items)
          if (page.items.length < 100 || all.length >= page.total) break
        }
        const listed: ReadonlyArray<IntegrationWorkspace> = all
          .filter((workspace) => canSee(principal, Target.workspace(workspace.organisation_id, workspace.id)))
          .map((workspace) => ({
            workspace,
            enabled: integration.workspace_id === null
              ? integration.global_workspace_access || integration.workspace_ids.includes(workspace.id)
              : integration.workspace_id === workspace.id
          }))
        return { integration: readable(integration), workspaces: listed }
      }
    )

    /** Portkey's workspaces change: an update of `workspace_ids` and `global_workspace_access`, nothing else. */
    const setIntegrationWorkspaces = Effect.fn("McpRegistry.setIntegrationWorkspaces")(
      function*(principal: Principal, id: string, change: IntegrationWorkspacesInput) {
        const { integration: current } = yield* managed(principal, id)
        const input = workspacesChange(current, change)
        if (input instanceof InvalidRequest) return yield* input
        return yield* updateIntegration(principal, current.id, input)
      }
    )

    return {
      createIntegration,
      updateIntegration,
      archiveIntegration,
      getIntegration,
      listIntegrations,
      integrationWorkspaces,
      setIntegrationWorkspaces
    }
  })
