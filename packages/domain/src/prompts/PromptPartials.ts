/**
 * Prompt partials as a principal manages them: templates that prompts include by slug (`{{>slug}}`).
 * A new template is a new version, published at once; an older version can be published again.
 */
import { Effect, Option } from "effect"
import { grantedWrites } from "../access/GrantedWrites.ts"
import type { Principal } from "../access/Principal.ts"
import { InvalidRequest, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { Partial, PartialStore, PartialVersion } from "./Prompt.ts"
import type { PartialChange, PartialInput } from "./PromptInputs.ts"
import type { RenderCache } from "./RenderCache.ts"
import { compilePartial } from "./TemplateCompiler.ts"
import { allowed, type TemplateResources, validateName, validateTemplateText } from "./TemplateResources.ts"

export type { PartialChange, PartialInput } from "./PromptInputs.ts"

const PARTIAL = "prompt partial"

export const makePromptPartials = (resources: TemplateResources, { partialChanged }: RenderCache) =>
  Effect.gen(function*() {
    const partials = grantedWrites(yield* PartialStore, {
      insert: "prompts.create",
      addVersion: "prompts.update",
      update: "prompts.update",
      setPublished: "prompts.publish",
      delete: "prompts.delete"
    })
    const crypto = yield* PlatformCrypto
    const { collectionInWorkspace, findPartial, listPlace, newResource } = resources

    /** A version of the partial with this template, checked before: it is what the version renders. */
    const newVersion = (partial: Partial, version: number, input: PartialChange, template: string, now: string) =>
      new PartialVersion({
        id: crypto.uuid(),
        partial_id: partial.id,
        version,
        string: template,
        version_description: input.version_description ?? null,
        created_at: now
      })

    const createPartial = Effect.fn("Prompts.createPartial")(function*(principal: Principal, input: PartialInput) {
      const { creating, fields } = yield* newResource(principal, input)
      const partial = new Partial({ ...fields, description: null, status: "active" })
      yield* compilePartial(partial.slug, input.string!)
      const version = newVersion(partial, 1, input, input.string!, partial.created_at)
      yield* partials.insert(creating, partial, version)
      yield* partialChanged(partial.workspace_id, partial.slug)
      return { partial, version }
    })

    /** The newest version: the versions are numbered from 1 without gaps. */
    const latestPartialVersion = Effect.fnUntraced(function*(partial: Partial) {
      let version = partial.published_version
      while (Option.isSome(yield* partials.getVersion(partial.id, version + 1))) version++
      return version
    })

    const existingVersion = Effect.fnUntraced(function*(partial: Partial, version: number) {
      return yield* requireRow(
        yield* partials.getVersion(partial.id, version),
        `version of prompt partial '${partial.slug}'`,
        String(version)
      )
    })

    const updatePartial = Effect.fn("Prompts.updatePartial")(
      function*(principal: Principal, ref: string, change: PartialChange, workspaceId?: string) {
        const partial = yield* findPartial(principal, ref, workspaceId)
        const updating = yield* allowed(principal, "prompts.update", partial, PARTIAL)
        if (change.name !== undefined) yield* validateName(change.name)
        const collection = change.collection_id === undefined
          ? undefined
          : yield* collectionInWorkspace(principal, partial, change.collection_id)
        const now = yield* nowIso
        let published = yield* existingVersion(partial, partial.published_version)
        if (change.string !== undefined) {
          yield* validateTemplateText(change.string)
          yield* compilePartial(partial.slug, change.string)
          published = newVersion(partial, (yield* latestPartialVersion(partial)) + 1, change, change.string, now)
          yield* partials.addVersion(updating, published)
        } else if (
          change.name === undefined && change.description === undefined && change.status === undefined &&
          collection === undefined
        ) {
          return yield* InvalidRequest.of("Give a new string, name, description, status or collection_id.", "string")
        }
        const updated = new Partial({
          ...partial,
          name: change.name?.trim() ?? partial.name,
          collection_id: collection?.id ?? partial.collection_id,
          description: change.description === undefined ? partial.description : change.description,
          status: change.status ?? partial.status,
          published_version: published.version,
          last_updated_at: now
        })
        yield* partials.update(updating, updated)
        yield* partialChanged(partial.workspace_id, partial.slug)
        return { partial: updated, version: published }
      }
    )

    const publishPartial = Effect.fn("Prompts.publishPartial")(
      function*(principal: Principal, ref: string, version: number, workspaceId?: string) {
        const partial = yield* findPartial(principal, ref, workspaceId)
        const publishing = yield* allowed(principal, "prompts.publish", partial, PARTIAL)
        const published = yield* existingVersion(partial, version)
        const now = yield* nowIso
        yield* partials.setPublished(publishing, partial.id, version, now)
        yield* partialChanged(partial.workspace_id, partial.slug)
        return {
          partial: new Partial({ ...partial, published_version: version, last_updated_at: now }),
          version: published
        }
      }
    )

    const getPartial = Effect.fn("Prompts.getPartial")(
      function*(principal: Principal, ref: string, workspaceId?: string) {
        const partial = yield* findPartial(principal, ref, workspaceId)
        yield* allowed(principal, "prompts.read", partial, PARTIAL)
        return { partial, version: yield* existingVersion(partial, partial.published_version) }
      }
    )

    const listPartialVersions = Effect.fn("Prompts.listPartialVersions")(
      function*(principal: Principal, ref: string, workspaceId?: string) {
        const partial = yield* findPartial(principal, ref, workspaceId)
        yield* allowed(principal, "prompts.read", partial, PARTIAL)
        return yield* partials.versions(partial.id)
      }
    )

    const deletePartial = Effect.fn("Prompts.deletePartial")(
      function*(principal: Principal, ref: string, workspaceId?: string) {
        const partial = yield* findPartial(principal, ref, workspaceId)
        const deleting = yield* allowed(principal, "prompts.delete", partial, PARTIAL)
        yield* partials.delete(deleting, partial.id)
        yield* partialChanged(partial.workspace_id, partial.slug)
        return partial
      }
    )

    const listPartials = Effect.fn("Prompts.listPartials")(
      function*(principal: Principal, workspaceId: string | undefined, page: PageRequest, collectionId?: string) {
        const place = yield* listPlace(principal, workspaceId, collectionId, "prompts.list")
        return yield* partials.list(principal.organisationId, place.scope, page, place.collectionId)
      }
    )

    return {
      createPartial,
      updatePartial,
      publishPartial,
      getPartial,
      listPartialVersions,
      deletePartial,
      listPartials
    }
  })
