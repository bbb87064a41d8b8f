/** The store contract for SCIM tokens: found by digest, listed per organisation, revoked once. */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { ScimToken, ScimTokenStore } from "../../src/index.ts"
import { at, type Harness, uid } from "./ContractHarness.ts"

export const scimTokenContract = ({ freshOrganisation, run }: Harness) => {
  const token = (organisationId: string, name: string) => {
    const now = at()
    return new ScimToken({
      id: uid(),
      organisation_id: organisationId,
      name,
      masked_token: "gwsc****abcd",
      status: "active",
      created_at: now,
      created_by_user_id: null,
      created_by_api_key_id: "k",
      revoked_at: null,
      last_updated_at: now
    })
  }
  const tokens = <A, E>(use: (store: ScimTokenStore["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(Effect.service(ScimTokenStore), use)

  it("finds a SCIM token by its digest, lists an organisation's tokens, and revokes one once", async () => {
    const [org, other] = [await freshOrganisation(), await freshOrganisation()]
    const first = token(org.id, "okta")
    const second = token(org.id, "entra")
    const elsewhere = token(other.id, "okta")
    const digest = uid()
    await run(tokens((s) =>
      Effect.all([
        s.insert({ token: first, digest }),
        s.insert({ token: second, digest: uid() }),
        s.insert({ token: elsewhere, digest: uid() })
      ])
    ))
    const read = await run(tokens((s) =>
      Effect.all({
        byDigest: s.findByDigest(digest),
        unknown: s.findByDigest(uid()),
        one: s.get(second.id),
        listed: s.list(org.id, { limit: 10, offset: 0 }),
        paged: s.list(org.id, { limit: 1, offset: 1 })
      })
    ))
    expect(Option.getOrThrow(read.byDigest)).toEqual(first)
    expect(Option.isNone(read.unknown)).toBe(true)
    expect(Option.getOrThrow(read.one)).toEqual(second)
    expect(read.listed).toEqual({ items: [first, second], total: 2 })
    expect(read.paged).toEqual({ items: [second], total: 2 })

    const revokedAt = at()
    expect(await run(tokens((s) => s.revoke(first.id, revokedAt)))).toBe(true)
    expect(await run(tokens((s) => s.revoke(first.id, at())))).toBe(false)
    expect(await run(tokens((s) => s.revoke(uid(), at())))).toBe(false)
    expect(Option.getOrThrow(await run(tokens((s) => s.findByDigest(digest))))).toEqual(
      new ScimToken({ ...first, status: "revoked", revoked_at: revokedAt, last_updated_at: revokedAt })
    )
  })
}
