/**
 * The virtual keys of a workspace as a principal manages them, and as a provider call resolves them.
 */
import { Context, Effect, Layer, Option } from "effect"
import { slugify } from "../access/AccessModel.ts"
import type { Principal } from "../access/Principal.ts"
import { knownProvider, ProviderRegistry } from "../fine-tuning/Providers.ts"
import { type Conflict, type Forbidden, InvalidRequest, type NotFound } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName, checkSlug } from "../shared/Rules.ts"
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
      const keys = yield* VirtualKeyStore
      const crypto = yield* PlatformCrypto
      const registry = yield* ProviderRegistry
      const records = yield* makeProviderKeyRecords

      const createVirtualKey = Effect.fn("VirtualKeys.create")(function*(principal: Principal, input: VirtualKeyInput) {
        const workspace = yield* records.targetWorkspace(principal, input.workspace_id, "virtual_keys.create")
        yield* checkName(input.name)
        const slug = input.slug ?? slugify(input.name)
        yield* checkSlug(slug)
        yield* knownProvider(registry, input.provider, "provider")
        if (input.key.length === 0) return yield* InvalidRequest.of("key must be the provider's API key.", "key")
        if (input.custom_host !== undefined) yield* records.checkHost(input.custom_host, "custom_host")
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
        yield* keys.insert({ record, encryptedKey: records.encrypt(input.key) })
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
        listVirtualKeys: Effect.fn("VirtualKeys.list")(function*(principal, workspaceId, page) {
          return yield* keys.list(
            principal.organisationId,
            yield* records.listScope(principal, workspaceId, "virtual_keys.list"),
            page
          )
        }),
        getVirtualKey: Effect.fn("VirtualKeys.get")(function*(principal, id) {
          return yield* records.owned(principal, yield* keys.get(id), id, "virtual key", "virtual_keys.read")
        }),
        deleteVirtualKey: Effect.fn("VirtualKeys.delete")(function*(principal, id) {
          const record = yield* records.owned(principal, yield* keys.get(id), id, "virtual key", "virtual_keys.delete")
          yield* keys.delete(id)
          return record
        }),
        resolveVirtualKey
      })
    })
  )
}
