import { layerMemory } from "@gateway-control/adapters-memory"
import { ApiKeys, ApiKeyStore, hasKeyShape, KEY_PREFIX, maskKey, PlatformCrypto } from "@gateway-control/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { layerDomain } from "../src/App.ts"
import { layerNodeCrypto } from "../src/NodeCrypto.ts"

const run = <A, E>(effect: Effect.Effect<A, E, ApiKeys | ApiKeyStore | PlatformCrypto>) =>
  Effect.runPromise(Effect.provide(effect, layerDomain(layerMemory).pipe(Layer.provideMerge(layerNodeCrypto))))

const issue = Effect.flatMap(Effect.service(ApiKeys), (keys) =>
  keys.issue({
    type: "organisation-service",
    name: "k",
    description: null,
    organisationId: "org",
    workspaceId: null,
    userId: null,
    scopes: ["workspaces.read", "workspaces.read", "workspaces.list"],
    expiresAt: null
  }))

describe("API key generation", () => {
  it("makes prefixed, URL-safe keys with at least 192 random bits, all different", async () => {
    const keys = await run(Effect.forEach(Array.from({ length: 200 }), () => issue))
    const plaintexts = keys.map((k) => Redacted.value(k.plaintext))
    expect(new Set(plaintexts).size).toBe(200)
    for (const plaintext of plaintexts) {
      expect(plaintext.startsWith(KEY_PREFIX)).toBe(true)
      const random = plaintext.slice(KEY_PREFIX.length)
      expect(random).toMatch(/^[A-Za-z0-9_-]+$/)
      expect(Buffer.from(random, "base64url").length * 8).toBeGreaterThanOrEqual(192)
      expect(hasKeyShape(plaintext)).toBe(true)
    }
  })

  it("stores only the SHA-256 digest, and keeps the plaintext out of string forms", async () => {
    const { issued, stored } = await run(
      Effect.gen(function*() {
        const issued = yield* issue
        const store = yield* ApiKeyStore
        const crypto = yield* PlatformCrypto
        const stored = yield* store.findByDigest(crypto.sha256Hex(Redacted.value(issued.plaintext)))
        return { issued, stored }
      })
    )
    const plaintext = Redacted.value(issued.plaintext)
    expect(Option.isSome(stored)).toBe(true)
    const record = Option.getOrThrow(stored)
    expect(record.digest).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(record)).not.toContain(plaintext)
    expect(String(issued.plaintext)).not.toContain(plaintext)
    expect(JSON.stringify(issued)).not.toContain(plaintext)
    expect(record.key.scopes).toEqual(["workspaces.read", "workspaces.list"])
  })

  it("masks a key as its first 4 and last 4 characters", async () => {
    expect(maskKey("gwc_abcdefghijklmnopqrstuvwxyz")).toBe("gwc_****wxyz")
    expect(maskKey("short")).toBe("****")
    const issued = await run(issue)
    const plaintext = Redacted.value(issued.plaintext)
    expect(issued.key.masked_key).toBe(`${plaintext.slice(0, 4)}****${plaintext.slice(-4)}`)
  })

  it("compares digests in constant time and only equal digests match", async () => {
    const crypto = await run(Effect.service(PlatformCrypto))
    const a = crypto.sha256Hex("one")
    expect(crypto.digestsEqual(a, crypto.sha256Hex("one"))).toBe(true)
    expect(crypto.digestsEqual(a, crypto.sha256Hex("two"))).toBe(false)
    expect(crypto.digestsEqual(a, a.slice(0, 10))).toBe(false)
    expect(crypto.digestsEqual("", "")).toBe(false)
  })

  it("authenticates the issued key into its principal", async () => {
    const principal = await run(
      Effect.gen(function*() {
        const issued = yield* issue
        return yield* (yield* ApiKeys).authenticate(issued.plaintext)
      })
    )
    expect(principal).toMatchObject({ keyType: "organisation-service", organisationId: "org", workspaceId: null })
    expect([...principal.scopes].sort()).toEqual(["workspaces.list", "workspaces.read"])
  })
})
