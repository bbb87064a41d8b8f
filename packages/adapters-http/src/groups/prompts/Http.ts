import { Prompts } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, auditedAsCaller, auditedResourceChange, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

/** A new version as its answer: the owner's id and slug, the version's id and number. */
const versionCreated = (
  { owner, version }: {
    readonly owner: { readonly id: string; readonly slug: string }
    readonly version: { readonly id: string; readonly version: number }
  }
) => ({ ...owner, version_id: version.id, version: version.version })

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
            ...versionCreated({ owner: { id: version.prompt_id, slug: version.slug }, version }),
            object: "prompt" as const
          }))
        ),
      update: ({ params, payload }) =>
        auditedAsCaller((principal) => prompts.update(principal, params.promptId, payload), {
          endpoint: "prompts.update",
          resourceId: (r) => r.prompt.id,
          workspaceId: (r) => r.prompt.workspace_id,
          body: payload
        }).pipe(
          Effect.map(({ prompt, version }) => versionCreated({ owner: prompt, version }))
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
        auditedAsCaller((principal) => prompts.createPartial(principal, payload), {
          endpoint: "prompts.createPartial",
          resourceId: (r) => r.partial.id,
          workspaceId: (r) => r.partial.workspace_id,
          body: payload
        }).pipe(
          Effect.map(({ partial, version }) => versionCreated({ owner: partial, version }))
        ),
      updatePartial: ({ params, payload }) =>
        auditedAsCaller((principal) => prompts.updatePartial(principal, params.partialId, payload), {
          endpoint: "prompts.updatePartial",
          resourceId: (r) => r.partial.id,
          workspaceId: (r) => r.partial.workspace_id,
          body: payload
        }).pipe(
          Effect.map(({ partial, version }) => versionCreated({ owner: partial, version }))
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
