import {
  type Partial,
  type PartialVersion,
  Prompts,
  type PromptVersion,
  type PromptVersionView
} from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

/**
 * A new version as its answer: the owner's fields (its id and slug; for an existing owner also its workspace),
 * the version's id and number.
 */
const versionCreated = <Owner extends { readonly id: string; readonly slug: string }>(
  owner: Owner,
  version: { readonly id: string; readonly version: number }
) => ({ ...owner, version_id: version.id, version: version.version })

interface PartialAndVersion {
  readonly partial: Partial
  readonly version: PartialVersion
}

/** A partial's new version as its answer. */
const partialVersionCreated = ({ partial, version }: PartialAndVersion) => versionCreated(partial, version)

/** A partial after a change, with its published version. */
const partialChanged = ({ partial, version }: PartialAndVersion) => ({
  ...partial,
  object: "prompt-partial" as const,
  version_id: version.id,
  version: version.version
})

/** A version as answers show it: without `virtual_key` when it has none (Portkey declares a string). */
const versionAnswer = ({ virtual_key, ...version }: PromptVersion) =>
  virtual_key === null ? version : { ...version, virtual_key }

/** A prompt's version with its labels, as an answer. */
const versionDetails = ({ labels, version }: PromptVersionView) => ({
  ...versionAnswer(version),
  object: "prompt" as const,
  labels
})

/** A partial's version as answers show it (`PartialVersionDetails`). */
const partialVersionDetails = (version: PartialVersion) => ({
  ...version,
  prompt_partial_id: version.partial_id,
  prompt_partial_version_id: version.id,
  ...(version.version_description === null ? {} : { description: version.version_description }),
  prompt_version_status: "active" as const,
  object: "partial" as const
})

/** Items that are all there is, in the list envelope. */
const wholeList = <A>(items: ReadonlyArray<A>) => ({
  object: "list" as const,
  data: items,
  total: items.length,
  has_more: false
})

export const PromptsHandlers = HttpApiBuilder.group(
  GatewayApi,
  "prompts",
  withService(Prompts, (handlers, prompts) =>
    handlers.handleAll({
      create: ({ payload }) =>
        asCaller((principal) => prompts.create(principal, payload)).pipe(
          Effect.map((version) => ({
            ...versionCreated({ id: version.prompt_id, slug: version.slug }, version),
            object: "prompt" as const
          }))
        ),
      update: ({ params, payload }) =>
        asCaller((principal) => prompts.update(principal, params.promptId, payload)).pipe(
          Effect.map(({ prompt, version }) => ({ ...versionCreated(prompt, version), prompt_version_id: version.id }))
        ),
      listVersions: ({ params }) =>
        asCaller((principal) => prompts.listVersions(principal, params.promptId)).pipe(
          Effect.map((views) => wholeList(views.map(versionDetails)))
        ),
      getVersion: ({ params }) =>
        asCaller((principal) => prompts.getVersion(principal, params.promptId, params.versionId)).pipe(
          Effect.map(versionDetails)
        ),
      setVersionLabel: ({ params, payload }) =>
        asCaller((principal) => prompts.setVersionLabel(principal, params.promptId, params.versionId, payload.label_id))
          .pipe(Effect.map(versionDetails)),
      makeDefault: ({ params, payload }) =>
        asCaller((principal) => prompts.publish(principal, params.promptId, payload.version)),
      setLabel: ({ params, payload }) =>
        asCaller((principal) => prompts.setLabel(principal, params.promptId, params.label, payload.version)),
      get: ({ params, query }) =>
        asCaller((principal) => prompts.get(principal, params.promptId, query.workspace_id)).pipe(
          Effect.map(({ labels, prompt, versions }) => ({
            ...prompt,
            object: "prompt" as const,
            versions: versions.map(versionAnswer),
            labels
          }))
        ),
      list: ({ query }) =>
        pageAsCaller(
          query,
          (principal, request) =>
            prompts.list(principal, query.workspace_id, request, query.collection_id, query.search)
        ),
      delete: ({ params }) =>
        asCaller((principal) => prompts.remove(principal, params.promptId)).pipe(
          Effect.map((prompt) => ({ ...prompt, object: "prompt" as const, deleted: true as const }))
        ),
      createPartial: ({ payload }) =>
        asCaller((principal) => prompts.createPartial(principal, payload)).pipe(Effect.map(partialVersionCreated)),
      updatePartial: ({ params, payload, query }) =>
        asCaller((principal) => prompts.updatePartial(principal, params.partialId, payload, query.workspace_id)).pipe(
          Effect.map(partialChanged)
        ),
      publishPartial: ({ params, payload, query }) =>
        asCaller((principal) =>
          prompts.publishPartial(principal, params.partialId, payload.version, query.workspace_id)
        ).pipe(Effect.map(partialChanged)),
      listPartialVersions: ({ params, query }) =>
        asCaller((principal) => prompts.listPartialVersions(principal, params.partialId, query.workspace_id)).pipe(
          Effect.map((versions) => wholeList(versions.map(partialVersionDetails)))
        ),
      deletePartial: ({ params, query }) =>
        asCaller((principal) => prompts.deletePartial(principal, params.partialId, query.workspace_id)).pipe(
          Effect.map((partial) => ({ ...partial, object: "prompt-partial" as const, deleted: true as const }))
        ),
      getPartial: ({ params, query }) =>
        asCaller((principal) => prompts.getPartial(principal, params.partialId, query.workspace_id)).pipe(
          Effect.map(({ partial, version }) => ({
            ...partial,
            object: "prompt-partial" as const,
            string: version.string,
            version_id: version.id
          }))
        ),
      listPartials: ({ query }) =>
        pageAsCaller(
          query,
          (principal, request) => prompts.listPartials(principal, query.workspace_id, request, query.collection_id)
        )
    }))
)
