/**
 * Stored provider credentials of a workspace: virtual keys (a provider, its API key, optionally a custom
 * host) and configs (how to route a call). Provider keys are encrypted at rest and never read back.
 */
import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { slugify } from "../access/AccessModel.ts"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { type Action, ensureAllowed, ensureListScope, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { parseCustomHost } from "../fine-tuning/CustomHosts.ts"
import { ProviderRegistry, SecretCipher } from "../fine-tuning/Providers.ts"
import { type Conflict, type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { jsonProblem } from "../shared/InputRules.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { maskKey } from "./ApiKey.ts"

/** The fields of a virtual key's creation body that hold the provider key: never stored or logged in clear. */
export const VIRTUAL_KEY_SECRET_FIELDS: ReadonlyArray<ReadonlyArray<string>> = [["key"]]

/** The fields of a config's creation body that hold a provider key. */
export const CONFIG_SECRET_FIELDS: ReadonlyArray<ReadonlyArray<string>> = [["config", "api_key"]]

export class VirtualKey extends Schema.Class<VirtualKey>("VirtualKey")({
  id: Schema.String,
  organisation_id: Schema.String,
  workspace_id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  provider: Schema.String,
  masked_key: Schema.String,
  custom_host: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/** The routing a config gives: one provider target for fine-tuning listings. */
export const ConfigTarget = Schema.Struct({
  provider: Schema.optionalKey(Schema.String),
  virtual_key: Schema.optionalKey(Schema.String),
  custom_host: Schema.optionalKey(Schema.String),
  request_timeout: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 600_000 })))
})
export type ConfigTarget = typeof ConfigTarget.Type

export class GatewayConfig extends Schema.Class<GatewayConfig>("GatewayConfig")({
  id: Schema.String,
  organisation_id: Schema.String,
  workspace_id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  /** The config without its API key. */
  config: ConfigTarget,
  /** The masked API key, when the config carries one. */
  masked_api_key: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

export interface StoredSecret<A> {
  readonly record: A
  /** The provider key, encrypted with the gateway's master key; null when there is none. */
  readonly encryptedKey: string | null
}

export class VirtualKeyStore extends Context.Service<
  VirtualKeyStore,
  {
    readonly insert: (key: StoredSecret<VirtualKey>) => Effect.Effect<void, Conflict>
    readonly get: (id: string) => Effect.Effect<Option.Option<StoredSecret<VirtualKey>>>
    readonly findBySlug: (workspaceId: string, slug: string) => Effect.Effect<Option.Option<StoredSecret<VirtualKey>>>
    readonly list: (
      organisationId: string,
      workspaceId: string | null,
      page: PageRequest
    ) => Effect.Effect<Page<VirtualKey>>
    readonly delete: (id: string) => Effect.Effect<boolean>
  }
>()("@gateway-control/VirtualKeyStore") {}

export class ConfigStore extends Context.Service<
  ConfigStore,
  {
    readonly insert: (config: StoredSecret<GatewayConfig>) => Effect.Effect<void, Conflict>
    readonly get: (id: string) => Effect.Effect<Option.Option<StoredSecret<GatewayConfig>>>
    readonly findBySlug: (
      workspaceId: string,
      slug: string
    ) => Effect.Effect<Option.Option<StoredSecret<GatewayConfig>>>
    readonly list: (
      organisationId: string,
      workspaceId: string | null,
      page: PageRequest
    ) => Effect.Effect<Page<GatewayConfig>>
    readonly delete: (id: string) => Effect.Effect<boolean>
  }
>()("@gateway-control/ConfigStore") {}

export interface VirtualKeyInput {
  readonly name: string
  readonly slug?: string | undefined
  readonly provider: string
  readonly key: string
  readonly custom_host?: string | undefined
  readonly workspace_id?: string | undefined
}

export interface ConfigInput {
  readonly name: string
  readonly slug?: string | undefined
  readonly config: Readonly<Record<string, unknown>>
  readonly workspace_id?: string | undefined
}

/** What a config, parsed and with its key decrypted, says about a call. */
export interface ResolvedConfig {
  /** The stored config's slug; undefined for an inline config, which the request itself supplies. */
  readonly slug: string | undefined
  readonly target: ConfigTarget
  readonly apiKey: Redacted.Redacted<string> | undefined
}

/** Credentials a call can use: a provider, its key, and where to send the call. */
export interface ResolvedVirtualKey {
  readonly slug: string
  readonly provider: string
  readonly apiKey: Redacted.Redacted<string>
  readonly customHost: string | null
}

type Failure = InvalidRequest | Forbidden | NotFound

const SLUG = /^[a-zA-Z0-9_-]{1,64}$/
const CONFIG_FIELDS = new Set([
  "provider",
  "api_key",
  "virtual_key",
  "custom_host",
  "request_timeout",
  "targets",
  "strategy"
])
const decodeTarget = Schema.decodeUnknownOption(ConfigTarget)

/** Parses a config object: at most one target, known fields only. Pure. */
export const parseConfig = (
  config: unknown,
  param = "config"
): { readonly target: ConfigTarget; readonly apiKey: string | undefined } | InvalidRequest => {
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    return InvalidRequest.of("A config must be a JSON object.", param)
  }
  let body = config as Record<string, unknown>
  const unknown = Object.keys(body).filter((k) => !CONFIG_FIELDS.has(k))
  if (unknown.length > 0) {
    return InvalidRequest.of(
      `Unknown config fields: ${
        unknown.join(", ")
      }. Known: provider, api_key, virtual_key, custom_host, request_timeout.`,
      `${param}.${unknown[0]}`
    )
  }
  if (body.targets !== undefined) {
    if (!Array.isArray(body.targets) || body.targets.length === 0) {
      return InvalidRequest.of("targets must be a non-empty list.", `${param}.targets`)
    }
    if (body.targets.length > 1) {
      return InvalidRequest.of("Maximum one target is allowed for fine_tuning requests", `${param}.targets`)
    }
    const { targets, strategy: _strategy, ...rest } = body
    body = { ...rest, ...(targets[0] as Record<string, unknown>) }
  }
  const apiKey = body.api_key
  if (apiKey !== undefined && (typeof apiKey !== "string" || apiKey.length === 0)) {
    return InvalidRequest.of("api_key must be a non-empty string.", `${param}.api_key`)
  }
  const { api_key: _key, strategy: _s, targets: _t, ...fields } = body
  const target = decodeTarget(fields)
  if (Option.isNone(target)) {
    return InvalidRequest.of(
      "provider, virtual_key and custom_host are strings; request_timeout is 1 to 600000 ms.",
      param
    )
  }
  if (target.value.provider !== undefined && target.value.virtual_key !== undefined) {
    return InvalidRequest.of("Maximum one target is allowed for fine_tuning requests", param)
  }
  // A virtual key's provider key goes only to the host stored with that key (see ProviderChoice.ts).
  if (target.value.virtual_key !== undefined && target.value.custom_host !== undefined) {
    return InvalidRequest.of(
      "custom_host cannot be combined with virtual_key: a virtual key's provider key is only sent to the host " +
        "stored with the virtual key. Set custom_host on the virtual key instead.",
      `${param}.custom_host`
    )
  }
  return { target: target.value, apiKey: apiKey as string | undefined }
}

export class VirtualKeys extends Context.Service<
  VirtualKeys,
  {
    readonly createVirtualKey: (
      principal: Principal,
      input: VirtualKeyInput
    ) => Effect.Effect<VirtualKey, Failure | Conflict>
    readonly listVirtualKeys: (
      principal: Principal,
      workspaceId: string | undefined,
      page: PageRequest
    ) => Effect.Effect<Page<VirtualKey>, Failure>
    readonly getVirtualKey: (principal: Principal, id: string) => Effect.Effect<VirtualKey, Failure>
    readonly deleteVirtualKey: (principal: Principal, id: string) => Effect.Effect<VirtualKey, Failure>
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
    /** A workspace's virtual key by slug, with its key decrypted, for a provider call. */
    readonly resolveVirtualKey: (workspaceId: string, slug: string) => Effect.Effect<ResolvedVirtualKey, InvalidRequest>
    /** A workspace's config by slug, or an inline JSON config, for a provider call. */
    readonly resolveConfig: (workspaceId: string, slugOrJson: string) => Effect.Effect<ResolvedConfig, InvalidRequest>
  }
>()("@gateway-control/VirtualKeys") {
  static readonly layer = Layer.effect(
    VirtualKeys,
    Effect.gen(function*() {
      const keys = yield* VirtualKeyStore
      const configs = yield* ConfigStore
      const workspaces = yield* WorkspaceStore
      const cipher = yield* SecretCipher
      const crypto = yield* PlatformCrypto
      const registry = yield* ProviderRegistry

      const targetWorkspace = Effect.fnUntraced(
        function*(principal: Principal, workspaceId: string | undefined, action: Action) {
          const id = workspaceId ?? principal.workspaceId
          if (id === null) {
            return yield* InvalidRequest.of("workspace_id is required with an admin key.", "workspace_id")
          }
          const workspace = yield* requireRow(yield* workspaces.get(id), "workspace", id)
          yield* ensureAllowed(principal, action, Target.workspace(workspace.organisation_id, workspace.id), {
            type: "workspace",
            id
          })
          return workspace
        }
      )

      const checkName = (name: string) =>
        name.trim().length === 0 || name.length > 255
          ? Effect.fail(InvalidRequest.of("name must be 1 to 255 characters.", "name"))
          : Effect.void

      const checkSlug = (slug: string) =>
        SLUG.test(slug)
          ? Effect.void
          : Effect.fail(InvalidRequest.of("slug must be 1 to 64 letters, digits, '_' or '-'.", "slug"))

      /** The custom host's shape; its addresses are checked at each call, when they are resolved and pinned. */
      const checkHost = (host: string, param: string) => {
        const parsed = parseCustomHost(host, param)
        return parsed instanceof InvalidRequest ? Effect.fail(parsed) : Effect.void
      }

      const checkProvider = (provider: string, param: string) =>
        registry.baseUrls.has(provider)
          ? Effect.void
          : Effect.fail(InvalidRequest.of(
            `Unknown provider '${provider}'. Known providers: ${[...registry.baseUrls.keys()].join(", ")}.`,
            param
          ))

      const createVirtualKey = Effect.fn("VirtualKeys.create")(function*(principal: Principal, input: VirtualKeyInput) {
        const workspace = yield* targetWorkspace(principal, input.workspace_id, "virtual_keys.create")
        yield* checkName(input.name)
        const slug = input.slug ?? slugify(input.name)
        yield* checkSlug(slug)
        yield* checkProvider(input.provider, "provider")
        if (input.key.length === 0) return yield* InvalidRequest.of("key must be the provider's API key.", "key")
        if (input.custom_host !== undefined) yield* checkHost(input.custom_host, "custom_host")
        const now = yield* nowIso
        const record = new VirtualKey({
          id: crypto.uuid(),
          organisation_id: workspace.organisation_id,
          workspace_id: workspace.id,
          name: input.name.trim(),
          slug,
          provider: input.provider,
          masked_key: maskKey(input.key),
          custom_host: input.custom_host ?? null,
          created_at: now,
          last_updated_at: now
        })
        yield* keys.insert({ record, encryptedKey: cipher.encrypt(input.key) })
        return record
      })

      const owned = Effect.fnUntraced(
        function*<A extends { readonly organisation_id: string; readonly workspace_id: string }>(
          principal: Principal,
          found: Option.Option<StoredSecret<A>>,
          id: string,
          resource: string,
          action: Action
        ) {
          const { record } = yield* requireRow(found, resource, id)
          yield* ensureAllowed(principal, action, Target.workspace(record.organisation_id, record.workspace_id), {
            type: resource,
            id
          })
          return record
        }
      )

      const listScope = ensureListScope

      const createConfig = Effect.fn("VirtualKeys.createConfig")(function*(principal: Principal, input: ConfigInput) {
        const workspace = yield* targetWorkspace(principal, input.workspace_id, "configs.create")
        yield* checkName(input.name)
        const slug = input.slug ?? slugify(input.name)
        yield* checkSlug(slug)
        const parsed = parseConfig(input.config)
        if (parsed instanceof InvalidRequest) return yield* parsed
        if (parsed.target.provider !== undefined) yield* checkProvider(parsed.target.provider, "config.provider")
        if (parsed.target.custom_host !== undefined) yield* checkHost(parsed.target.custom_host, "config.custom_host")
        const now = yield* nowIso
        const record = new GatewayConfig({
          id: crypto.uuid(),
          organisation_id: workspace.organisation_id,
          workspace_id: workspace.id,
          name: input.name.trim(),
          slug,
          config: parsed.target,
          masked_api_key: parsed.apiKey === undefined ? null : maskKey(parsed.apiKey),
          created_at: now,
          last_updated_at: now
        })
        yield* configs.insert({
          record,
          encryptedKey: parsed.apiKey === undefined ? null : cipher.encrypt(parsed.apiKey)
        })
        return record
      })

      const decrypt = (encrypted: string | null, what: string) => {
        if (encrypted === null) return Effect.succeed(undefined)
        const plaintext = cipher.decrypt(encrypted)
        return plaintext === undefined
          ? Effect.die(new Error(`The provider key of ${what} cannot be decrypted: was GATEWAY_MASTER_KEY changed?`))
          : Effect.succeed(Redacted.make(plaintext))
      }

      const resolveVirtualKey = Effect.fn("VirtualKeys.resolveVirtualKey")(
        function*(workspaceId: string, slug: string) {
          const found = yield* keys.findBySlug(workspaceId, slug)
          if (Option.isNone(found)) {
            return yield* InvalidRequest.of(`Unknown virtual key '${slug}' in this workspace.`, "x-service-virtual-key")
          }
          const apiKey = yield* decrypt(found.value.encryptedKey, `virtual key '${slug}'`)
          return {
            slug,
            provider: found.value.record.provider,
            apiKey: apiKey!,
            customHost: found.value.record.custom_host
          }
        }
      )

      const resolveConfig = Effect.fn("VirtualKeys.resolveConfig")(function*(workspaceId: string, slugOrJson: string) {
        if (slugOrJson.trimStart().startsWith("{")) {
          let inline: unknown
          try {
            inline = JSON.parse(slugOrJson)
          } catch {
            return yield* InvalidRequest.of(
              "x-service-config is neither a config slug nor valid JSON.",
              "x-service-config"
            )
          }
          const refused = jsonProblem(inline, "x-service-config")
          if (refused !== undefined) return yield* refused
          const parsed = parseConfig(inline, "x-service-config")
          if (parsed instanceof InvalidRequest) return yield* parsed
          return {
            slug: undefined,
            target: parsed.target,
            apiKey: parsed.apiKey === undefined ? undefined : Redacted.make(parsed.apiKey)
          }
        }
        const found = yield* configs.findBySlug(workspaceId, slugOrJson)
        if (Option.isNone(found)) {
          return yield* InvalidRequest.of(`Unknown config '${slugOrJson}' in this workspace.`, "x-service-config")
        }
        return {
          slug: slugOrJson,
          target: found.value.record.config,
          apiKey: yield* decrypt(found.value.encryptedKey, `config '${slugOrJson}'`)
        }
      })

      return VirtualKeys.of({
        createVirtualKey,
        listVirtualKeys: Effect.fn("VirtualKeys.list")(function*(principal, workspaceId, page) {
          return yield* keys.list(
            principal.organisationId,
            yield* listScope(principal, workspaceId, "virtual_keys.list"),
            page
          )
        }),
        getVirtualKey: Effect.fn("VirtualKeys.get")(function*(principal, id) {
          return yield* owned(principal, yield* keys.get(id), id, "virtual key", "virtual_keys.read")
        }),
        deleteVirtualKey: Effect.fn("VirtualKeys.delete")(function*(principal, id) {
          const record = yield* owned(principal, yield* keys.get(id), id, "virtual key", "virtual_keys.delete")
          yield* keys.delete(id)
          return record
        }),
        createConfig,
        listConfigs: Effect.fn("VirtualKeys.listConfigs")(function*(principal, workspaceId, page) {
          return yield* configs.list(
            principal.organisationId,
            yield* listScope(principal, workspaceId, "configs.list"),
            page
          )
        }),
        getConfig: Effect.fn("VirtualKeys.getConfig")(function*(principal, id) {
          return yield* owned(principal, yield* configs.get(id), id, "config", "configs.read")
        }),
        deleteConfig: Effect.fn("VirtualKeys.deleteConfig")(function*(principal, id) {
          const record = yield* owned(principal, yield* configs.get(id), id, "config", "configs.delete")
          yield* configs.delete(id)
          return record
        }),
        resolveVirtualKey,
        resolveConfig
      })
    })
  )
}
