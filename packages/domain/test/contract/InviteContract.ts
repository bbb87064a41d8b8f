/**
 * The store contract for invitations: found by id and by their link's token hash, listed per organisation with
 * filters (`expired` decided at the time given), and every change of state conditional, so a link is used once.
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { Invite, InviteStore } from "../../src/index.ts"
import { at, type Harness, uid } from "./ContractHarness.ts"

export const inviteContract = ({ freshOrganisation, run }: Harness) => {
  const invite = (organisationId: string, email: string, role: "admin" | "member", expiresAt: string) => {
    const now = at()
    return new Invite({
      id: uid(),
      organisation_id: organisationId,
      email,
      role,
      user_id: null,
      workspaces: [{ workspace_id: uid(), role: "manager" }],
      status: "pending",
      created_at: now,
      expires_at: expiresAt,
      accepted_at: null,
      accepted_user_id: null,
      invited_by: null,
      invited_by_api_key_id: "k",
      last_updated_at: now
    })
  }
  const invites = <A, E>(use: (store: InviteStore["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(Effect.service(InviteStore), use)
  const page = { limit: 10, offset: 0 }

  it("finds invitations by id and token hash, lists them with filters, and expires them at the time given", async () => {
    const [org, other] = [await freshOrganisation(), await freshOrganisation()]
    const later = "2099-01-01T00:00:00.000Z"
    const a = invite(org.id, "a@example.com", "admin", later)
    const b = invite(org.id, "b@example.com", "member", "2026-06-01T00:00:00.000Z")
    const elsewhere = invite(other.id, "a@example.com", "admin", later)
    await run(
      invites((s) =>
        Effect.all([
          s.insert(a, `hash-${a.id}`),
          s.insert(b, `hash-${b.id}`),
          s.insert(elsewhere, `hash-${elsewhere.id}`)
        ])
      )
    )
    const read = await run(invites((s) =>
      Effect.all({
        one: s.get(a.id),
        byToken: s.findByTokenHash(`hash-${b.id}`),
        none: s.findByTokenHash("no-such-hash"),
        all: s.list(org.id, {}, "2026-07-01T00:00:00.000Z", page),
        admins: s.list(org.id, { role: "admin" }, "2026-07-01T00:00:00.000Z", page),
        byEmail: s.list(org.id, { email: " B@Example.com" }, "2026-07-01T00:00:00.000Z", page),
        expired: s.list(org.id, { status: "expired" }, "2026-07-01T00:00:00.000Z", page),
        pendingBefore: s.list(org.id, { status: "pending" }, "2026-05-01T00:00:00.000Z", page)
      })
    ))
    expect(Option.getOrThrow(read.one)).toEqual(a)
    expect(Option.getOrThrow(read.byToken)).toEqual(b)
    expect(Option.isNone(read.none)).toBe(true)
    expect(read.all).toEqual({ items: [a, b], total: 2 })
    expect(read.admins.items.map((i) => i.id)).toEqual([a.id])
    expect(read.byEmail.items.map((i) => i.id)).toEqual([b.id])
    expect(read.expired.items.map((i) => i.id)).toEqual([b.id])
    expect(read.pendingBefore.items.map((i) => i.id)).toEqual([a.id, b.id])
  })

  it("renews, cancels and accepts only a pending invitation, and accepts only with its current token, once", async () => {
    const org = await freshOrganisation()
    const later = "2099-01-01T00:00:00.000Z"
    const one = invite(org.id, `${uid()}@example.com`, "member", later)
    const two = invite(org.id, `${uid()}@example.com`, "member", later)
    const now = "2026-07-01T00:00:00.000Z"
    await run(invites((s) => Effect.all([s.insert(one, "old-one"), s.insert(two, "old-two")])))

    expect(await run(invites((s) => s.renew(one.id, "new-one", "2098-01-01T00:00:00.000Z", now)))).toBe(true)
    expect(Option.isNone(await run(invites((s) => s.findByTokenHash("old-one"))))).toBe(true)
    expect(Option.getOrThrow(await run(invites((s) => s.findByTokenHash("new-one")))).expires_at).toBe(
      "2098-01-01T00:00:00.000Z"
    )
    // The old token no longer accepts; nor does the new one after expiry.
    expect(await run(invites((s) => s.accept(one.id, "old-one", "user-1", now)))).toBe(false)
    expect(await run(invites((s) => s.accept(one.id, "new-one", "user-1", "2098-01-01T00:00:00.000Z")))).toBe(false)
    expect(await run(invites((s) => s.accept(one.id, "new-one", "user-1", now)))).toBe(true)
    expect(await run(invites((s) => s.accept(one.id, "new-one", "user-2", now)))).toBe(false)
    const accepted = Option.getOrThrow(await run(invites((s) => s.get(one.id))))
    expect(accepted).toMatchObject({ status: "accepted", accepted_at: now, accepted_user_id: "user-1" })
    expect(await run(invites((s) => s.cancel(one.id, now)))).toBe(false)
    expect(await run(invites((s) => s.renew(one.id, "newer", later, now)))).toBe(false)

    expect(await run(invites((s) => s.cancel(two.id, now)))).toBe(true)
    expect(await run(invites((s) => s.accept(two.id, "old-two", "user-3", now)))).toBe(false)
    expect(Option.getOrThrow(await run(invites((s) => s.get(two.id)))).status).toBe("cancelled")
    expect(await run(invites((s) => s.cancel("no-such-invite", now)))).toBe(false)
  })
}
