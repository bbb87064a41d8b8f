/**
 * Reading workspaces as a principal sees them.
 */
import { Context, Effect, Layer, Option, Schema, Struct } from "effect"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { type Conflict, type Forbidden, type InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName, checkSlug, Description } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { slugify, Workspace } from "./AccessModel.ts"
import { WorkspaceStore } from "./AccessStores.ts"
import { grantedWrites } from "./GrantedWrites.ts"
import { ensureAllowed, ensureListScope, Target } from "./Policy.ts"
import type { Principal } from "./Principal.ts"

/** A workspace as a caller asks for it: the entity's fields a caller chooses, in the API's casing. */
export const CreateWorkspace = Schema.Struct({
  ...Struct.pick(Workspace.fields, ["name"]),
  slug: Schema.optionalKey(Workspace.fields.slug),
  description: Schema.optionalKey(Description)
})
export type CreateWorkspaceInput = typeof CreateWorkspace.Type

export class Workspaces extends Context.Service<
  Workspaces,
  {
    readonly create: (
      principal: Principal,
      input: CreateWorkspaceInput
    ) => Effect.Effect<Workspace, InvalidRequest | Forbidden | NotFound | Conflict | StoreError>
    readonly get: (principal: Principal, id: string) => Effect.Effect<Workspace, NotFound | Forbidden | StoreError>
    /** Admin keys see every workspace of their organisation; workspace keys see their own. */
    readonly list: (
      principal: Principal,
      page: PageRequest
    ) => Effect.Effect<Page<Workspace>, Forbidden | NotFound | StoreError>
  }
>()("@gateway-control/Workspaces") {
  static readonly layer = Layer.effect(
    Workspaces,
    Effect.gen(function*() {
      const store = grantedWrites(yield* WorkspaceStore, { insert: "workspaces.create" })
      const crypto = yield* PlatformCrypto

      const create = Effect.fn("Workspaces.create")(function*(principal: Principal, input: CreateWorkspaceInput) {
        const creating = yield* ensureAllowed(
          principal,
          "workspaces.create",
          Target.organisation(principal.organisationId),
          { type: "organisation", id: principal.organisationId }
        )
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

      const list = Effect.fn("Workspaces.list")(function*(principal: Principal, page: PageRequest) {
        // An admin key lists the organisation's workspaces; a workspace key sees its own.
        const scope = yield* ensureListScope(store, principal, undefined, "workspaces.list")
        if (scope === null) return yield* store.list(principal.organisationId, page)
        const own = yield* store.get(scope)
        const items = Option.toArray(own).slice(page.offset, page.offset + page.limit)
        return { items, total: Option.isSome(own) ? 1 : 0 }
      })

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
        list
      })
    })
  )
}
