/** `McpCapabilityStore` in memory: each integration's capabilities, by type and name. */
import { capabilityKey, McpCapability, McpCapabilityStore } from "@gateway-control/domain"
import { Effect } from "effect"
import type { MemoryState } from "./MemoryState.ts"

/** Type, then name, by code point: the order the SQL store gives with `COLLATE "C"`. */
const byTypeAndName = (a: McpCapability, b: McpCapability) =>
  a.type !== b.type ? (a.type < b.type ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0

export const makeCapabilityStore = (state: MemoryState) => {
  const byIntegration = new Map<string, ReadonlyArray<McpCapability>>()
  const all = (integrationId: string) => byIntegration.get(integrationId) ?? []
  /** Changes the integration's capabilities as one write of the unit of work. */
  const change = (integrationId: string, next: (current: ReadonlyArray<McpCapability>) => Array<McpCapability>) =>
    state.write(() => {
      const previous = byIntegration.get(integrationId)
      byIntegration.set(integrationId, next(previous ?? []).sort(byTypeAndName))
      const undo = () =>
        void (previous === undefined ? byIntegration.delete(integrationId) : byIntegration.set(integrationId, previous))
      return [undefined, undo] as const
    })

  return McpCapabilityStore.of({
    all: (integrationId) => Effect.sync(() => all(integrationId)),
    replace: (integrationId, capabilities) => change(integrationId, () => [...capabilities]),
    list: (query, page) =>
      Effect.sync(() => {
        const search = query.search?.toLowerCase() ?? null
        const matching = all(query.integrationId).filter((c) =>
          (query.type === null || c.type === query.type) &&
          (search === null || c.name.toLowerCase().includes(search) ||
            (c.description?.toLowerCase().includes(search) ?? false))
        )
        return { items: matching.slice(page.offset, page.offset + page.limit), total: matching.length }
      }),
    setEnabled: (integrationId, toggles) => {
      const enabled = new Map(toggles.map((t) => [capabilityKey(t), t.enabled]))
      return change(integrationId, (current) =>
        current.map((c) => {
          const next = enabled.get(capabilityKey(c))
          return next === undefined || next === c.enabled ? c : new McpCapability({ ...c, enabled: next })
        }))
    }
  })
}
