import { type CredentialHealth, CredentialHealthChecks, type Integration, Integrations } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withServices } from "../../internal/groupHandlers.ts"

/** A credential's health as answered: without the integration's id, which the answer around it names. */
export const healthAnswer = ({ integration_id: _, ...health }: CredentialHealth) => health

/** An integration in Portkey's shape: optional text left out when there is none; its credential's health, if checked. */
const answer = (
  integration: Integration,
  workspaceCount: number,
  health: Option.Option<CredentialHealth> = Option.none()
) => {
  const { description, global_workspace_access_settings, masked_key, ...rest } = integration
  return {
    ...rest,
    ...(description === null ? {} : { description }),
    ...(masked_key === null ? {} : { masked_key }),
    ...(global_workspace_access_settings === null ? {} : { global_workspace_access_settings }),
    workspace_count: workspaceCount,
    ...(Option.isSome(health) ? { credential_health: healthAnswer(health.value) } : {}),
    object: "integration" as const
  }
}

const models = (integration: Integration) => ({
  total: integration.models.length,
  allow_all_models: integration.allow_all_models,
  models: integration.models.map((model) => ({ ...model, name: model.slug }))
})

const workspaces = (listed: ReadonlyArray<Integration["workspaces"][number]>) => ({
  total: listed.length,
  workspaces: listed
})

/** The workspaces an organisation-level integration was given; a workspace's own, its workspace. */
const enabledCount = (integration: Integration) =>
  integration.workspace_id === null ? integration.workspaces.filter((w) => w.enabled).length : 1

export const IntegrationsHandlers = HttpApiBuilder.group(
  GatewayApi,
  "integrations",
  withServices(
    Effect.all({ integrations: Effect.service(Integrations), checks: Effect.service(CredentialHealthChecks) }),
    (handlers, { checks, integrations }) =>
      handlers.handleAll({
        create: ({ payload }) =>
          asCaller((principal) => integrations.create(principal, payload)).pipe(
            Effect.map((i) => ({ id: i.id, slug: i.slug, object: "integration" as const }))
          ),
        list: ({ query }) =>
          pageAsCaller(
            query,
            (principal, request) =>
              Effect.flatMap(
                integrations.list(principal, { workspaceId: query.workspace_id, type: query.type }, request),
                // The page's credential health in one read (not one a row).
                (page) =>
                  Effect.map(checks.currentOf(page.items.map((i) => i.id)), (health) => ({
                    ...page,
                    items: page.items.map((i) => answer(i, enabledCount(i), Option.fromUndefinedOr(health.get(i.id))))
                  }))
              )
          ),
        get: ({ params }) =>
          asCaller((principal) =>
            Effect.flatMap(
              integrations.get(principal, params.slug),
              ({ integration, workspaceCount }) =>
                Effect.map(checks.current(integration.id), (health) => answer(integration, workspaceCount, health))
            )
          ),
        test: ({ params }) =>
          asCaller((principal) => checks.test(principal, params.slug)).pipe(
            Effect.map(({ health }) => healthAnswer(health))
          ),
        update: ({ params, payload }) =>
          asCaller((principal) => integrations.update(principal, params.slug, payload)).pipe(
            Effect.map((i) => answer(i, enabledCount(i)))
          ),
        delete: ({ params }) =>
          asCaller((principal) => integrations.delete(principal, params.slug)).pipe(
            Effect.map((i) => ({ id: i.id, object: "integration" as const, deleted: true as const }))
          ),
        getWorkspaces: ({ params }) =>
          asCaller((principal) => integrations.getWorkspaces(principal, params.slug)).pipe(
            Effect.map((access) => workspaces(access.workspaces))
          ),
        updateWorkspaces: ({ params, payload }) =>
          asCaller((principal) =>
            Effect.flatMap(
              integrations.updateWorkspaces(principal, params.slug, payload),
              (i) => integrations.getWorkspaces(principal, i.id)
            )
          ).pipe(Effect.map((access) => workspaces(access.workspaces))),
        getModels: ({ params }) =>
          asCaller((principal) => integrations.getModels(principal, params.slug)).pipe(Effect.map(models)),
        updateModels: ({ params, payload }) =>
          asCaller((principal) => integrations.updateModels(principal, params.slug, payload)).pipe(Effect.map(models)),
        deleteModels: ({ params, query }) =>
          asCaller((principal) =>
            integrations.deleteModels(
              principal,
              params.slug,
              query.slugs.split(",").map((slug) => slug.trim()).filter((slug) => slug.length > 0)
            )
          ).pipe(Effect.map(models))
      })
  )
)
