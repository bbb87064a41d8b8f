/**
 * The virtual keys of a workspace as a principal manages them, and as a provider call resolves them.
 */
import { Context, Effect, Layer, Option } from "effect"
import { grantedWrites } from "../access/GrantedWrites.ts"
import type { Principal } from "../access/Principal.ts"
import { knownProvider, ProviderRegistry } from "../fine-tuning/Providers.ts"
import { type Conflict, type Forbidden, InvalidRequest, type NotFound } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { maskKey } from "./ApiKey.ts"
import { makeProviderKeyRecords } from "./internal/providerKeyRecords.ts"
import { VirtualKeyStore } from "./ProviderKeyStores.ts"
import { type ResolvedVirtualKey, VirtualKey, type VirtualKeyInput } from "./VirtualKey.ts"

type Failure = InvalidRequest | Forbidden | NotFound

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
    /**
     * A workspace's virtual key by slug, with its key decrypted, for a provider call; an unknown slug is
     * refused naming the field `virtual_key`.
     */
    readonly resolveVirtualKey: (workspaceId: string, slug: string) => Effect.Effect<ResolvedVirtualKey, InvalidRequest>
  }
>()("@gateway-control/VirtualKeys") {
  static readonly layer = Layer.effect(
    VirtualKeys,
    Effect.gen(function*() {
      const keys = grantedWrites(yield* VirtualKeyStore, {
        insert: "virtual_keys.create",
        delete: "virtual_keys.delete"
      })
      const registry = yield* ProviderRegistry
      const records = yield* makeProviderKeyRecords
      const managed = records.management(keys, "virtual key", "VirtualKeys", {
        list: "virtual_keys.list",
        read: "virtual_keys.read",
        delete: "virtual_keys.delete"
      })

      const createVirtualKey = Effect.fn("VirtualKeys.create")(function*(principal: Principal, input: VirtualKeyInput) {
        const { allowed, fields } = yield* records.newRecordFields(principal, input, "virtual_keys.create")
        yield* knownProvider(registry, input.provider, "provider")
        if (input.key.length === 0) return yield* InvalidRequest.of("key must be the provider's API key.", "key")
        if (input.custom_host !== undefined) yield* records.checkHost(input.custom_host, "custom_host")
        const record = new VirtualKey({
          ...fields,
          provider: input.provider,
          masked_key: maskKey(input.key),
          custom_host: input.custom_host ?? null
        })
        yield* keys.insert(allowed, { record, encryptedKey: records.encrypt(input.key) })
        return record
      })

      const resolveVirtualKey = Effect.fn("VirtualKeys.resolveVirtualKey")(
        function*(workspaceId: string, slug: string) {
          const found = yield* keys.findBySlug(workspaceId, slug)
          if (Option.isNone(found)) {
            return yield* InvalidRequest.of(`Unknown virtual key '${slug}' in this workspace.`, "virtual_key")
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

      return VirtualKeys.of({
        createVirtualKey,
        listVirtualKeys: managed.list,
        getVirtualKey: managed.get,
        deleteVirtualKey: managed.delete,
        resolveVirtualKey
      })
    })
  )
}
