/**
 * The API key store beyond issuing and revoking (AccessContract.ts): rotation with its transition, one rotation
 * at a time, updates, usage, the end of transitions, and list filters.
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { WorkspaceStore } from "../../src/access/AccessStores.ts"
import { ApiKey } from "../../src/credentials/ApiKey.ts"
import { ApiKeyStore } from "../../src/credentials/ApiKeyStore.ts"
import { apiKey, at, type Harness, workspace } from "./ContractHarness.ts"

const keys = <A, E>(use: (store: ApiKeyStore["Service"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(Effect.service(ApiKeyStore), use)

/** `ms` after the ISO instant. */
const after = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString()

export const apiKeyContract = ({ freshOrganisation, run }: Harness) => {
  const stored = async (workspaceScoped = false) => {
    const org = await freshOrganisation()
    const w = workspace(org.id)
    const key = apiKey(org.id, workspaceScoped ? w.id : null)
    await run(Effect.gen(function*() {
      yield* (yield* WorkspaceStore).insert(w)
      yield* (yield* ApiKeyStore).insert({ key, digest: `d-${key.id}` })
    }))
    return { org, w, key }
  }

  it("rotates a key: the new digest finds it, the old one too until the transition ends, then only the new", async () => {
    const { key } = await stored()
    const rotatedAt = at()
    const endsAt = after(rotatedAt, 60_000)
    const rotation = { id: key.id, digest: `new-${key.id}`, maskedKey: "gwc_****newk", at: rotatedAt }
    expect(await run(keys((s) => s.rotate({ ...rotation, transitionEndsAt: endsAt })))).toBe(true)
    const byNew = Option.getOrThrow(await run(keys((s) => s.findByDigest(`new-${key.id}`))))
    const byOld = Option.getOrThrow(await run(keys((s) => s.findByDigest(`d-${key.id}`))))
    expect(byNew).toEqual(byOld)
    expect(byNew).toMatchObject({ digest: `new-${key.id}`, previousDigest: `d-${key.id}` })
    expect(byNew.key).toMatchObject({
      masked_key: "gwc_****newk",
      rotated_at: rotatedAt,
      transition_ends_at: endsAt,
      last_updated_at: rotatedAt
    })

    // A second rotation inside the transition changes nothing.
    const again = { ...rotation, digest: `newer-${key.id}`, at: after(rotatedAt, 1000), transitionEndsAt: endsAt }
    expect(await run(keys((s) => s.rotate(again)))).toBe(false)
    expect(Option.isNone(await run(keys((s) => s.findByDigest(`newer-${key.id}`))))).toBe(true)

    // Its end forgets the old digest, once: a second sweep ends nothing.
    expect(await run(keys((s) => s.endTransitions(after(endsAt, -1))))).toEqual([])
    const ended = await run(keys((s) => s.endTransitions(endsAt)))
    expect(ended.map((k) => k.id)).toEqual([key.id])
    expect(await run(keys((s) => s.endTransitions(after(endsAt, 1000))))).toEqual([])
    expect(Option.isNone(await run(keys((s) => s.findByDigest(`d-${key.id}`))))).toBe(true)
    expect(Option.isSome(await run(keys((s) => s.findByDigest(`new-${key.id}`))))).toBe(true)

    // After the transition a key rotates again.
    const later = { ...again, at: after(endsAt, 1) }
    expect(await run(keys((s) => s.rotate({ ...later, transitionEndsAt: later.at })))).toBe(true)
  })

  it("rotates at once with no transition: the old digest finds nothing, and a revoked key does not rotate", async () => {
    const { key } = await stored()
    const now = at()
    const rotation = { id: key.id, digest: `now-${key.id}`, maskedKey: "gwc_****nowk", at: now, transitionEndsAt: now }
    expect(await run(keys((s) => s.rotate(rotation)))).toBe(true)
    expect(Option.isNone(await run(keys((s) => s.findByDigest(`d-${key.id}`))))).toBe(true)
    expect(Option.getOrThrow(await run(keys((s) => s.findByDigest(`now-${key.id}`)))).previousDigest).toBeNull()
    expect(await run(keys((s) => s.endTransitions(after(now, 1000))))).toEqual([])
    await run(keys((s) => s.revoke(key.id, at())))
    const again = { ...rotation, digest: `again-${key.id}`, at: at(), transitionEndsAt: at() }
    expect(await run(keys((s) => s.rotate(again)))).toBe(false)
    expect(await run(keys((s) => s.rotate({ ...again, id: "no-such-key" })))).toBe(false)
  })

  it("updates a key's changeable fields and nothing else", async () => {
    const { key } = await stored()
    const changed = new ApiKey({
      ...key,
      name: "renamed",
      description: null,
      scopes: ["prompts.render"],
      expires_at: null,
      rate_limits: [{ type: "requests", unit: "rps", value: 5 }, { type: "requests", unit: "rpd", value: 1000 }],
      last_updated_at: at(),
      // Not the update's to change:
      status: "revoked",
      masked_key: "gwc_****nope"
    })
    expect(await run(keys((s) => s.update(changed)))).toBe(true)
    expect(await run(keys((s) => s.update(new ApiKey({ ...changed, id: "no-such-key" }))))).toBe(false)
    const read = Option.getOrThrow(await run(keys((s) => s.get(key.id))))
    expect(read).toEqual(new ApiKey({ ...changed, status: key.status, masked_key: key.masked_key }))
    const found = Option.getOrThrow(await run(keys((s) => s.findByDigest(`d-${key.id}`))))
    expect(found.key.rate_limits).toEqual(changed.rate_limits)
  })

  it("records use, never moving last_used_at back", async () => {
    const { key } = await stored()
    const first = at()
    const second = at()
    await run(keys((s) => s.recordUse([key.id, "no-such-key"], second)))
    await run(keys((s) => s.recordUse([key.id], first)))
    await run(keys((s) => s.recordUse([], at())))
    expect(Option.getOrThrow(await run(keys((s) => s.get(key.id)))).last_used_at).toBe(second)
  })

  it("filters lists by status, type, name, workspace and last use", async () => {
    const { org, w } = await stored()
    const make = (name: string, workspaceId: string | null) => new ApiKey({ ...apiKey(org.id, workspaceId), name })
    const admin = make("Deploy bot", null)
    const used = make("deploy-staging", w.id)
    const unused = make("CI runner 100%_", w.id)
    const revoked = make("old deploy", w.id)
    const usedAt = at()
    await run(Effect.gen(function*() {
      const store = yield* ApiKeyStore
      for (const key of [admin, used, unused, revoked]) yield* store.insert({ key, digest: `d-${key.id}` })
      yield* store.recordUse([used.id, admin.id], usedAt)
      yield* store.revoke(revoked.id, at())
    }))
    const ids = (filters: Parameters<ApiKeyStore["Service"]["list"]>[3], workspaceId: string | null = null) =>
      run(keys((s) => s.list(org.id, workspaceId, { limit: 10, offset: 0 }, filters))).then((page) => {
        expect(page.total).toBe(page.items.length)
        return page.items.map((k) => k.id).filter((id) => [admin, used, unused, revoked].some((k) => k.id === id))
      })
    expect(await ids({ name: "DEPLOY" })).toEqual([admin.id, used.id, revoked.id])
    // Wildcards in the name are text.
    expect(await ids({ name: "0%_" })).toEqual([unused.id])
    expect(await ids({ name: "%" })).toEqual([unused.id])
    expect(await ids({ status: "revoked" })).toEqual([revoked.id])
    expect(await ids({ type: "organisation-service" })).toEqual([admin.id])
    expect(await ids({ status: "active", type: "workspace-service" }, w.id)).toEqual([used.id, unused.id])
    expect(await ids({ lastUsedBefore: after(usedAt, 1) })).toEqual([admin.id, used.id, unused.id, revoked.id])
    expect(await ids({ lastUsedBefore: usedAt })).toEqual([unused.id, revoked.id])
    expect(await ids({ name: "deploy", lastUsedBefore: usedAt }, w.id)).toEqual([revoked.id])
  })
}
