import { CurrentPrincipal, Prompts } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../Api.ts"
import { fromDomain } from "../ApiErrors.ts"
import { audited } from "../internal/audited.ts"
import { listBody, pageOf } from "../internal/listing.ts"

/** The answer to a new version of a prompt or partial. */
const versionBody = (
  owner: { readonly id: string; readonly slug: string },
  version: { readonly id: string; readonly version: number }
) => ({ id: owner.id, slug: owner.slug, version_id: version.id, version: version.version })

const principal = Effect.service(CurrentPrincipal)

export const PromptsHandlers = HttpApiBuilder.group(
  GatewayApi,
  "prompts",
  Effect.fnUntraced(function*(handlers) {
    const prompts = yield* Prompts
    return handlers.handleAll({
      create: ({ payload }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "create",
            resourceType: "prompt",
            resourceId: (v) => v.prompt_id,
            status: 201,
            body: payload
          }, prompts.create(p, payload))).pipe(
            Effect.map((v) => ({
              id: v.prompt_id,
              slug: v.slug,
              version_id: v.id,
              version: v.version,
              object: "prompt" as const
            })),
            Effect.mapError(fromDomain)
          ),
      update: ({ params, payload }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "update",
            resourceType: "prompt",
            resourceId: (r) => r.prompt.id,
            workspaceId: (r) => r.prompt.workspace_id,
            status: 200,
            body: payload
          }, prompts.update(p, params.promptId, payload))).pipe(
            Effect.map(({ prompt, version }) => versionBody(prompt, version)),
            Effect.mapError(fromDomain)
          ),
      makeDefault: ({ params, payload }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "publish",
            resourceType: "prompt",
            resourceId: (prompt) => prompt.id,
            workspaceId: (prompt) => prompt.workspace_id,
            status: 200,
            body: payload
          }, prompts.publish(p, params.promptId, payload.version))).pipe(
            Effect.map((prompt) => ({ id: prompt.id, published_version: prompt.published_version })),
            Effect.mapError(fromDomain)
          ),
      setLabel: ({ params, payload }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "label",
            resourceType: "prompt",
            resourceId: (label) => label.prompt_id,
            status: 200,
            body: { label: params.label, ...payload }
          }, prompts.setLabel(p, params.promptId, params.label, payload.version))).pipe(Effect.mapError(fromDomain)),
      get: ({ params }) =>
        Effect.flatMap(principal, (p) => prompts.get(p, params.promptId)).pipe(
          Effect.map(({ labels, prompt, versions }) => ({ ...prompt, object: "prompt" as const, versions, labels })),
          Effect.mapError(fromDomain)
        ),
      list: ({ query }) =>
        Effect.gen(function*() {
          const request = pageOf(query)
          const page = yield* prompts.list(yield* principal, query.workspace_id, request)
          return listBody(page, request)
        }).pipe(Effect.mapError(fromDomain)),
      delete: ({ params }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "delete",
            resourceType: "prompt",
            resourceId: (prompt) => prompt.id,
            workspaceId: (prompt) => prompt.workspace_id,
            status: 200,
            body: null
          }, prompts.remove(p, params.promptId))).pipe(
            Effect.map((prompt) => ({ id: prompt.id, object: "prompt" as const, deleted: true as const })),
            Effect.mapError(fromDomain)
          ),
      createPartial: ({ payload }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "create",
            resourceType: "prompt_partial",
            resourceId: (r) => r.partial.id,
            workspaceId: (r) => r.partial.workspace_id,
            status: 201,
            body: payload
          }, prompts.createPartial(p, payload))).pipe(
            Effect.map(({ partial, version }) => versionBody(partial, version)),
            Effect.mapError(fromDomain)
          ),
      updatePartial: ({ params, payload }) =>
        Effect.flatMap(principal, (p) =>
          audited({
            action: "update",
            resourceType: "prompt_partial",
            resourceId: (r) => r.partial.id,
            workspaceId: (r) => r.partial.workspace_id,
            status: 200,
            body: payload
          }, prompts.updatePartial(p, params.partialId, payload))).pipe(
            Effect.map(({ partial, version }) => versionBody(partial, version)),
            Effect.mapError(fromDomain)
          ),
      getPartial: ({ params }) =>
        Effect.flatMap(principal, (p) => prompts.getPartial(p, params.partialId)).pipe(
          Effect.map(({ partial, version }) => ({
            ...partial,
            object: "prompt-partial" as const,
            string: version.string,
            version_id: version.id
          })),
          Effect.mapError(fromDomain)
        ),
      listPartials: ({ query }) =>
        Effect.gen(function*() {
          const request = pageOf(query)
          const page = yield* prompts.listPartials(yield* principal, query.workspace_id, request)
          return listBody(page, request)
        }).pipe(Effect.mapError(fromDomain))
    })
  })
)
