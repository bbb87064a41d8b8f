/** Providers in memory: slugs unique within their workspace. */
import { Conflict, type Provider, ProviderStore } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { byCreation, inScope, Table } from "./Table.ts"

export const makeProviderStore = (state: MemoryState) => {
  const providers = new Table<Provider>(state, (provider) => [`${provider.workspace_id}/${provider.slug}`])
  const all = () => [...providers.rows.values()]
  const store = ProviderStore.of({
    insert: (provider) =>
      Effect.flatMap(
        providers.insert(provider.id, provider),
        (taken) =>
          taken === undefined
            ? Effect.void
            : Effect.fail(
              new Conflict({
                message: `A provider (or virtual key) with slug '${provider.slug}' already exists in this workspace.`,
                param: "slug"
              })
            )
      ),
    get: (id) => Effect.sync(() => providers.get(id)),
    findBySlug: (workspaceId, slug) =>
      Effect.sync(() => Option.fromUndefinedOr(all().find((p) => p.workspace_id === workspaceId && p.slug === slug))),
    findAllBySlug: (organisationId, slug) =>
      Effect.sync(() => all().filter((p) => p.organisation_id === organisationId && p.slug === slug)),
    list: (organisationId, workspaceId, page) =>
      Effect.sync(() => providers.page((p) => inScope(p, organisationId, workspaceId), page, byCreation)),
    listVirtualKeys: (organisationId, workspaceId, page) =>
      Effect.sync(() =>
        providers.page(
          (p) => p.integration_id === p.id && inScope(p, organisationId, workspaceId),
          page,
          byCreation
        )
      ),
    usingIntegration: (integrationId, limit) =>
      Effect.sync(() =>
        all().filter((p) => p.integration_id === integrationId).sort(byCreation).slice(0, limit).map((p) => p.slug)
      ),
    update: (provider) => providers.replace(provider.id, () => provider),
    delete: (id) => providers.delete(id)
  })
  /** How many providers the workspace holds. */
  const inWorkspace = (workspaceId: string) => all().filter((p) => p.workspace_id === workspaceId).length
  return { store, inWorkspace }
}
