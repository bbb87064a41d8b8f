/** Labels in memory: unique by name within their workspace, or among their organisation's own labels. */
import { type Label, LabelStore } from "@gateway-control/domain"
import { Effect } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { conflictOn, Table } from "./Table.ts"

const nameKey = (label: Label) =>
  label.workspace_id === null
    ? `organisation/${label.organisation_id}/${label.name}`
    : `workspace/${label.workspace_id}/${label.name}`

const taken = (label: Label) => `A label named '${label.name}' already exists at this label's level.`

export const makeLabelStore = (state: MemoryState) => {
  const labels = new Table<Label>(state, (label) => [nameKey(label)])
  return LabelStore.of({
    insert: (label) => Effect.flatMap(labels.insert(label.id, label), (key) => conflictOn(key, taken(label), "name")),
    update: (label) =>
      Effect.flatMap(
        labels.rekey(label.id, label),
        (result) =>
          typeof result === "string"
            ? Effect.as(conflictOn(result, taken(label), "name"), false)
            : Effect.succeed(result)
      ),
    get: (id) => Effect.sync(() => labels.get(id)),
    withName: (organisationId, name) =>
      Effect.sync(() =>
        [...labels.rows.values()].filter((label) => label.organisation_id === organisationId && label.name === name)
      ),
    list: (organisationId, workspaceId, page, search) =>
      Effect.sync(() => {
        const term = search?.toLowerCase()
        return labels.page(
          (label) =>
            label.organisation_id === organisationId &&
            (workspaceId === null || label.workspace_id === null || label.workspace_id === workspaceId) &&
            (term === undefined || label.name.toLowerCase().includes(term)),
          page
        )
      }),
    delete: (id) => labels.delete(id)
  })
}
