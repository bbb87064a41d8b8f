import { type Partial, type PartialVersion, Prompts } from "@gateway-control/domain"
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

/** A partial's new version as its answer. */
const partialVersionCreated = ({ partial, version }: { readonly partial: Partial; readonly version: PartialVersion }) =>
  versionCreated(partial, version)

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
      updatePartial: ({ params, payload }) =>
        auditedResourceChange(
          "prompts.updatePartial",
          { body: payload },
          (principal) => Effect.map(prompts.updatePartial(principal, params.partialId, payload), partialVersionCreated)
        ),
      getPartial: ({ params }) =>
        asCaller((principal) => prompts.getPartial(principal, params.partialId)).pipe(
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
