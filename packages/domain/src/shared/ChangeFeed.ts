/**
 * How processes sharing one store hear of each other's changes, so that each clears exactly what its caches
 * hold of them: an API key resolution, a render target, a server read. A process clears its own caches as it
 * changes something; the feed tells the others.
 */
import { Context, Effect, Schema, type Scope } from "effect"
import type { StoreError } from "./StoreError.ts"

/** A change another process's caches may hold something of. */
export const Change = Schema.Union([
  /** Revoked, rotated, its transition ended, its scopes, expiry or limits changed. */
  Schema.TaggedStruct("ApiKeyChanged", { keyId: Schema.String }),
  /** A membership or role of the user changed: what their keys may do. */
  Schema.TaggedStruct("UserAccessChanged", { userId: Schema.String }),
  /** A prompt's versions, published version or labels changed, or it was deleted. */
  Schema.TaggedStruct("PromptChanged", { promptId: Schema.String }),
  /** A label of the organisation (or of one of its workspaces) was renamed or deleted: what it points at. */
  Schema.TaggedStruct("LabelChanged", { organisationId: Schema.String, workspaceId: Schema.NullOr(Schema.String) }),
  /** A partial of a workspace changed: what its slug resolves to. */
  Schema.TaggedStruct("PartialChanged", { workspaceId: Schema.String, slug: Schema.String }),
  /** An MCP integration was updated or archived. */
  Schema.TaggedStruct("McpIntegrationChanged", { integrationId: Schema.String })
])
export type Change = typeof Change.Type

/** Changes may have been missed (the feed was down): whatever a cache holds may be stale. */
export interface Resync {
  readonly _tag: "Resync"
}

export type ChangeEvent = Change | Resync

export class ChangeFeed extends Context.Service<
  ChangeFeed,
  {
    /**
     * Tells the other processes, with the enclosing unit of work: they hear of it once it commits, and never
     * if it rolls back. Outside a unit of work, at once.
     */
    readonly publish: (change: Change) => Effect.Effect<void, StoreError>
    /**
     * Calls `handler` for every change another process publishes, until the scope closes, and with `Resync`
     * after a time in which changes may have been missed. The handler runs synchronously and must not throw.
     */
    readonly subscribe: (handler: (event: ChangeEvent) => void) => Effect.Effect<void, never, Scope.Scope>
    /**
     * True when no other process writes the store: what this process read stays true until it changes it
     * itself, so caches need no lifetime as a safety net for a missed change.
     */
    readonly soleWriter?: boolean | undefined
  }
>()("@gateway-control/ChangeFeed") {
  /** For a store only one process uses (memory, PGlite): there is no other process to tell. */
  static readonly inProcess: ChangeFeed["Service"] = {
    publish: () => Effect.void,
    subscribe: () => Effect.void,
    soleWriter: true
  }
}

/**
 * How long a cache of what the store holds reuses an entry: `ttlMs`, the bound on what this process misses while
 * the feed is down, or for ever when no other process writes the store (`soleWriter`): every change then goes
 * through this process, which forgets what it changes at once, and a lifetime would only send every entry in
 * use back to the store together, a burst of reads (on PGlite, on the thread that serves requests).
 */
export const cacheLifetimeMs = (feed: ChangeFeed["Service"], ttlMs: number): number =>
  feed.soleWriter === true ? Number.POSITIVE_INFINITY : ttlMs
