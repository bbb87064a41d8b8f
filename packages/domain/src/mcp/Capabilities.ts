/**
 * An integration's capabilities: the tools, prompts, resources and resource templates its server listed at
 * the last sync, each turned on or off by an admin. A sync keeps the choices for capabilities that are
 * still there; capabilities it finds for the first time start as the integration says.
 */
import { Context, type Effect, Schema, Struct } from "effect"
import { JsonObject } from "../prompts/Prompt.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { CapabilityType, type DiscoveredCapability } from "./McpConnections.ts"

export class McpCapability extends Schema.Class<McpCapability>("McpCapability")({
  integration_id: Schema.String,
  type: CapabilityType,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  input_schema: Schema.NullOr(JsonObject),
  /** When the last sync that listed it ran. */
  synced_at: Schema.String
}) {}

/** One capability's new state in a change: which one (type and name), on or off. */
export const CapabilityToggle = Schema.Struct(Struct.pick(McpCapability.fields, ["name", "type", "enabled"]))
export type CapabilityToggle = typeof CapabilityToggle.Type

export interface CapabilityQuery {
  readonly integrationId: string
  readonly type: CapabilityType | null
  /** Case-insensitive match on name or description. */
  readonly search: string | null
}

export class McpCapabilityStore extends Context.Service<
  McpCapabilityStore,
  {
    /** Every capability of the integration. */
    readonly all: (integrationId: string) => Effect.Effect<ReadonlyArray<McpCapability>, StoreError>
    /** Makes the integration's stored capabilities exactly `capabilities`: those not among them go. */
    readonly replace: (
      integrationId: string,
      capabilities: ReadonlyArray<McpCapability>
    ) => Effect.Effect<void, StoreError>
    /** Ordered by type, then name (by code point); paged by the store. */
    readonly list: (query: CapabilityQuery, page: PageRequest) => Effect.Effect<Page<McpCapability>, StoreError>
    /** Sets `enabled` of the named capabilities of the integration. */
    readonly setEnabled: (
      integrationId: string,
      toggles: ReadonlyArray<CapabilityToggle>
    ) => Effect.Effect<void, StoreError>
  }
>()("@gateway-control/McpCapabilityStore") {}

/** What identifies a capability within its integration: its type and name. */
export const capabilityKey = (capability: { readonly type: string; readonly name: string }) =>
  `${capability.type}\u0000${capability.name}`

export interface SyncedCapabilities {
  readonly capabilities: ReadonlyArray<McpCapability>
  /** Capabilities seen for the first time. */
  readonly added: number
  /** Capabilities the server no longer lists. */
  readonly removed: number
}

/**
 * What a sync stores: each discovered capability once (the first listing wins), enabled as before when it
 * was already known, else as `newEnabled` says. Pure.
 */
export const syncedCapabilities = (
  integrationId: string,
  previous: ReadonlyArray<McpCapability>,
  discovered: ReadonlyArray<DiscoveredCapability>,
  newEnabled: boolean,
  syncedAt: string
): SyncedCapabilities => {
  const before = new Map(previous.map((capability) => [capabilityKey(capability), capability.enabled]))
  const seen = new Set<string>()
  const capabilities = discovered.flatMap((found) => {
    const key = capabilityKey(found)
    if (seen.has(key)) return []
    seen.add(key)
    return [
      new McpCapability({
        integration_id: integrationId,
        type: found.type,
        name: found.name,
        description: found.description,
        enabled: before.get(key) ?? newEnabled,
        input_schema: found.input_schema === null ? null : { ...found.input_schema },
        synced_at: syncedAt
      })
    ]
  })
  const kept = capabilities.filter((capability) => before.has(capabilityKey(capability))).length
  return { capabilities, added: capabilities.length - kept, removed: previous.length - kept }
}

/** The first toggle naming a capability not in `known`, with its index; undefined when all are known. */
export const unknownToggle = (
  known: ReadonlyArray<McpCapability>,
  toggles: ReadonlyArray<CapabilityToggle>
): { readonly index: number; readonly toggle: CapabilityToggle } | undefined => {
  const keys = new Set(known.map(capabilityKey))
  const index = toggles.findIndex((toggle) => !keys.has(capabilityKey(toggle)))
  return index === -1 ? undefined : { index, toggle: toggles[index] }
}
