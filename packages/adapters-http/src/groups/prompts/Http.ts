import { type Partial, type PartialVersion, Prompts, type PromptVersionView } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, auditedAsCaller, auditedResourceChange, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

/**
 * A new version as its answer: the owner's fields (its id and slug; for an existing owner also its workspace,
 * under which `auditedResourceChange` records the change), the version's id and number.
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

/** A prompt's version with its labels, as an answer. */
const versionDetails = ({ labels, version }: PromptVersionView) => ({
  ...version,
  object: "prompt-version" as const,
  labels
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
        auditedAsCaller((principal) => prompts.create(principal, payload), {
          endpoint: "prompts.create",
          resourceId: (v) => v.prompt_id,
          body: payload
        }).pipe(
          Effect.map((version) => ({
            ...versionCreated({ id: version.prompt_id, slug: version.slug }, version),
            object: "prompt" as const
          }))
        ),
      update: ({ params, payload }) =>
        auditedResourceChange(
          "prompts.update",
          { body: payload },
          (principal) =>
            Effect.map(
              prompts.update(principal, params.promptId, payload),
              ({ prompt, version }) => versionCreated(prompt, version)
            )
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
        auditedAsCaller(
          (principal) => prompts.setVersionLabel(principal, params.promptId, params.versionId, payload.label_id),
          { endpoint: "prompts.setVersionLabel", resourceId: ({ version }) => version.prompt_id, body: payload }
        ).pipe(Effect.map(versionDetails)),
      makeDefault: ({ params, payload }) =>
        auditedResourceChange(
          "prompts.makeDefault",
          { body: payload },
          (principal) => prompts.publish(principal, params.promptId, payload.version)
        ),
      setLabel: ({ params, payload }) =>
        auditedAsCaller((principal) => prompts.setLabel(principal, params.promptId, params.label, payload.version), {
          endpoint: "prompts.setLabel",
          resourceId: (label) => label.prompt_id,
          body: { label: params.label, ...payload }
        }),
      get: ({ params }) =>
        asCaller((principal) => prompts.get(principal, params.promptId)).pipe(
          Effect.map(({ labels, prompt, versions }) => ({ ...prompt, object: "prompt" as const, versions, labels }))
        ),
      list: ({ query }) =>
        pageAsCaller(query, (principal, request) => prompts.list(principal, query.workspace_id, request)),
      delete: ({ params }) =>
        auditedResourceChange(
          "prompts.delete",
          { body: null },
          (principal) => prompts.remove(principal, params.promptId)
        ).pipe(
          Effect.map((prompt) => ({ ...prompt, object: "prompt" as const, deleted: true as const }))
        ),
      createPartial: ({ payload }) =>
        auditedResourceChange(
          "prompts.createPartial",
          { body: payload },
          (principal) => Effect.map(prompts.createPartial(principal, payload), partialVersionCreated)
        ),
      updatePartial: ({ params, payload, query }) =>
        auditedResourceChange(
          "prompts.updatePartial",
          { ref: params.partialId, body: payload },
          (principal) =>
            Effect.map(prompts.updatePartial(principal, params.partialId, payload, query.workspace_id), partialChanged)
        ),
      publishPartial: ({ params, payload, query }) =>
        auditedResourceChange(
          "prompts.publishPartial",
          { ref: params.partialId, body: payload },
          (principal) =>
            Effect.map(
              prompts.publishPartial(principal, params.partialId, payload.version, query.workspace_id),
              partialChanged
            )
        ),
      listPartialVersions: ({ params, query }) =>
        asCaller((principal) => prompts.listPartialVersions(principal, params.partialId, query.workspace_id)).pipe(
          Effect.map((versions) =>
            wholeList(versions.map((version) => ({ ...version, object: "prompt-partial-version" as const })))
          )
        ),
      deletePartial: ({ params, query }) =>
        auditedResourceChange(
          "prompts.deletePartial",
          { ref: params.partialId, body: null },
          (principal) => prompts.deletePartial(principal, params.partialId, query.workspace_id)
        ).pipe(Effect.map((partial) => ({ ...partial, object: "prompt-partial" as const, deleted: true as const }))),
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
        pageAsCaller(query, (principal, request) => prompts.listPartials(principal, query.workspace_id, request))
    }))
)
