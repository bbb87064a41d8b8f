/**
 * Workspaces as a principal sees them: created, read, renamed and deleted, each through the policy.
 */
import { Context, Effect, Layer, Option, Schema, Struct } from "effect"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { ApiKeys } from "../credentials/ApiKeys.ts"
import { Conflict, type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName, checkSlug, Description } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { refuseUnsupported, unsupportedFields } from "../shared/Unsupported.ts"
import { slugify, Workspace } from "./AccessModel.ts"
import { type WorkspaceHoldings, WorkspaceStore } from "./AccessStores.ts"
import { grantedWrites } from "./GrantedWrites.ts"
import { ensureAllowed, ensureListScope, Target } from "./Policy.ts"
import type { Principal } from "./Principal.ts"

/** Portkey's workspace fields the gateway does not act on: refused by name rather than dropped. */
const UNSUPPORTED = ["defaults", "usage_limits", "rate_limits"] as const
const UNSUPPORTED_WHY = "workspaces carry no defaults, usage limits or rate limits here (keys carry rate limits)."

/** A workspace as a caller asks for it: the entity's fields a caller chooses, in the API's casing. */
export const CreateWorkspace = Schema.Struct({
  ...Struct.pick(Workspace.fields, ["name"]),
  slug: Schema.optionalKey(Workspace.fields.slug),
  description: Schema.optionalKey(Description),
  ...unsupportedFields([...UNSUPPORTED, "users"])
})
export type CreateWorkspaceInput = typeof CreateWorkspace.Type

/** A change of a workspace: its name or description (null clears it); the slug stays, as ids in paths do. */
export const UpdateWorkspace = Schema.Struct({
  name: Schema.optionalKey(Workspace.fields.name),
  description: Schema.optionalKey(Schema.NullOr(Description)),
  ...unsupportedFields(UNSUPPORTED)
})
export type UpdateWorkspaceInput = typeof UpdateWorkspace.Type

/** How a deletion treats what the workspace holds: refused (409) unless `force`. */
export interface DeleteWorkspaceInput {
  readonly force: boolean
}

/** The kinds of resource a workspace holds, in the words of the error that names them. */
const HOLDING_NAMES: Record<keyof WorkspaceHoldings, string> = {
  api_keys: "active API keys",
  prompts: "prompts",
  prompt_partials: "prompt partials",
  providers: "providers (or virtual keys)",
  integrations: "integrations",
  configs: "configs",
  mcp_integrations: "MCP integrations",
  mcp_servers: "MCP servers"
}

/** Portkey's workspace list filters. */
export interface WorkspaceFilter {
  readonly name?: string | undefined
  readonly exact_name?: string | undefined
  readonly status?: string | undefined
}

const WORKSPACE_STATUSES = ["active", "archived"]

export class Workspaces extends Context.Service<
  Workspaces,
  {
    readonly create: (
      principal: Principal,
      input: CreateWorkspaceInput
    ) => Effect.Effect<Workspace, InvalidRequest | Forbidden | NotFound | Conflict | StoreError>
    readonly get: (principal: Principal, id: string) => Effect.Effect<Workspace, NotFound | Forbidden | StoreError>
    /**
     * Admin keys see every workspace of their organisation; workspace keys see their own. Portkey's filters:
     * `name` (part of it, with case), `exact_name`, and `status` (`active`, `archived`, comma-separated; a deleted
     * workspace is gone, so `archived` lists none).
     */
    readonly list: (
      principal: Principal,
      page: PageRequest,
      filter?: WorkspaceFilter
    ) => Effect.Effect<Page<Workspace>, Forbidden | NotFound | InvalidRequest | StoreError>
    readonly update: (
      principal: Principal,
      id: string,
      input: UpdateWorkspaceInput
    ) => Effect.Effect<Workspace, InvalidRequest | Forbidden | NotFound | StoreError>
    /**
     * Deletes an empty workspace: one holding anything (`WorkspaceHoldings`) is refused with 409 naming what,
     * unless `force`, which first revokes its active keys (under the rules of revoking each) and then deletes
     * it. Either way, from then on it answers 404 everywhere, as if it never existed.
     */
    readonly remove: (
      principal: Principal,
      id: string,
      input: DeleteWorkspaceInput
    ) => Effect.Effect<Workspace, InvalidRequest | Forbidden | NotFound | Conflict | StoreError>
  }
>()("@gateway-control/Workspaces") {
  static readonly layer = Layer.effect(
    Workspaces,
    Effect.gen(function*() {
      const store = grantedWrites(yield* WorkspaceStore, {
        insert: "workspaces.create",
        update: "workspaces.update",
        remove: "workspaces.delete"
      })
      const apiKeys = yield* ApiKeys
      const crypto = yield* PlatformCrypto

      const create = Effect.fn("Workspaces.create")(function*(principal: Principal, input: CreateWorkspaceInput) {
        const creating = yield* ensureAllowed(
          principal,
          "workspaces.create",
          Target.organisation(principal.organisationId),
          { type: "organisation", id: principal.organisationId }
        )
        yield* refuseUnsupported(input, [...UNSUPPORTED, "users"], UNSUPPORTED_WHY)
        const name = input.name.trim()
        yield* checkName(name)
        const slug = input.slug ?? slugify(name)
        yield* checkSlug(slug)
        const now = yield* nowIso
        const workspace = new Workspace({
          id: crypto.uuid(),
          organisation_id: principal.organisationId,
          name,
          slug,
          description: input.description ?? null,
          created_at: now,
          last_updated_at: now
        })
        yield* store.insert(creating, workspace)
        return workspace
      })

      const get = Effect.fn("Workspaces.get")(function*(principal: Principal, id: string) {
        const workspace = yield* requireRow(yield* store.get(id), "workspace", id)
        yield* ensureAllowed(
          principal,
          "workspaces.read",
          Target.workspace(workspace.organisation_id, workspace.id),
          { type: "workspace", id }
        )
        return workspace
      })

      const list = Effect.fn("Workspaces.list")(
        function*(principal: Principal, page: PageRequest, filter: WorkspaceFilter = {}) {
          // An admin key lists the organisation's workspaces; a workspace key sees its own.
          const scope = yield* ensureListScope(store, principal, undefined, "workspaces.list")
          const statuses = filter.status?.split(",").map((s) => s.trim()).filter((s) => s !== "")
          const unknown = statuses?.find((s) => !WORKSPACE_STATUSES.includes(s))
          if (unknown !== undefined) {
            return yield* InvalidRequest.of(`status '${unknown}' is not one of active, archived.`, "status")
          }
          // Deleted workspaces are gone (404 everywhere): every one listed is active.
          if (statuses !== undefined && !statuses.includes("active")) return { items: [], total: 0 }
          const names = { name: filter.name, exact_name: filter.exact_name }
          if (scope === null) return yield* store.list(principal.organisationId, page, names)
          // A workspace key's list is its own workspace, if the filter keeps it.
          const own = Option.toArray(yield* store.get(scope)).filter((w) =>
            (names.name === undefined || w.name.includes(names.name)) &&
            (names.exact_name === undefined || w.name === names.exact_name)
          )
          return { items: own.slice(page.offset, page.offset + page.limit), total: own.length }
        }
      )

      /** The workspace, if it exists, and the policy's grant of `action` on it. */
      const withGrant = Effect.fnUntraced(
        function*<A extends "workspaces.update" | "workspaces.delete">(principal: Principal, id: string, action: A) {
          const workspace = yield* requireRow(yield* store.get(id), "workspace", id)
          const allowed = yield* ensureAllowed(
            principal,
            action,
            Target.workspace(workspace.organisation_id, workspace.id),
            { type: "workspace", id }
          )
          return { allowed, workspace }
        }
      )

      const update = Effect.fn("Workspaces.update")(
        function*(principal: Principal, id: string, input: UpdateWorkspaceInput) {
          const { allowed, workspace } = yield* withGrant(principal, id, "workspaces.update")
          yield* refuseUnsupported(input, UNSUPPORTED, UNSUPPORTED_WHY)
          const name = input.name === undefined ? workspace.name : input.name.trim()
          yield* checkName(name)
          const changed = new Workspace({
            ...workspace,
            name,
            description: input.description === undefined ? workspace.description : input.description,
            last_updated_at: yield* nowIso
          })
          yield* store.update(allowed, changed)
          return changed
        }
      )

      const remove = Effect.fn("Workspaces.remove")(
        function*(principal: Principal, id: string, input: DeleteWorkspaceInput) {
          const { allowed, workspace } = yield* withGrant(principal, id, "workspaces.delete")
          const holdings = yield* store.holdings(workspace.id)
          const held = Object.entries(HOLDING_NAMES)
            .filter(([kind]) => holdings[kind as keyof WorkspaceHoldings] > 0)
            .map(([kind, what]) => `${holdings[kind as keyof WorkspaceHoldings]} ${what}`)
          if (held.length > 0 && !input.force) {
            return yield* new Conflict({
              message: `Workspace '${workspace.slug}' still holds ${held.join(", ")}. Delete them first, ` +
                "or delete it with force: its active keys are then revoked, and what it holds stays stored but " +
                "unreachable through it.",
              param: null
            })
          }
          yield* apiKeys.revokeAll(principal, { workspaceId: workspace.id })
          yield* store.remove(allowed, workspace.id, yield* nowIso)
          return workspace
        }
      )

      const useCases = yield* AuditedUseCase
      return Workspaces.of({
        create: (principal, input) =>
          useCases.run(
            {
              useCase: "workspaces.create",
              actor: principal,
              resourceId: (workspace) => workspace.id,
              workspaceId: (workspace) => workspace.id,
              body: input
            },
            create(principal, input)
          ),
        get,
        list,
        update: (principal, id, input) =>
          useCases.run(
            { useCase: "workspaces.update", actor: principal, resourceId: id, workspaceId: id, body: input },
            update(principal, id, input)
          ),
        remove: (principal, id, input) =>
          useCases.run(
            { useCase: "workspaces.delete", actor: principal, resourceId: id, workspaceId: id, body: input },
            remove(principal, id, input)
          )
      })
    })
  )
}
