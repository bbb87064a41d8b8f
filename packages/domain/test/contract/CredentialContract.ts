/**
 * The store contract for the records holding a provider key: a virtual key's pair (its integration, holding the
 * key, and its provider sharing the integration's id) and configs. A store is given a provider key already
 * encrypted and must keep exactly that: reads give back the ciphertext, which the cipher decrypts to the key; the
 * plaintext never reaches the store, and lists carry no key at all.
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { WorkspaceStore } from "../../src/access/AccessStores.ts"
import {
  ConfigStore,
  GatewayConfig,
  Integration,
  IntegrationStore,
  Provider,
  ProviderStore,
  type StoredIntegration
} from "../../src/index.ts"
import { at, type Harness, uid, workspace } from "./ContractHarness.ts"
import { makeTestCipher } from "./TestCrypto.ts"

const cipher = makeTestCipher()

export const credentialContract = ({ exit, freshOrganisation, run }: Harness) => {
  /** A virtual key as stored: a workspace integration holding the key, and the provider sharing its id. */
  const virtualKey = (organisationId: string, workspaceId: string, slug: string, encryptedKey: string) => {
    const now = at()
    const id = uid()
    const integration: StoredIntegration = {
      record: new Integration({
        id,
        organisation_id: organisationId,
        workspace_id: workspaceId,
        name: `Key ${slug}`,
        slug: `integration-${id}`,
        ai_provider_id: "openai",
        description: null,
        status: "active",
        masked_key: "sk-t****4321",
        configurations: {},
        secret_mappings: [],
        global_workspace_access_settings: null,
        workspaces: [],
        allow_all_models: true,
        models: [],
        created_at: now,
        last_updated_at: now
      }),
      encryptedSecrets: { key: encryptedKey }
    }
    const provider = new Provider({
      id,
      organisation_id: organisationId,
      workspace_id: workspaceId,
      integration_id: id,
      name: `Key ${slug}`,
      slug,
      note: null,
      status: "active",
      usage_limits: null,
      rate_limits: null,
      expires_at: null,
      models: null,
      created_at: now,
      last_updated_at: now
    })
    return { integration, provider }
  }
  const insert = (pair: ReturnType<typeof virtualKey>) =>
    Effect.gen(function*() {
      yield* (yield* IntegrationStore).insert(pair.integration)
      yield* (yield* ProviderStore).insert(pair.provider)
    })

  it("keeps a virtual key's provider key, in its integration, as the ciphertext it was given", async () => {
    const org = await freshOrganisation()
    const w = workspace(org.id)
    const plaintext = `sk-test-${uid()}-4321`
    const ciphertext = cipher.encrypt(plaintext)
    const pair = virtualKey(org.id, w.id, "main", ciphertext)
    await run(Effect.gen(function*() {
      yield* (yield* WorkspaceStore).insert(w)
      yield* insert(pair)
    }))
    const read = await run(Effect.gen(function*() {
      const providers = yield* ProviderStore
      return {
        integration: yield* (yield* IntegrationStore).get(pair.provider.id),
        byId: yield* providers.get(pair.provider.id),
        bySlug: yield* providers.findBySlug(w.id, "main")
      }
    }))
    const stored = Option.getOrThrow(read.integration)
    expect(stored).toEqual(pair.integration)
    expect(JSON.stringify(stored.record)).not.toContain(ciphertext)
    expect(cipher.decrypt(stored.encryptedSecrets.key!)).toBe(plaintext)
    expect([Option.getOrThrow(read.byId), Option.getOrThrow(read.bySlug)]).toEqual([pair.provider, pair.provider])
  })

  it("lists the providers that are virtual keys, in creation order, slugs unique per workspace", async () => {
    const org = await freshOrganisation()
    const [w1, w2] = [workspace(org.id), workspace(org.id)]
    const pairs = [
      virtualKey(org.id, w1.id, "a", cipher.encrypt("sk")),
      virtualKey(org.id, w1.id, "b", cipher.encrypt("sk")),
      virtualKey(org.id, w2.id, "a", cipher.encrypt("sk"))
    ]
    // A provider on another's integration is no virtual key.
    const other = new Provider({ ...pairs[0].provider, id: uid(), slug: "other", created_at: at() })
    await run(Effect.gen(function*() {
      yield* Effect.forEach([w1, w2], (yield* WorkspaceStore).insert)
      for (const pair of pairs) yield* insert(pair)
      yield* (yield* ProviderStore).insert(other)
    }))
    const duplicate = await exit(Effect.flatMap(
      Effect.service(ProviderStore),
      (s) => s.insert(new Provider({ ...other, id: uid() }))
    ))
    expect(JSON.stringify(duplicate)).toContain("Conflict")
    const keys = pairs.map((pair) => pair.provider)
    const pages = await run(Effect.gen(function*() {
      const store = yield* ProviderStore
      return {
        all: yield* store.listVirtualKeys(org.id, null, { limit: 2, offset: 0 }),
        rest: yield* store.listVirtualKeys(org.id, null, { limit: 2, offset: 2 }),
        past: yield* store.listVirtualKeys(org.id, null, { limit: 2, offset: 6 }),
        inW1: yield* store.listVirtualKeys(org.id, w1.id, { limit: 10, offset: 0 }),
        providers: yield* store.list(org.id, w1.id, { limit: 10, offset: 0 })
      }
    }))
    expect(pages.all).toEqual({ items: keys.slice(0, 2), total: 3 })
    expect(pages.rest).toEqual({ items: keys.slice(2), total: 3 })
    expect(pages.past).toEqual({ items: [], total: 3 })
    expect(pages.inW1.items.map((k) => k.id)).toEqual([keys[0]!.id, keys[1]!.id])
    expect(pages.providers.items.map((k) => k.id)).toEqual([keys[0]!.id, keys[1]!.id, other.id])
  })

  it("updates a config's target and key, down to no key at all", async () => {
    const org = await freshOrganisation()
    const w = workspace(org.id)
    const now = at()
    const record = new GatewayConfig({
      id: uid(),
      organisation_id: org.id,
      workspace_id: w.id,
      name: "Routing",
      slug: "routing",
      config: { provider: "openai" },
      masked_api_key: "sk-o****1111",
      is_default: 0,
      status: "active",
      version_id: uid(),
      created_at: now,
      last_updated_at: now
    })
    await run(Effect.gen(function*() {
      yield* (yield* WorkspaceStore).insert(w)
      yield* (yield* ConfigStore).insert({ record, encryptedKey: cipher.encrypt("sk-old") })
    }))
    const changed = new GatewayConfig({
      ...record,
      name: "Routing by key",
      config: { virtual_key: "main", request_timeout: 5000 },
      masked_api_key: null,
      last_updated_at: at()
    })
    const read = await run(Effect.gen(function*() {
      const store = yield* ConfigStore
      yield* store.update({ record: changed, encryptedKey: null })
      return yield* store.get(record.id)
    }))
    expect(Option.getOrThrow(read)).toEqual({ record: changed, encryptedKey: null })
  })

  it("keeps a config's target as given, its API key as ciphertext, and a config without a key", async () => {
    const org = await freshOrganisation()
    const w = workspace(org.id)
    const config = (slug: string, withKey: boolean) => {
      const now = at()
      return new GatewayConfig({
        id: uid(),
        organisation_id: org.id,
        workspace_id: w.id,
        name: `Config ${slug}`,
        slug,
        config: withKey ? { provider: "openai", request_timeout: 30_000 } : { virtual_key: "main" },
        masked_api_key: withKey ? "sk-c****9876" : null,
        is_default: 0,
        status: "active",
        version_id: uid(),
        created_at: now,
        last_updated_at: now
      })
    }
    const keyed = config("keyed", true)
    const keyless = config("keyless", false)
    const plaintext = `sk-config-${uid()}-9876`
    const ciphertext = cipher.encrypt(plaintext)
    await run(Effect.gen(function*() {
      yield* (yield* WorkspaceStore).insert(w)
      const store = yield* ConfigStore
      yield* store.insert({ record: keyed, encryptedKey: ciphertext })
      yield* store.insert({ record: keyless, encryptedKey: null })
    }))
    const read = await run(Effect.gen(function*() {
      const store = yield* ConfigStore
      return {
        keyed: Option.getOrThrow(yield* store.get(keyed.id)),
        bySlug: Option.getOrThrow(yield* store.findBySlug(w.id, "keyed")),
        keyless: Option.getOrThrow(yield* store.findBySlug(w.id, "keyless")),
        listed: yield* store.list(org.id, w.id, { limit: 10, offset: 0 })
      }
    }))
    expect(read.keyed).toEqual({ record: keyed, encryptedKey: ciphertext })
    expect(read.bySlug).toEqual(read.keyed)
    expect(read.keyed.encryptedKey).not.toContain(plaintext)
    expect(cipher.decrypt(read.keyed.encryptedKey!)).toBe(plaintext)
    expect(read.keyless).toEqual({ record: keyless, encryptedKey: null })
    expect(read.listed).toEqual({ items: [keyed, keyless], total: 2 })
    const duplicate = await exit(Effect.flatMap(
      Effect.service(ConfigStore),
      (s) => s.insert({ record: new GatewayConfig({ ...keyless, id: uid() }), encryptedKey: null })
    ))
    expect(JSON.stringify(duplicate)).toContain("Conflict")
    expect(await run(Effect.flatMap(Effect.service(ConfigStore), (s) => s.delete(keyed.id)))).toBe(true)
    expect(await run(Effect.flatMap(Effect.service(ConfigStore), (s) => s.get(keyed.id)))).toEqual(Option.none())
  })
}
