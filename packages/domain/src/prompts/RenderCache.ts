/**
 * What rendering keeps between requests, so that a render of a recently used prompt asks nothing of the
 * store: compiled versions and partials (immutable, kept until the bound evicts them), and what prompt
 * references and partial names resolved to (kept `RESOLUTION_CACHE_TTL_MS`, or until a change clears them
 * when this process is the store's only writer).
 */
import { Effect } from "effect"
import type { Change, ChangeEvent } from "../shared/ChangeFeed.ts"
import { SingleFlight } from "../shared/internal/SingleFlight.ts"
import { TtlCache } from "../shared/internal/TtlCache.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { Template } from "./Mustache.ts"
import type { Prompt, PromptVersion } from "./Prompt.ts"
import type { CompiledVersion } from "./TemplateCompiler.ts"
import type { Failure } from "./TemplateResources.ts"

/**
 * How long a render reuses what a prompt reference and a partial name resolved to. Changes made through
 * this process clear it at once; another process sharing the store sees them as soon as the change feed
 * tells it (PostgreSQL), else within this time. On a store no other process writes (memory, PGlite), the
 * resolution is kept until a change clears it: re-reading it every 2 s took five queries on the request
 * path, and on PGlite each blocks the event loop (its p99 at 1,000 renders/s).
 */
export const RESOLUTION_CACHE_TTL_MS = 2_000

/** A prompt reference resolved for rendering. */
export interface RenderTarget {
  readonly prompt: Prompt
  readonly version: PromptVersion
  readonly template: CompiledVersion
  /** Every partial the template reaches, when no variable names one; otherwise resolved per render. */
  readonly partials: ReadonlyMap<string, Template> | undefined
}

/** Does a partial name as templates use it (`slug` or `slug@3`) name the partial `slug`? */
const namesPartial = (name: string, slug: string) => name === slug || name.startsWith(`${slug}@`)

export class RenderCache {
  /** By version id. */
  readonly compiledVersions = new TtlCache<string, CompiledVersion>(Number.POSITIVE_INFINITY, 2000)
  /** By partial version id. */
  readonly compiledPartials = new TtlCache<string, Template>(Number.POSITIVE_INFINITY, 2000)
  /** By organisation, key workspace and prompt reference. */
  readonly resolvedTargets: TtlCache<string, RenderTarget>
  /** Resolutions of prompt references under way, by the same key: concurrent first renders share one. */
  readonly resolving = new SingleFlight<string, RenderTarget, Failure>()
  /** By workspace and partial name. */
  readonly resolvedPartials: TtlCache<string, Template>
  /** Bumped by every change: a resolution that read the store before one does not fill the cache. */
  generation = 0
  private readonly publish: (change: Change) => Effect.Effect<void, StoreError>

  /**
   * `publish` tells the other processes of a change made here (`ChangeFeed.publish`); resolutions live `ttlMs`
   * (`cacheLifetimeMs`), and are kept `snapshotMs` past it, for renders while the store is unreachable
   * (StoreOutage.ts).
   */
  constructor(
    publish: (change: Change) => Effect.Effect<void, StoreError>,
    ttlMs = RESOLUTION_CACHE_TTL_MS,
    snapshotMs = 0
  ) {
    this.publish = publish
    this.resolvedTargets = new TtlCache<string, RenderTarget>(ttlMs, 5_000, snapshotMs)
    this.resolvedPartials = new TtlCache<string, Template>(ttlMs, 5_000, snapshotMs)
  }

  /** Forgets exactly what renders hold of a change, made here or in another process. */
  readonly forget = (event: ChangeEvent): void => {
    switch (event._tag) {
      case "PromptChanged":
        this.generation++
        return this.resolvedTargets.deleteWhere((target) => target.prompt.id === event.promptId)
      case "LabelChanged": {
        this.generation++
        const { organisationId, workspaceId } = event
        return this.resolvedTargets.deleteWhere(({ prompt }) =>
          prompt.organisation_id === organisationId && (workspaceId === null || prompt.workspace_id === workspaceId)
        )
      }
      case "PartialChanged": {
        this.generation++
        const { slug, workspaceId } = event
        const prefix = `${workspaceId}/`
        this.resolvedPartials.deleteWhere((_, key) =>
          key.startsWith(prefix) && namesPartial(key.slice(prefix.length), slug)
        )
        return this.resolvedTargets.deleteWhere((target) =>
          target.prompt.workspace_id === workspaceId && target.partials !== undefined &&
          [...target.partials.keys()].some((name) => namesPartial(name, slug))
        )
      }
      case "Resync":
        this.generation++
        this.resolvedTargets.clear()
        return this.resolvedPartials.clear()
      default:
        return
    }
  }

  private readonly changed = (change: Change): Effect.Effect<void, StoreError> =>
    Effect.andThen(Effect.sync(() => this.forget(change)), this.publish(change))

  /** A prompt's versions, published version or labels changed, or it went: the next render reads it again. */
  readonly promptChanged = (promptId: string) => this.changed({ _tag: "PromptChanged", promptId })

  /** A label was renamed or deleted: renders of its organisation's (or workspace's) prompts read them again. */
  readonly labelChanged = (organisationId: string, workspaceId: string | null) =>
    this.changed({ _tag: "LabelChanged", organisationId, workspaceId })

  /** A partial changed: renders that reach it read it again. */
  readonly partialChanged = (workspaceId: string, slug: string) =>
    this.changed({ _tag: "PartialChanged", workspaceId, slug })
}
