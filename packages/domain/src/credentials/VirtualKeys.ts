/**
 * The virtual keys of a workspace as a principal manages them, and as a provider call resolves them.
 */
import { Context, Effect, Layer, Option } from "effect"
import { grantedWrites } from "../access/GrantedWrites.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase, resourceChange } from "../audit/AuditedUseCase.ts"
import { knownProvider, ProviderRegistry } from "../fine-tuning/Providers.ts"
import { ProviderStore } from "../providers/ProviderStore.ts"
import { Conflict, type Forbidden, InvalidRequest, type NotFound } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { checkName } from "../shared/Rules.ts"
import { secretBoundWrites } from "../shared/StoredSecretBinding.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { maskKey } from "./ApiKey.ts"
import { makeProviderKeyRecords } from "./internal/providerKeyRecords.ts"
import { VirtualKeyStore } from "./ProviderKeyStores.ts"
import { checkUsageLimits } from "./UsageLimits.ts"
import { type ResolvedVirtualKey, VirtualKey, type VirtualKeyChange, type VirtualKeyInput } from "./VirtualKey.ts"

type Failure = InvalidRequest | Forbidden | NotFound | StoreError

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
    ) => Effect.Effect<VirtualKey, Failure>
    readonly deleteVirtualKey: (
      principal: Principal,
      ref: string,
      workspaceId?: string
    ) => Effect.Effect<VirtualKey, Failure>
    /**
     * A workspace's virtual key by slug, with its key decrypted, for a provider call; an unknown slug is
     * refused naming the field `virtual_key`.
     */
    readonly resolveVirtualKey: (
      workspaceId: string,
      slug: string
    ) => Effect.Effect<ResolvedVirtualKey, InvalidRequest | StoreError>
  }
>()("@gateway-control/VirtualKeys") {
  static readonly layer = Layer.effect(
    VirtualKeys,
    Effect.gen(function*() {
      const registry = yield* ProviderRegistry
      const providerStore = yield* ProviderStore
      const records = yield* makeProviderKeyRecords
      const keys = secretBoundWrites(
        grantedWrites(yield* VirtualKeyStore, {
          insert: "virtual_keys.create",
          update: "virtual_keys.update",
          delete: "virtual_keys.delete"
        }),
        records.binding<VirtualKey>("custom_host", "key", (record) => ({
          customHost: record.custom_host ?? undefined,
          provider: record.provider
        }))
      )
      const managed = records.management(keys, "virtual key", "VirtualKeys", {
        list: "virtual_keys.list",
        read: "virtual_keys.read",
        delete: "virtual_keys.delete"
      })

      const createVirtualKey = Effect.fn("VirtualKeys.create")(function*(principal: Principal, input: VirtualKeyInput) {
        const { allowed, fields } = yield* records.newRecordFields(principal, input, "virtual_keys.create")
        yield* knownProvider(registry, input.provider, "provider")
        if (Option.isSome(yield* providerStore.findBySlug(fields.workspace_id, fields.slug))) {
          return yield* new Conflict({
            message: `A provider with slug '${fields.slug}' exists in this workspace: @${fields.slug} would name both.`,
            param: "slug"
          })
        }
        if (input.key.length === 0) return yield* InvalidRequest.of("key must be the provider's API key.", "key")
        if (input.custom_host !== undefined) yield* records.checkHost(input.custom_host, "custom_host")
        const usageLimits = input.usage_limits == null ? null : yield* checkUsageLimits(input.usage_limits)
        const record = new VirtualKey({
          ...fields,
          provider: input.provider,
          masked_key: maskKey(input.key),
          custom_host: input.custom_host ?? null,
          note: input.note ?? null,
          usage_limits: usageLimits
        })
        yield* keys.insert(allowed, { record, encryptedKey: records.encrypt(input.key) })
        return record
      })

      /**
       * A new name, provider key or custom host. The stored key only ever goes to the destination stored with
       * it (StoredSecretBinding.ts), so a custom host on another scheme, host or port needs the provider key in
       * the same request: otherwise whoever may update virtual keys could send the stored key to a host of
       * their choosing.
       */
      const updateVirtualKey = Effect.fn("VirtualKeys.update")(
        function*(principal: Principal, ref: string, change: VirtualKeyChange, workspaceId?: string) {
          const { allowed, record, stored } = yield* records.owned(
            principal,
            keys,
            "virtual key",
            "virtual_keys.update",
            ref,
            workspaceId
          )
          if (change.name !== undefined) yield* checkName(change.name)
          if (change.key !== undefined && change.key.length === 0) {
            return yield* InvalidRequest.of("key must be the provider's API key.", "key")
          }
          const host = change.custom_host === undefined ? record.custom_host : change.custom_host
          if (change.custom_host !== undefined && change.custom_host !== null) {
            yield* records.checkHost(change.custom_host, "custom_host")
          }
          const usageLimits = change.usage_limits == null
            ? change.usage_limits
            : yield* checkUsageLimits(change.usage_limits)
          const updated = new VirtualKey({
            ...record,
            note: change.note === undefined ? record.note : change.note,
            usage_limits: usageLimits === undefined ? record.usage_limits : usageLimits,
            name: change.name?.trim() ?? record.name,
            masked_key: change.key === undefined ? record.masked_key : maskKey(change.key),
            custom_host: host,
            last_updated_at: yield* nowIso
          })
          const encryptedKey = change.key === undefined ? stored.encryptedKey : records.encrypt(change.key)
          yield* keys.update(allowed, {
            current: stored,
            updated: { record: updated, encryptedKey },
            supplied: change.key === undefined ? [] : ["key"]
          })
          return updated
        }
      )

      const resolveVirtualKey = Effect.fn("VirtualKeys.resolveVirtualKey")(
        function*(workspaceId: string, slug: string) {
          const found = yield* keys.findBySlug(workspaceId, slug)
          if (Option.isNone(found)) {
            return yield* InvalidRequest.of(`No provider or virtual key '${slug}' in this workspace.`, "virtual_key")
          }
          const apiKey = yield* records.decrypt(found.value.encryptedKey, `virtual key '${slug}'`)
          return {
            slug,
            provider: found.value.record.provider,
            apiKey: apiKey!,
            customHost: found.value.record.custom_host
          }
        }
      )

      const useCases = yield* AuditedUseCase
      return VirtualKeys.of({
        createVirtualKey: (principal, input) =>
          useCases.run(
            resourceChange("virtualKeys.create", principal, input),
            createVirtualKey(principal, input)
          ),
        listVirtualKeys: managed.list,
        getVirtualKey: managed.get,
        updateVirtualKey: (principal, ref, change, workspaceId) =>
          useCases.run(
            resourceChange("virtualKeys.update", principal, change, ref),
            updateVirtualKey(principal, ref, change, workspaceId)
          ),
        deleteVirtualKey: (principal, ref, workspaceId) =>
          useCases.run(
            resourceChange("virtualKeys.delete", principal, null, ref),
            managed.delete(principal, ref, workspaceId)
          ),
        resolveVirtualKey
      })
    })
  )
}
