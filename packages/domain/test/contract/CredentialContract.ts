/**
 * The store contract for virtual keys and configs. A store is given a provider key already encrypted and
 * must keep exactly that: reads give back the ciphertext, which the cipher decrypts to the key; the
 * plaintext never reaches the store, and lists carry no key at all.
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { WorkspaceStore } from "../../src/access/AccessStores.ts"
import { ConfigStore, GatewayConfig, VirtualKey, VirtualKeyStore } from "../../src/index.ts"
import { at, type Harness, uid, workspace } from "./ContractHarness.ts"
import { makeTestCipher } from "./TestCrypto.ts"

const cipher = makeTestCipher()

export const credentialContract = ({ exit, freshOrganisation, run }: Harness) => {
  const virtualKey = (organisationId: string, workspaceId: string, slug = `vk-${uid()}`) => {
    const now = at()
    return new VirtualKey({
      id: uid(),
      organisation_id: organisationId,
      workspace_id: workspaceId,
      name: `Key ${slug}`,
      slug,
      provider: "openai",
      masked_key: "sk-t****4321",
      custom_host: null,
      note: null,
      usage_limits: null,
      created_at: now,
      last_updated_at: now
    })
  }

  it("keeps a virtual key's provider key as the ciphertext it was given, which decrypts to the key", async () => {
    const org = await freshOrganisation()
    const w = workspace(org.id)
    const plaintext = `sk-test-${uid()}-4321`
    const ciphertext = cipher.encrypt(plaintext)
    const record = virtualKey(org.id, w.id, "main")
    await run(Effect.gen(function*() {
      yield* (yield* WorkspaceStore).insert(w)
      yield* (yield* VirtualKeyStore).insert({ record, encryptedKey: ciphertext })
    }))
    const read = await run(Effect.gen(function*() {
      const store = yield* VirtualKeyStore
      return { byId: yield* store.get(record.id), bySlug: yield* store.findBySlug(w.id, "main") }
    }))
    for (const stored of [Option.getOrThrow(read.byId), Option.getOrThrow(read.bySlug)]) {
      expect(stored).toEqual({ record, encryptedKey: ciphertext })
      expect(stored.encryptedKey).not.toContain(plaintext)
      expect(cipher.decrypt(stored.encryptedKey!)).toBe(plaintext)
    }
    const listed = await run(
      Effect.flatMap(Effect.service(VirtualKeyStore), (s) => s.list(org.id, w.id, { limit: 10, offset: 0 }))
    )
    expect(listed.items).toEqual([record])
    expect(JSON.stringify(listed)).not.toContain(ciphertext)
  })

  it("keeps virtual key slugs unique per workspace, lists them in creation order, and deletes them", async () => {
    const org = await freshOrganisation()
    const [w1, w2] = [workspace(org.id), workspace(org.id)]
    const keys = [virtualKey(org.id, w1.id, "a"), virtualKey(org.id, w1.id, "b"), virtualKey(org.id, w2.id, "a")]
    await run(Effect.gen(function*() {
      yield* Effect.forEach([w1, w2], (yield* WorkspaceStore).insert)
      const store = yield* VirtualKeyStore
      for (const record of keys) yield* store.insert({ record, encryptedKey: cipher.encrypt("sk") })
    }))
    const duplicate = await exit(Effect.flatMap(
      Effect.service(VirtualKeyStore),
      (s) => s.insert({ record: virtualKey(org.id, w1.id, "a"), encryptedKey: cipher.encrypt("sk") })
    ))
    expect(JSON.stringify(duplicate)).toContain("Conflict")
    const pages = await run(Effect.gen(function*() {
      const store = yield* VirtualKeyStore
      return {
        all: yield* store.list(org.id, null, { limit: 2, offset: 0 }),
        rest: yield* store.list(org.id, null, { limit: 2, offset: 2 }),
        past: yield* store.list(org.id, null, { limit: 2, offset: 6 }),
        inW1: yield* store.list(org.id, w1.id, { limit: 10, offset: 0 })
      }
    }))
    expect(pages.all).toEqual({ items: keys.slice(0, 2), total: 3 })
    expect(pages.rest).toEqual({ items: keys.slice(2), total: 3 })
    expect(pages.past).toEqual({ items: [], total: 3 })
    expect(pages.inW1.items.map((k) => k.id)).toEqual([keys[0].id, keys[1].id])
    const deleted = await run(Effect.gen(function*() {
      const store = yield* VirtualKeyStore
      return [yield* store.delete(keys[0].id), yield* store.delete(keys[0].id), yield* store.get(keys[0].id)]
    }))
    expect(deleted).toEqual([true, false, Option.none()])
    // The slug is free again once its key is gone.
    await run(Effect.flatMap(
      Effect.service(VirtualKeyStore),
      (s) => s.insert({ record: virtualKey(org.id, w1.id, "a"), encryptedKey: cipher.encrypt("sk") })
    ))
  })

  it("updates a virtual key's record and ciphertext in place, its slug still finding it", async () => {
    const org = await freshOrganisation()
    const w = workspace(org.id)
    const record = virtualKey(org.id, w.id, "rotated")
    await run(Effect.gen(function*() {
      yield* (yield* WorkspaceStore).insert(w)
      yield* (yield* VirtualKeyStore).insert({ record, encryptedKey: cipher.encrypt("sk-old") })
    }))
    const changed = new VirtualKey({
      ...record,
      name: "Rotated",
      masked_key: "sk-n****-new",
      custom_host: "https://llm.example.com/v1",
      last_updated_at: at()
    })
    const ciphertext = cipher.encrypt("sk-new")
    const result = await run(Effect.gen(function*() {
      const store = yield* VirtualKeyStore
      return {
        updated: yield* store.update({ record: changed, encryptedKey: ciphertext }),
        missing: yield* store.update({ record: new VirtualKey({ ...changed, id: uid() }), encryptedKey: ciphertext }),
        bySlug: yield* store.findBySlug(w.id, "rotated"),
        listed: yield* store.list(org.id, w.id, { limit: 10, offset: 0 })
      }
    }))
    expect([result.updated, result.missing]).toEqual([true, false])
    expect(Option.getOrThrow(result.bySlug)).toEqual({ record: changed, encryptedKey: ciphertext })
    expect(result.listed).toEqual({ items: [changed], total: 1 })
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
