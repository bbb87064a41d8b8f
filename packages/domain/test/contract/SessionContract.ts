/**
 * The store contract for sessions (found by their token's hash, listed while active, touched, revoked one by one
 * or all but one) and local accounts' passwords (found by the user's email in any case, gone with the user).
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { UserStore } from "../../src/access/AccessStores.ts"
import { Session, SessionStore } from "../../src/index.ts"
import { at, type Harness, uid, user } from "./ContractHarness.ts"

export const sessionContract = ({ freshOrganisation, run }: Harness) => {
  const session = (userId: string, organisationId: string, expiresAt: string) => {
    const now = at()
    return new Session({
      id: uid(),
      user_id: userId,
      organisation_id: organisationId,
      method: "oidc",
      identity_provider: "okta",
      subject: "00u1",
      created_at: now,
      last_seen_at: now,
      expires_at: expiresAt,
      revoked_at: null,
      user_agent: "Mozilla/5.0",
      client_ip: "127.0.0.1"
    })
  }
  const sessions = <A, E>(use: (store: SessionStore["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(Effect.service(SessionStore), use)

  it("finds sessions by token hash, lists active ones, touches, revokes one and all but one", async () => {
    const org = await freshOrganisation()
    const person = user(org.id)
    const far = "2999-01-01T00:00:00.000Z"
    const [a, b, c] = [
      session(person.id, org.id, far),
      session(person.id, org.id, far),
      session(person.id, org.id, far)
    ]
    const expired = session(person.id, org.id, "2000-01-01T00:00:00.000Z")
    await run(Effect.gen(function*() {
      yield* (yield* UserStore).insert(person)
      for (const [s, hash] of [[a, "ha"], [b, "hb"], [c, "hc"], [expired, "hx"]] as const) {
        yield* sessions((store) => store.insert(s, `${hash}-${a.id}`))
      }
    }))
    const found = await run(sessions((s) => s.findByTokenHash(`ha-${a.id}`)))
    expect(Option.getOrThrow(found)).toEqual({ session: a, tokenHash: `ha-${a.id}` })
    expect(Option.isNone(await run(sessions((s) => s.findByTokenHash("unknown"))))).toBe(true)
    const now = at()
    const active = await run(sessions((s) => s.listActive(person.id, now)))
    expect(active.map((s) => s.id).sort()).toEqual([a.id, b.id, c.id].sort())
    expect(await run(sessions((s) => s.touch(a.id, now)))).toBe(true)
    expect(Option.getOrThrow(await run(sessions((s) => s.get(a.id)))).last_seen_at).toBe(now)
    expect(await run(sessions((s) => s.revoke(b.id, now)))).toBe(true)
    expect(await run(sessions((s) => s.revoke(b.id, now)))).toBe(false)
    const ended = await run(sessions((s) => s.revokeAll(person.id, at(), a.id)))
    expect([...ended].sort()).toEqual([c.id, expired.id].sort())
    expect((await run(sessions((s) => s.listActive(person.id, at())))).map((s) => s.id)).toEqual([a.id])
  })

  it("keeps a password hash per user, found by email in any case, and gone with the user", async () => {
    const org = await freshOrganisation()
    const person = user(org.id, `Mixed.${uid()}@Example.com`)
    await run(Effect.gen(function*() {
      yield* (yield* UserStore).insert(person)
      yield* sessions((s) => s.setPassword(person.id, "scrypt$one", at()))
      yield* sessions((s) => s.setPassword(person.id, "scrypt$two", at()))
    }))
    expect(Option.getOrThrow(await run(sessions((s) => s.passwordOf(person.id))))).toBe("scrypt$two")
    expect(await run(sessions((s) => s.passwordsByEmail(person.email.toUpperCase())))).toEqual([
      { userId: person.id, passwordHash: "scrypt$two" }
    ])
    const live = session(person.id, org.id, "2999-01-01T00:00:00.000Z")
    await run(sessions((s) => s.insert(live, `h-${live.id}`)))
    await run(Effect.flatMap(Effect.service(UserStore), (users) => users.remove(person.id)))
    expect(await run(sessions((s) => s.passwordsByEmail(person.email)))).toEqual([])
    expect(Option.isNone(await run(sessions((s) => s.findByTokenHash(`h-${live.id}`))))).toBe(true)
  })
}
