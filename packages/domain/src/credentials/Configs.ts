/**
 * The configs of a workspace as a principal manages them, and as a provider call resolves them by slug.
 * (A config given inline with a call is parsed by `resolveInlineConfig`, Config.ts.)
 */
import { Context, Effect, Layer, Option } from "effect"
import { grantedWrites } from "../access/GrantedWrites.ts"
import type { Principal } from "../access/Principal.ts"
import { knownProvider, ProviderRegistry } from "../fine-tuning/Providers.ts"
import { type Conflict, type Forbidden, InvalidRequest, type NotFound } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { maskKey } from "./ApiKey.ts"
import { type ConfigInput, GatewayConfig, parseConfig, type ResolvedConfig } from "./Config.ts"
import { makeProviderKeyRecords } from "./internal/providerKeyRecords.ts"
import { ConfigStore } from "./ProviderKeyStores.ts"

type Failure = InvalidRequest | Forbidden | NotFound

export class Configs extends Context.Service<
  Configs,
  {
    readonly createConfig: (
      principal: Principal,
      input: ConfigInput
    ) => Effect.Effect<GatewayConfig, Failure | Conflict>
    readonly listConfigs: (
      principal: Principal,
      workspaceId: string | undefined,
      page: PageRequest
    ) => Effect.Effect<Page<GatewayConfig>, Failure>
    readonly getConfig: (principal: Principal, id: string) => Effect.Effect<GatewayConfig, Failure>
    readonly deleteConfig: (principal: Principal, id: string) => Effect.Effect<GatewayConfig, Failure>
    /**
     * A workspace's config by slug, with its key decrypted, for a provider call; an unknown slug is refused
     * naming the field `config`.
     */
    readonly resolveConfig: (workspaceId: string, slug: string) => Effect.Effect<ResolvedConfig, InvalidRequest>
  }
>()("@gateway-control/Configs") {
  static readonly layer = Layer.effect(
    Configs,
    Effect.gen(function*() {
      const configs = grantedWrites(yield* ConfigStore, { insert: "configs.create", delete: "configs.delete" })
      const registry = yield* ProviderRegistry
      const records = yield* makeProviderKeyRecords
      const managed = records.management(configs, "config", "Configs", {
        list: "configs.list",
        read: "configs.read",
        delete: "configs.delete"
      })

      const createConfig = Effect.fn("Configs.create")(function*(principal: Principal, input: ConfigInput) {
        const { allowed, fields } = yield* records.newRecordFields(principal, input, "configs.create")
        const parsed = parseConfig(input.config)
        if (parsed instanceof InvalidRequest) return yield* parsed
        if (parsed.target.provider !== undefined) {
          yield* knownProvider(registry, parsed.target.provider, "config.provider")
        }
        if (parsed.target.custom_host !== undefined) {
          yield* records.checkHost(parsed.target.custom_host, "config.custom_host")
        }
        const record = new GatewayConfig({
          ...fields,
          config: parsed.target,
          masked_api_key: parsed.apiKey === undefined ? null : maskKey(parsed.apiKey)
        })
        yield* configs.insert(allowed, {
          record,
          encryptedKey: parsed.apiKey === undefined ? null : records.encrypt(parsed.apiKey)
        })
        return record
      })

      const resolveConfig = Effect.fn("Configs.resolveConfig")(function*(workspaceId: string, slug: string) {
        const found = yield* configs.findBySlug(workspaceId, slug)
        if (Option.isNone(found)) {
          return yield* InvalidRequest.of(`Unknown config '${slug}' in this workspace.`, "config")
        }
        return {
          slug,
          target: found.value.record.config,
          apiKey: yield* records.decrypt(found.value.encryptedKey, `config '${slug}'`)
        }
      })

      return Configs.of({
        createConfig,
        listConfigs: managed.list,
        getConfig: managed.get,
        deleteConfig: managed.delete,
        resolveConfig
      })
    })
  )
}
