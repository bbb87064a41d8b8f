/** AI-provider integrations in memory: slugs unique within their organisation. */
import {
  type Integration,
  type IntegrationFilter,
  IntegrationStore,
  type StoredIntegration
} from "@gateway-control/domain"
import { Effect, Option } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { byCreation, conflictOn, Table } from "./Table.ts"

const taken = (stored: StoredIntegration) =>
  `An integration with slug '${stored.record.slug}' already exists in this organisation.`

/** Does the filter admit the integration: its level, and whether the named workspace may use it. */
const admits = (record: Integration, filter: IntegrationFilter) => {
  if (filter.level === "workspace" && record.workspace_id === null) return false
  if (filter.level === "organisation" && record.workspace_id !== null) return false
  if (filter.usableBy === null) return true
  if (record.workspace_id !== null) return record.workspace_id === filter.usableBy
  return record.global_workspace_access_settings?.enabled === true ||
    record.workspaces.some((w) => w.id === filter.usableBy && w.enabled)
}

export const makeIntegrationStore = (state: MemoryState) => {
  const integrations = new Table<StoredIntegration>(
    state,
    (stored) => [`${stored.record.organisation_id}/${stored.record.slug}`]
  )
  const store = IntegrationStore.of({
    insert: (stored) =>
      Effect.flatMap(integrations.insert(stored.record.id, stored), (key) => conflictOn(key, taken(stored), "slug")),
    get: (id) => Effect.sync(() => integrations.get(id)),
    findBySlug: (organisationId, slug) =>
      Effect.sync(() =>
        Option.fromUndefinedOr(
          [...integrations.rows.values()].find((s) =>
            s.record.organisation_id === organisationId && s.record.slug === slug
          )
        )
      ),
    list: (organisationId, filter, page) =>
      Effect.sync(() => {
        const found = integrations.page(
          ({ record }) => record.organisation_id === organisationId && admits(record, filter),
          page,
          (a, b) => byCreation(a.record, b.record)
        )
        return { items: found.items.map((s) => s.record), total: found.total }
      }),
    update: (stored) =>
      Effect.flatMap(
        integrations.rekey(stored.record.id, stored),
        (result) =>
          typeof result === "string"
            ? Effect.as(conflictOn(result, taken(stored), "slug"), false)
            : Effect.succeed(result)
      ),
    delete: (id) => integrations.delete(id),
    listActive: (afterId, limit) =>
      Effect.sync(() =>
        [...integrations.rows.values()]
          .map((stored) => stored.record)
          .filter((record) => record.status === "active" && (afterId === null || record.id > afterId))
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, limit)
      )
  })
  /** How many workspace-level integrations the workspace holds. */
  const inWorkspace = (workspaceId: string) =>
    [...integrations.rows.values()].filter((stored) => stored.record.workspace_id === workspaceId).length
  return { store, inWorkspace }
}
