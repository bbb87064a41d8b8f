/**
 * The rule of stored secrets on its own: destinations are origins, a secret kept from the store may not change
 * destination, one the request gives may, and a store wrapped with `secretBoundWrites` receives no refused
 * update. The `@ts-expect-error` line is checked by `npm run typecheck`: the wrapped update takes no bare record.
 */
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import {
  carriedSecrets,
  checkSecretBinding,
  destinationOf,
  type SecretBinding,
  secretBoundWrites
} from "../src/shared/StoredSecretBinding.ts"

interface Hosted {
  readonly url: string
  readonly secrets: Readonly<Record<string, string>>
}

const binding: SecretBinding<Hosted> = {
  destination: (record) => record.url,
  destinationField: "url",
  secrets: (record) => new Map(Object.entries(record.secrets))
}

const stored: Hosted = { url: "https://a.example/v1", secrets: { token: "t1", other: "o1" } }

describe("the rule of stored secrets", () => {
  it("takes a URL's scheme, host and port as its destination", () => {
    expect(destinationOf("https://A.example:443/v1/x")).toBe("https://a.example")
    expect(destinationOf("https://a.example:8443/v1")).toBe("https://a.example:8443")
    expect(destinationOf("http://a.example/v1")).not.toBe(destinationOf("https://a.example/v1"))
    expect(destinationOf("not a url")).toBe("not a url")
  })

  it("lets secrets stay on a new path of the same destination", () => {
    const updated = { ...stored, url: "https://a.example:443/v2" }
    expect(checkSecretBinding(binding, { current: stored, updated, supplied: [] })).toBeUndefined()
  })

  it("refuses a new destination for every secret kept rather than given, naming the destination's field", () => {
    const updated = { url: "https://b.example/v1", secrets: { token: "t2", other: "o1" } }
    expect(carriedSecrets(binding, { current: stored, updated, supplied: ["token"] })).toEqual(["other"])
    const refusal = checkSecretBinding(binding, { current: stored, updated, supplied: ["token"] })
    expect(refusal).toMatchObject({ param: "url" })
    expect(refusal?.message).toContain("other")
    expect(refusal?.message).not.toContain("o1")
  })

  it("lets a new destination have what the request gives again, even a value equal to the stored one", () => {
    const updated = { url: "https://b.example/v1", secrets: { token: "t1" } }
    expect(checkSecretBinding(binding, { current: stored, updated, supplied: ["token"] })).toBeUndefined()
    expect(checkSecretBinding(binding, { current: stored, updated: { ...updated, secrets: {} }, supplied: [] }))
      .toBeUndefined()
  })

  it("writes through a wrapped store only what the rule allows", () => {
    const written: Array<Hosted> = []
    const store = secretBoundWrites(
      { update: (_grant: "grant", record: Hosted) => Effect.sync(() => void written.push(record)) },
      binding
    )
    const moved = { ...stored, url: "https://b.example/v1" }
    const refused = Effect.runSyncExit(store.update("grant", { current: stored, updated: moved, supplied: [] }))
    expect(Exit.isFailure(refused)).toBe(true)
    expect(written).toEqual([])
    Effect.runSync(
      store.update("grant", { current: stored, updated: { ...stored, url: "https://a.example/v2" }, supplied: [] })
    )
    expect(written.map((record) => record.url)).toEqual(["https://a.example/v2"])
    // Typed only, never run: the update takes the stored and updated records, never a bare one.
    const bare = () =>
      // @ts-expect-error a bare record is no SecretUpdate
      store.update("grant", moved)
    expect(typeof bare).toBe("function")
  })
})
