/**
 * The configs of a workspace as a principal manages them, and as a provider call resolves them by slug.
 * (A config given inline with a call is parsed by `resolveInlineConfig`, Config.ts.)
 */
import { Context, Effect, Layer, Option } from "effect"
import { grantedWrites } from "../access/GrantedWrites.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase, resourceChange } from "../audit/AuditedUseCase.ts"
import { knownProvider, ProviderRegistry } from "../fine-tuning/Providers.ts"
import { type Conflict, type Forbidden, InvalidRequest, type NotFound } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName } from "../shared/Rules.ts"
import { secretBoundWrites } from "../shared/StoredSecretBinding.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { maskKey } from "./ApiKey.ts"
import {
  type ConfigChange,
  type ConfigInput,
  configTarget,
  ConfigVersion,
  GatewayConfig,
  parseConfig,
  providerSlugOf,
  type ResolvedConfig
} from "./Config.ts"
import { makeProviderKeyRecords } from "./internal/providerKeyRecords.ts"
import type { ConfigTargetSpec } from "./PortkeyConfig.ts"
import { ConfigStore } from "./ProviderKeyStores.ts"

type Failure = InvalidRequest | Forbidden | NotFound | StoreError

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
    /** `ref` is the config's id or slug; a slug is looked up in `workspaceId`, else the caller's workspace. */
    readonly getConfig: (
      principal: Principal,
      ref: string,
      workspaceId?: string
    ) => Effect.Effect<GatewayConfig, Failure>
    readonly updateConfig: (
      principal: Principal,
      ref: string,
      change: ConfigChange,
      workspaceId?: string
    ) => Effect.Effect<GatewayConfig, Failure | Conflict>
    /** The config's versions, oldest first: one per create and update. */
    readonly listConfigVersions: (
      principal: Principal,
      ref: string,
      workspaceId?: string
    ) => Effect.Effect<{ readonly config: GatewayConfig; readonly versions: ReadonlyArray<ConfigVersion> }, Failure>
    readonly deleteConfig: (
      principal: Principal,
      ref: string,
      workspaceId?: string
    ) => Effect.Effect<GatewayConfig, Failure>
    /**
     * A workspace's config by slug, with its key decrypted, for a provider call; an unknown slug is refused
     * naming the field `config`.
     */
    readonly resolveConfig: (
      workspaceId: string,
      slug: string
    ) => Effect.Effect<ResolvedConfig, InvalidRequest | StoreError>
  }
>()("@gateway-control/Configs") {
  static readonly layer = Layer.effect(
    Configs,
    Effect.gen(function*() {
      const registry = yield* ProviderRegistry
      const records = yield* makeProviderKeyRecords
      const crypto = yield* PlatformCrypto
      const configs = secretBoundWrites(
        grantedWrites(yield* ConfigStore, {
          insert: "configs.create",
          update: "configs.update",
          delete: "configs.delete",
          addVersion: ["configs.create", "configs.update"],
          clearDefault: ["configs.create", "configs.update"]
        }),
        // A config holding a key routes to one target (parseConfig): its key goes there.
        records.binding<GatewayConfig>("config.custom_host", "config.api_key", (record) => {
          const target = configTarget(record.config)
          return target instanceof InvalidRequest
            ? { customHost: undefined, provider: undefined }
            : { customHost: target.custom_host, provider: target.provider }
        })
      )
      const managed = records.management(configs, "config", "Configs", {
        list: "configs.list",
        read: "configs.read",
        delete: "configs.delete"
      })

      /** Every provider a config names is known, and every custom host well formed, at any level. */
      const checkLevels = (level: ConfigTargetSpec, at: string): Effect.Effect<void, InvalidRequest> =>
        Effect.gen(function*() {
          if (level.provider !== undefined && providerSlugOf(level.provider) === undefined) {
            yield* knownProvider(registry, level.provider, `${at}.provider`)
          }
          if (level.custom_host !== undefined) yield* records.checkHost(level.custom_host, `${at}.custom_host`)
          for (const [i, target] of (level.targets ?? []).entries()) yield* checkLevels(target, `${at}.targets[${i}]`)
        })

      /** A config as stored: parsed, checked, its key masked for reads and encrypted for the store. */
      const storable = Effect.fnUntraced(function*(config: Readonly<Record<string, unknown>>) {
        const parsed = parseConfig(config)
        if (parsed instanceof InvalidRequest) return yield* parsed
        yield* checkLevels(parsed.config, "config")
        return {
          fields: {
            config: parsed.config,
            masked_api_key: parsed.apiKey === undefined ? null : maskKey(parsed.apiKey)
          },
          encryptedKey: parsed.apiKey === undefined ? null : records.encrypt(parsed.apiKey)
        }
      })

      /** The version a create or an update makes: the config's name and body then, numbered after the last. */
      const newVersion = Effect.fnUntraced(function*(record: GatewayConfig) {
        const last = (yield* configs.versions(record.id)).at(-1)
        return new ConfigVersion({
          id: crypto.uuid(),
          config_id: record.id,
          version: (last?.version ?? 0) + 1,
          name: record.name,
          config: record.config,
          created_at: record.last_updated_at
        })
      })

      const createConfig = Effect.fn("Configs.create")(function*(principal: Principal, input: ConfigInput) {
        const { allowed, fields } = yield* records.newRecordFields(principal, input, "configs.create")
        const { encryptedKey, fields: configFields } = yield* storable(input.config)
        const versionId = crypto.uuid()
        const record = new GatewayConfig({
          ...fields,
          ...configFields,
          is_default: input.is_default ?? input.isDefault ?? 0,
          status: "active",
          version_id: versionId
        })
        // One default per workspace: a new default takes the place of the old.
        if (record.is_default === 1) yield* configs.clearDefault(allowed, record.workspace_id)
        yield* configs.insert(allowed, { record, encryptedKey })
        yield* configs.addVersion(allowed, new ConfigVersion({ ...(yield* newVersion(record)), id: versionId }))
        return record
      })

      /**
       * A new name, or a new config that replaces the stored one whole, its key included: a config sent without
       * `api_key` keeps none, so a stored key never follows a new `custom_host` it was not sent with. The rule of
       * stored secrets (StoredSecretBinding.ts) checks it all the same, as for every kind.
       */
      const updateConfig = Effect.fn("Configs.update")(
        function*(principal: Principal, ref: string, change: ConfigChange, workspaceId?: string) {
          const { allowed, record, stored } = yield* records.owned(
            principal,
            configs,
            "config",
            "configs.update",
            ref,
            workspaceId
          )
          if (change.name !== undefined) yield* checkName(change.name)
          const replaced = change.config === undefined ? undefined : yield* storable(change.config)
          const updatedFields = {
            ...record,
            ...replaced?.fields,
            name: change.name?.trim() ?? record.name,
            status: change.status ?? record.status,
            last_updated_at: yield* nowIso
          }
          const version = yield* newVersion(new GatewayConfig(updatedFields))
          const updated = new GatewayConfig({ ...updatedFields, version_id: version.id })
          const encryptedKey = replaced === undefined ? stored.encryptedKey : replaced.encryptedKey
          yield* configs.update(allowed, {
            current: stored,
            updated: { record: updated, encryptedKey },
            supplied: replaced?.encryptedKey == null ? [] : ["config.api_key"]
          })
          yield* configs.addVersion(allowed, version)
          return updated
        }
      )

      const resolveConfig = Effect.fn("Configs.resolveConfig")(function*(workspaceId: string, slug: string) {
        const found = yield* configs.findBySlug(workspaceId, slug)
        if (Option.isNone(found)) {
          return yield* InvalidRequest.of(`Unknown config '${slug}' in this workspace.`, "config")
        }
        if (found.value.record.status === "archived") {
          return yield* InvalidRequest.of(`Config '${slug}' is archived.`, "config")
        }
        const target = configTarget(found.value.record.config)
        if (target instanceof InvalidRequest) return yield* target
        return {
          slug,
          target,
          apiKey: yield* records.decrypt(found.value.encryptedKey, `config '${slug}'`)
        }
      })

      const useCases = yield* AuditedUseCase
      return Configs.of({
        createConfig: (principal, input) =>
          useCases.run(resourceChange("configs.create", principal, input), createConfig(principal, input)),
        listConfigs: managed.list,
        getConfig: managed.get,
        updateConfig: (principal, ref, change, workspaceId) =>
          useCases.run(
            resourceChange("configs.update", principal, change, ref),
            updateConfig(principal, ref, change, workspaceId)
          ),
        deleteConfig: (principal, ref, workspaceId) =>
          useCases.run(
            resourceChange("configs.delete", principal, null, ref),
            managed.delete(principal, ref, workspaceId)
          ),
        listConfigVersions: (principal, ref, workspaceId) =>
          Effect.flatMap(
            managed.get(principal, ref, workspaceId),
            (config) => Effect.map(configs.versions(config.id), (versions) => ({ config, versions }))
          ),
        resolveConfig
      })
    })
  )
}
