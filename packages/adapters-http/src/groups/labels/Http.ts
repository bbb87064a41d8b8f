import { type Label, Prompts } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

/** The label as `LabelDetails` encodes it: strings Portkey declares are left out when absent. */
const details = (label: Label) => {
  const { color_code, description, workspace_id, ...rest } = label
  return {
    ...rest,
    ...(workspace_id === null ? {} : { workspace_id }),
    ...(description === null ? {} : { description }),
    ...(color_code === null ? {} : { color_code }),
    object: "label" as const
  }
}

export const LabelsHandlers = HttpApiBuilder.group(
  GatewayApi,
  "labels",
  withService(Prompts, (handlers, prompts) =>
    handlers.handleAll({
      create: ({ payload }) =>
        asCaller((principal) => prompts.createLabel(principal, payload)).pipe(Effect.map(details)),
      list: ({ query }) =>
        pageAsCaller(
          query,
          (principal, request) => prompts.listLabels(principal, query.workspace_id, request, query.search)
        ).pipe(
          Effect.map((list) => ({ ...list, data: list.data.map(details) }))
        ),
      get: ({ params }) => asCaller((principal) => prompts.getLabel(principal, params.id)).pipe(Effect.map(details)),
      update: ({ params, payload }) =>
        asCaller((principal) => prompts.updateLabel(principal, params.id, payload)).pipe(Effect.map(details)),
      delete: ({ params }) =>
        asCaller((principal) => prompts.deleteLabel(principal, params.id)).pipe(
          Effect.map((label) => ({ ...details(label), deleted: true as const }))
        )
    }))
)
