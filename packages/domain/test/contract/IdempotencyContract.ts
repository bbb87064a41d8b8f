/**
 * The store contract for idempotency keys: one claim per credential and key (concurrent claims included), the
 * answer kept and read back, a released claim free again, a lapsed lock or an expired entry taken over, and
 * expired entries swept.
 */
import { Effect } from "effect"
import { expect, it } from "vitest"
import { type IdempotencyClaimRequest, IdempotencyStore, IdempotentAnswer } from "../../src/index.ts"
import { type Harness, uid } from "./ContractHarness.ts"

export const idempotencyContract = ({ run }: Harness) => {
  const keys = <A, E>(use: (store: IdempotencyStore["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(Effect.service(IdempotencyStore), use)
  const request = (over: Partial<IdempotencyClaimRequest> = {}): IdempotencyClaimRequest => ({
    scope: `scope-${uid()}`,
    key: `key-${uid()}`,
    fingerprint: "f1",
    ttlMs: 60_000,
    lockMs: 60_000,
    ...over
  })
  const answer = new IdempotentAnswer({ status: 201, content_type: "application/json", body: "{\"id\":\"a\"}" })

  /** Retries `attempt` until it answers true (for up to 5 s): expiry follows the store's clock. */
  const eventually = async (attempt: () => Promise<boolean>) => {
    const deadline = Date.now() + 5_000
    let done = await attempt()
    while (!done && Date.now() < deadline) done = await attempt()
    return done
  }

  it("claims a key once per scope, keeps the answer, and tells a later claim what holds the key", async () => {
    const first = request()
    expect(await run(keys((s) => s.claim(first)))).toEqual({ _tag: "Claimed" })
    expect(await run(keys((s) => s.claim({ ...first, fingerprint: "f2" })))).toEqual({
      _tag: "Held",
      fingerprint: "f1",
      answer: null
    })
    // Another credential's key of the same name is another key.
    expect(await run(keys((s) => s.claim({ ...first, scope: `scope-${uid()}` })))).toEqual({ _tag: "Claimed" })
    await run(keys((s) => s.complete(first.scope, first.key, answer)))
    const held = await run(keys((s) => s.claim(first)))
    expect(held).toEqual({ _tag: "Held", fingerprint: "f1", answer })
    // A release after the answer changes nothing: only claims without an answer are given up.
    await run(keys((s) => s.release(first.scope, first.key)))
    expect(await run(keys((s) => s.claim(first)))).toEqual({ _tag: "Held", fingerprint: "f1", answer })
  })

  it("gives exactly one of concurrent claims of a key", async () => {
    const claim = request()
    const claims = await run(Effect.all(Array.from({ length: 8 }, () => keys((s) => s.claim(claim))), {
      concurrency: "unbounded"
    }))
    expect(claims.filter((c) => c._tag === "Claimed")).toHaveLength(1)
  })

  it("frees a released claim, and lets a claim take over a lapsed lock or an expired entry", async () => {
    const released = request()
    await run(keys((s) => s.claim(released)))
    await run(keys((s) => s.release(released.scope, released.key)))
    expect(await run(keys((s) => s.claim({ ...released, fingerprint: "f2" })))).toEqual({ _tag: "Claimed" })

    const crashed = request({ lockMs: 1 })
    await run(keys((s) => s.claim(crashed)))
    expect(await eventually(async () => (await run(keys((s) => s.claim(crashed))))._tag === "Claimed")).toBe(true)

    const expired = request({ ttlMs: 1 })
    await run(keys((s) => s.claim(expired)))
    await run(keys((s) => s.complete(expired.scope, expired.key, answer)))
    expect(
      await eventually(async () =>
        (await run(keys((s) => s.claim({ ...expired, fingerprint: "f3", ttlMs: 60_000 }))))._tag === "Claimed"
      )
    ).toBe(true)
  })

  it("sweeps expired entries and keeps live ones", async () => {
    const live = request()
    const expiring = request({ ttlMs: 1 })
    await run(keys((s) => s.claim(live)))
    await run(keys((s) => s.claim(expiring)))
    await run(keys((s) => s.complete(expiring.scope, expiring.key, answer)))
    expect(await eventually(async () => (await run(keys((s) => s.sweep))) >= 1)).toBe(true)
    expect(await run(keys((s) => s.claim(live)))).toEqual({ _tag: "Held", fingerprint: "f1", answer: null })
    // Swept: the key is free for another request.
    expect(await run(keys((s) => s.claim({ ...expiring, fingerprint: "f2", ttlMs: 60_000 })))).toEqual({
      _tag: "Claimed"
    })
  })
}
