/**
 * Reading workspaces as a principal sees them.
 */
import { Context, Effect, Layer, Option } from "effect"
import type { Workspace } from "./AccessModel.ts"
import { type Forbidden, NotFound } from "./Errors.ts"
import type { Page, PageRequest } from "./Paging.ts"
import { ensureAllowed } from "./Policy.ts"
import { WorkspaceStore } from "./Ports.ts"
import type { Principal } from "./Principal.ts"

export class Workspaces extends Context.Service<
  Workspaces,
  {
    readonly get: (principal: Principal, id: string) => Effect.Effect<Workspace, NotFound | Forbidden>
    /** Admin keys see every workspace of their organisation; workspace keys see their own. */
    readonly list: (principal: Principal, page: PageRequest) => Effect.Effect<Page<Workspace>, Forbidden | NotFound>
  }
>()("@gateway-control/Workspaces") {
  static readonly layer = Layer.effect(
    Workspaces,
    Effect.gen(function* () {
      const store = yield* WorkspaceStore

      const get = Effect.fn("Workspaces.get")(function* (principal: Principal, id: string) {
        const found = yield* store.get(id)
        if (Option.isNone(found)) return yield* new NotFound({ resource: "workspace", id })
        const workspace = found.value
        yield* ensureAllowed(
          principal,
          "workspaces.read",
          { organisationId: workspace.organisation_id, workspaceId: workspace.id },
          { type: "workspace", id }
        )
        return workspace
      })

      const list = Effect.fn("Workspaces.list")(function* (principal: Principal, page: PageRequest) {
        yield* ensureAllowed(
          principal,
          "workspaces.list",
          { organisationId: principal.organisationId, workspaceId: principal.workspaceId },
          { type: "organisation", id: principal.organisationId }
        )
        if (principal.workspaceId === null) return yield* store.list(principal.organisationId, page)
        const own = yield* store.get(principal.workspaceId)
        const items = Option.toArray(own).slice(page.offset, page.offset + page.limit)
        return { items, total: Option.isSome(own) ? 1 : 0 }
      })

      return Workspaces.of({ get, list })
    })
  )
}
