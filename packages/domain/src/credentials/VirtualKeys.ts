/**
 * Virtual keys, a view of integration + provider pairs (providers and integrations replace virtual keys): a
 * virtual key is a workspace-level integration holding the provider key and custom host, and the workspace's
 * provider on it, the two sharing one id (the provider's `integration_id` is its own id). `/virtual-keys` reads
 * and writes those two records, nothing of its own: a create makes the pair, an update or a key rotation changes
 * it, a delete removes both; reads answer the old shape. The same records answer `/integrations`, `/providers`
 * and `@slug`, and calls resolve them as providers (providers/Providers.ts).
 *
 * Each change is an audited use case under the virtual keys' scopes, recorded as a change of a virtual key.
 */
import { Context, Effect, Layer, Option } from "effect"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureAllowed, ensureListScope, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { findByIdOrSlug, type SlugLookup } from "../access/ResourceLookup.ts"
import { AuditedUseCase, resourceChange } from "../audit/AuditedUseCase.ts"
import { knownProvider, ProviderRegistry } from "../fine-tuning/Providers.ts"
import {
  type AiProviderId,
  Integration,
  IntegrationProviderIds,
  OPENAI_COMPATIBLE,
  type StoredIntegration
} from "../integrations/Integration.ts"
import { destinationOfIntegration } from "../integrations/IntegrationRules.ts"
import { IntegrationStore } from "../integrations/IntegrationStore.ts"
import { Provider } from "../providers/Provider.ts"
import { ProviderStore } from "../providers/ProviderStore.ts"
import { Conflict, type Forbidden, InvalidRequest, type NotFound } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { checkName } from "../shared/Rules.ts"
import { type SecretBinding, secretBoundWrites } from "../shared/StoredSecretBinding.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { maskKey } from "./ApiKey.ts"
import { makeProviderKeyRecords } from "./internal/providerKeyRecords.ts"
import { checkUsageLimits } from "./UsageLimits.ts"
import { VirtualKey, type VirtualKeyChange, type VirtualKeyInput } from "./VirtualKey.ts"

type Failure = InvalidRequest | Forbidden | NotFound | StoreError

/** A virtual key as stored: the workspace's provider and the integration sharing its id. */
export interface VirtualKeyPair {
  readonly provider: Provider
  readonly integration: StoredIntegration
}

/** Whether a provider is a virtual key's: it shares its id with its integration. Pure. */
export const isVirtualKeyProvider = (provider: Provider): boolean => provider.integration_id === provider.id

/** The pair in the virtual key's shape. Pure. */
export const virtualKeyOf = ({ integration: { record: integration }, provider }: VirtualKeyPair): VirtualKey => {
  const host = integration.configurations.custom_host
  return new VirtualKey({
    id: provider.id,
    organisation_id: provider.organisation_id,
    workspace_id: provider.workspace_id,
    name: provider.name,
    slug: provider.slug,
    provider: integration.ai_provider_id,
    masked_key: integration.masked_key ?? "",
    custom_host: typeof host === "string" ? host : null,
    note: provider.note,
    usage_limits: provider.usage_limits,
    created_at: provider.created_at,
    last_updated_at: provider.last_updated_at > integration.last_updated_at
      ? provider.last_updated_at
      : integration.last_updated_at
  })
}

/** The provider types a virtual key may name: the registry's providers that integrations take. */
const integrationTypeOf = (provider: string): AiProviderId | undefined =>
  IntegrationProviderIds.find((type) => type === provider && OPENAI_COMPATIBLE.has(type))

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
    /** `ref` is the key's id or slug; a slug is looked up in `workspaceId`, else the caller's workspace. */
    readonly getVirtualKey: (
      principal: Principal,
      ref: string,
      workspaceId?: string
    ) => Effect.Effect<VirtualKey, Failure>
    readonly updateVirtualKey: (
      principal: Principal,
      ref: string,
      change: VirtualKeyChange,
      workspaceId?: string
    ) => Effect.Effect<VirtualKey, Failure | Conflict>
    readonly deleteVirtualKey: (
      principal: Principal,
      ref: string,
      workspaceId?: string
    ) => Effect.Effect<VirtualKey, Failure | Conflict>
  }
>()("@gateway-control/VirtualKeys") {
  static readonly layer = Layer.effect(
    VirtualKeys,
    Effect.gen(function*() {
      const registry = yield* ProviderRegistry
      const workspaces = yield* WorkspaceStore
      const providerStore = yield* ProviderStore
      const integrationStore = yield* IntegrationStore
      const records = yield* makeProviderKeyRecords
      const useCases = yield* AuditedUseCase
      const providers = grantedWrites(providerStore, {
        insert: "virtual_keys.create",
        update: "virtual_keys.update",
        delete: "virtual_keys.delete"
      })
      /** The integration's key goes only to its destination: a new custom host needs the key again. */
      const binding: SecretBinding<StoredIntegration> = {
        destinationField: "custom_host",
        destination: ({ record }) =>
          destinationOfIntegration(record.ai_provider_id, record.configurations, (type) => registry.baseUrls.get(type)),
        secrets: ({ encryptedSecrets }) => new Map(Object.entries(encryptedSecrets))
      }
      const integrations = secretBoundWrites(
        grantedWrites(integrationStore, {
          insert: "virtual_keys.create",
          update: "virtual_keys.update",
          delete: "virtual_keys.delete"
        }),
        binding
      )

      /** The provider with its integration, when it is a virtual key's. */
      const pairOf = Effect.fnUntraced(function*(provider: Provider) {
        if (!isVirtualKeyProvider(provider)) return Option.none<VirtualKeyPair>()
        const integration = Option.filter(
          yield* integrationStore.get(provider.id),
          (stored) => stored.record.workspace_id === provider.workspace_id
        )
        return Option.map(integration, (stored): VirtualKeyPair => ({ provider, integration: stored }))
      })
      const pairIn = (found: Effect.Effect<Option.Option<Provider>, StoreError>) =>
        Effect.flatMap(found, Option.match({ onNone: () => Effect.succeedNone, onSome: pairOf }))
      const pairs: SlugLookup<VirtualKeyPair> = {
        get: (id) => pairIn(providerStore.get(id)),
        findBySlug: (workspaceId, slug) => pairIn(providerStore.findBySlug(workspaceId, slug)),
        findAllBySlug: (organisationId, slug) =>
          Effect.flatMap(
            providerStore.findAllBySlug(organisationId, slug),
            (found) => Effect.map(Effect.forEach(found, pairOf), (paired) => paired.flatMap(Option.toArray))
          )
      }
      const lookup = findByIdOrSlug(pairs, "virtual key", (pair) => pair.provider)

      /** The pair `ref` names, and the policy's grant of `action` on it. */
      const owned = Effect.fnUntraced(
        function*<A extends "virtual_keys.read" | "virtual_keys.update" | "virtual_keys.delete">(
          principal: Principal,
          ref: string,
          workspaceId: string | undefined,
          action: A
        ) {
          const pair = yield* lookup(principal, ref, workspaceId)
          const grant = yield* ensureAllowed(
            principal,
            action,
            Target.workspace(pair.provider.organisation_id, pair.provider.workspace_id),
            { type: "virtual key", id: ref }
          )
          return { grant, pair }
        }
      )

      /** The integration's slug, unique in the organisation: the key's own when free. */
      const integrationSlug = Effect.fnUntraced(function*(organisationId: string, slug: string, id: string) {
        for (const candidate of [slug, `${slug.slice(0, 55)}-${id.slice(0, 8)}`, `vk-${id}`.slice(0, 64)]) {
          if (Option.isNone(yield* integrationStore.findBySlug(organisationId, candidate))) return candidate
        }
        return yield* new Conflict({ message: "No slug is free for the virtual key's integration.", param: "slug" })
      })

      const checkKey = (key: string | undefined) =>
        key !== undefined && key.trim().length === 0
          ? Effect.fail(InvalidRequest.of("key must be the provider's API key.", "key"))
          : Effect.void

      const createVirtualKey = Effect.fn("VirtualKeys.create")(function*(principal: Principal, input: VirtualKeyInput) {
        const { allowed, fields } = yield* records.newRecordFields(principal, input, "virtual_keys.create")
        yield* knownProvider(registry, input.provider, "provider")
        const type = integrationTypeOf(input.provider)
        if (type === undefined) {
          return yield* InvalidRequest.of(
            `A virtual key is an integration and its provider: provider '${input.provider}' is not one an ` +
              `integration takes (${[...OPENAI_COMPATIBLE].join(", ")}).`,
            "provider"
          )
        }
        if (Option.isSome(yield* providerStore.findBySlug(fields.workspace_id, fields.slug))) {
          return yield* new Conflict({
            message: `A provider (or virtual key) with slug '${fields.slug}' exists in this workspace: ` +
              `@${fields.slug} would name both.`,
            param: "slug"
          })
        }
        if (input.key.trim().length === 0) return yield* InvalidRequest.of("key must be the provider's API key.", "key")
        if (input.custom_host !== undefined) yield* records.checkHost(input.custom_host, "custom_host")
        const usageLimits = input.usage_limits == null ? null : yield* checkUsageLimits(input.usage_limits)
        const integration = new Integration({
          id: fields.id,
          organisation_id: fields.organisation_id,
          workspace_id: fields.workspace_id,
          name: fields.name,
          slug: yield* integrationSlug(fields.organisation_id, fields.slug, fields.id),
          ai_provider_id: type,
          description: null,
          status: "active",
          masked_key: maskKey(input.key),
          configurations: input.custom_host === undefined ? {} : { custom_host: input.custom_host },
          secret_mappings: [],
          global_workspace_access_settings: null,
          workspaces: [],
          allow_all_models: true,
          models: [],
          created_at: fields.created_at,
          last_updated_at: fields.last_updated_at
        })
        const provider = new Provider({
          ...fields,
          integration_id: fields.id,
          note: input.note ?? null,
          status: "active",
          usage_limits: usageLimits,
          rate_limits: null,
          expires_at: null,
          models: null
        })
        const stored = { record: integration, encryptedSecrets: { key: records.encrypt(input.key) } }
        yield* integrations.insert(allowed, stored)
        yield* providers.insert(allowed, provider)
        return virtualKeyOf({ provider, integration: stored })
      })

      const listVirtualKeys = Effect.fn("VirtualKeys.list")(
        function*(principal: Principal, workspaceId: string | undefined, page: PageRequest) {
          const scope = yield* ensureListScope(workspaces, principal, workspaceId, "virtual_keys.list")
          const listed = yield* providerStore.listVirtualKeys(principal.organisationId, scope, page)
          const paired = yield* Effect.forEach(listed.items, pairOf)
          return { ...listed, items: paired.flatMap(Option.toArray).map(virtualKeyOf) }
        }
      )

      const getVirtualKey = Effect.fn("VirtualKeys.get")(
        function*(principal: Principal, ref: string, workspaceId?: string) {
          return virtualKeyOf((yield* owned(principal, ref, workspaceId, "virtual_keys.read")).pair)
        }
      )

      /**
       * A new name, provider key (a rotation), custom host, note or usage limits, on the pair. The stored key only
       * ever goes to the destination stored with it (StoredSecretBinding.ts), so a custom host on another scheme,
       * host or port needs the provider key in the same request.
       */
      const updateVirtualKey = Effect.fn("VirtualKeys.update")(
        function*(principal: Principal, ref: string, change: VirtualKeyChange, workspaceId?: string) {
          const { grant, pair } = yield* owned(principal, ref, workspaceId, "virtual_keys.update")
          if (change.name !== undefined) yield* checkName(change.name)
          yield* checkKey(change.key)
          const current = pair.integration.record
          if (change.key !== undefined && current.secret_mappings.some((m) => m.target_field === "key")) {
            return yield* InvalidRequest.of(
              `The key of integration '${current.slug}' is taken from a secret reference: change it there, or ` +
                "through the integration's secret_mappings.",
              "key"
            )
          }
          if (change.custom_host != null) yield* records.checkHost(change.custom_host, "custom_host")
          const usageLimits = change.usage_limits == null
            ? change.usage_limits
            : yield* checkUsageLimits(change.usage_limits)
          const now = yield* nowIso
          const { custom_host: storedHost, ...otherConfigurations } = current.configurations
          const host = change.custom_host === undefined ? storedHost : change.custom_host
          const name = change.name?.trim()
          const integration: StoredIntegration = {
            record: new Integration({
              ...current,
              name: name ?? current.name,
              masked_key: change.key === undefined ? current.masked_key : maskKey(change.key),
              configurations: host == null ? otherConfigurations : { ...otherConfigurations, custom_host: host },
              last_updated_at: now
            }),
            encryptedSecrets: change.key === undefined
              ? pair.integration.encryptedSecrets
              : { ...pair.integration.encryptedSecrets, key: records.encrypt(change.key) }
          }
          const provider = new Provider({
            ...pair.provider,
            name: name ?? pair.provider.name,
            note: change.note === undefined ? pair.provider.note : change.note,
            usage_limits: usageLimits === undefined ? pair.provider.usage_limits : usageLimits,
            last_updated_at: now
          })
          yield* integrations.update(grant, {
            current: pair.integration,
            updated: integration,
            supplied: change.key === undefined ? [] : ["key"]
          })
          yield* providers.update(grant, provider)
          return virtualKeyOf({ provider, integration })
        }
      )

      const deleteVirtualKey = Effect.fn("VirtualKeys.delete")(
        function*(principal: Principal, ref: string, workspaceId?: string) {
          const { grant, pair } = yield* owned(principal, ref, workspaceId, "virtual_keys.delete")
          yield* providers.delete(grant, pair.provider.id)
          const others = yield* providerStore.usingIntegration(pair.provider.id, 5)
          // Other providers made on the key's integration since keep it (and their calls working).
          if (others.length === 0) yield* integrations.delete(grant, pair.provider.id)
          return virtualKeyOf(pair)
        }
      )

      return VirtualKeys.of({
        createVirtualKey: (principal, input) =>
          useCases.run(
            resourceChange("virtualKeys.create", principal, input),
            createVirtualKey(principal, input)
          ),
        listVirtualKeys,
        getVirtualKey,
        updateVirtualKey: (principal, ref, change, workspaceId) =>
          useCases.run(
            resourceChange("virtualKeys.update", principal, change, ref),
            updateVirtualKey(principal, ref, change, workspaceId)
          ),
        deleteVirtualKey: (principal, ref, workspaceId) =>
          useCases.run(
            resourceChange("virtualKeys.delete", principal, null, ref),
            deleteVirtualKey(principal, ref, workspaceId)
          )
      })
    })
  )
}
