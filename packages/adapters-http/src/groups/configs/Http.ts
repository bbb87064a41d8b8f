import { Configs, type ConfigVersion, type GatewayConfig } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

/** A config as reads show it (`ConfigDetails`). */
const details = (config: GatewayConfig) => ({ ...config, organization_id: config.organisation_id })

/** A version in Portkey's list item shape: the config's fields, the version's name and body. */
const versionItem = (config: GatewayConfig, version: ConfigVersion) => ({
  id: config.id,
  organisation_id: config.organisation_id,
  workspace_id: config.workspace_id,
  slug: config.slug,
  is_default: config.is_default,
  status: config.status,
  name: version.name,
  version: version.version,
  created_at: version.created_at,
  last_updated_at: version.created_at,
  // Portkey's answer carries each version's config as a JSON string.
  config: JSON.stringify(version.config),
  format: "json" as const,
  version_id: version.id,
  object: "config" as const
})

export const ConfigsHandlers = HttpApiBuilder.group(
  GatewayApi,
  "configs",
  withService(Configs, (handlers, configs) =>
    handlers.handleAll({
      create: ({ payload }) =>
        asCaller((principal) => configs.createConfig(principal, payload)).pipe(
          Effect.map((c) => ({ id: c.id, slug: c.slug, version_id: c.version_id, object: "config" as const }))
        ),
      list: ({ query }) =>
        pageAsCaller(query, (principal, request) =>
          configs.listConfigs(principal, query.workspace_id, request).pipe(
            Effect.map((page) => ({ ...page, items: page.items.map(details) }))
          )),
      get: ({ params, query }) =>
        asCaller((principal) => configs.getConfig(principal, params.id, query.workspace_id)).pipe(Effect.map(details)),
      update: ({ params, payload, query }) =>
        asCaller((principal) => configs.updateConfig(principal, params.id, payload, query.workspace_id)).pipe(
          Effect.map((c) => ({ ...details(c), object: "config" as const }))
        ),
      delete: ({ params, query }) =>
        asCaller((principal) => configs.deleteConfig(principal, params.id, query.workspace_id)).pipe(
          Effect.map((c) => ({ ...c, object: "config" as const, deleted: true as const }))
        ),
      listVersions: ({ params, query }) =>
        asCaller((principal) => configs.listConfigVersions(principal, params.id, query.workspace_id)).pipe(
          Effect.map(({ config, versions }) => ({
            object: "list" as const,
            total: versions.length,
            has_more: false,
            data: versions.map((version) => versionItem(config, version))
          }))
        )
    }))
)
