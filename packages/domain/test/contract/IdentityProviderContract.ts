/**
 * The store contract for identity providers (a slug unique across organisations, the encrypted secret kept as
 * given, the enabled ones listed, replaced and deleted), for sign-ins under way (taken once, never after they
 * expire), and for finding a user by email.
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { UserStore } from "../../src/access/AccessStores.ts"
import { IdentityProvider, IdentityProviderStore, SignInFlow, SignInFlowStore } from "../../src/index.ts"
import { at, type Harness, uid, user } from "./ContractHarness.ts"

export const identityProviderContract = ({ exit, freshOrganisation, run }: Harness) => {
  const provider = (organisationId: string, slug: string, enabled = true) => {
    const now = at()
    return new IdentityProvider({
      id: uid(),
      organisation_id: organisationId,
      slug,
      name: `Provider ${slug}`,
      issuer: "https://sso.example.com",
      client_id: "gateway",
      client_secret_hint: "****",
      groups_claim: "groups",
      role_map: { admins: { organisation_role: "admin", workspaces: { default: "manager" } } },
      allowed_domains: ["example.com"],
      enabled,
      source: "api",
      created_at: now,
      last_updated_at: now
    })
  }
  const providers = <A, E>(use: (store: IdentityProviderStore["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(Effect.service(IdentityProviderStore), use)
  const flows = <A, E>(use: (store: SignInFlowStore["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(Effect.service(SignInFlowStore), use)

  it("keeps provider slugs unique, the secret as given, lists the enabled ones, replaces and deletes", async () => {
    const [org, other] = [await freshOrganisation(), await freshOrganisation()]
    const slug = `sso-${uid()}`
    const first = provider(org.id, slug)
    const off = provider(org.id, `off-${uid()}`, false)
    await run(Effect.gen(function*() {
      yield* providers((s) => s.insert({ provider: first, encryptedSecret: "sealed-1" }))
      yield* providers((s) => s.insert({ provider: off, encryptedSecret: "sealed-2" }))
    }))
    expect(
      JSON.stringify(
        await exit(providers((s) => s.insert({ provider: provider(other.id, slug), encryptedSecret: "x" })))
      )
    ).toContain("Conflict")
    const read = await run(providers((s) =>
      Effect.all({
        one: s.get(first.id),
        bySlug: s.findBySlug(slug),
        listed: s.list(org.id, { limit: 10, offset: 0 }),
        enabled: s.listEnabled
      })
    ))
    expect(Option.getOrThrow(read.one)).toEqual({ provider: first, encryptedSecret: "sealed-1" })
    expect(Option.getOrThrow(read.bySlug).provider).toEqual(first)
    expect(read.listed).toEqual({ items: [first, off], total: 2 })
    expect(read.enabled.map((p) => p.id)).toContain(first.id)
    expect(read.enabled.map((p) => p.id)).not.toContain(off.id)

    const replaced = new IdentityProvider({ ...first, role_map: {}, allowed_domains: [], enabled: false })
    expect(await run(providers((s) => s.update({ provider: replaced, encryptedSecret: "sealed-3" })))).toBe(true)
    expect(Option.getOrThrow(await run(providers((s) => s.get(first.id))))).toEqual({
      provider: replaced,
      encryptedSecret: "sealed-3"
    })
    expect(
      JSON.stringify(
        await exit(
          providers((s) => s.update({ provider: new IdentityProvider({ ...off, slug }), encryptedSecret: "x" }))
        )
      )
    ).toContain("Conflict")
    expect(await run(providers((s) => s.delete(first.id)))).toBe(true)
    expect(await run(providers((s) => s.delete(first.id)))).toBe(false)
    expect(Option.isNone(await run(providers((s) => s.findBySlug(slug))))).toBe(true)
  })

  it("hands a sign-in flow out once, and never after it expired", async () => {
    const now = new Date()
    const iso = (offsetSeconds: number) => new Date(now.getTime() + offsetSeconds * 1000).toISOString()
    const flow = (digest: string, expiresIn: number, invite: string | null = null) =>
      new SignInFlow({
        state_digest: digest,
        provider_id: "p",
        nonce: "n",
        code_verifier: "v",
        invite_token_hash: invite,
        created_at: iso(0),
        expires_at: iso(expiresIn)
      })
    const [live, stale] = [uid(), uid()]
    await run(flows((s) => Effect.andThen(s.insert(flow(live, 600), iso(0)), s.insert(flow(stale, 1), iso(0)))))
    const taken = await run(flows((s) => s.take(live, iso(0))))
    expect(Option.getOrThrow(taken)).toEqual(flow(live, 600))
    expect(Option.isNone(await run(flows((s) => s.take(live, iso(0)))))).toBe(true)
    expect(Option.isNone(await run(flows((s) => s.take(stale, iso(5)))))).toBe(true)
    // The invitation a sign-in carries comes back with it.
    const invited = uid()
    await run(flows((s) => s.insert(flow(invited, 600, "invite-digest"), iso(0))))
    expect(Option.getOrThrow(await run(flows((s) => s.take(invited, iso(0))))).invite_token_hash).toBe("invite-digest")
  })

  it("finds a user by email in their organisation only", async () => {
    const [org, other] = [await freshOrganisation(), await freshOrganisation()]
    const person = user(org.id, `person-${uid()}@example.com`)
    await run(Effect.flatMap(Effect.service(UserStore), (s) => s.insert(person)))
    const found = await run(
      Effect.flatMap(
        Effect.service(UserStore),
        (s) => Effect.all([s.findByEmail(org.id, person.email), s.findByEmail(other.id, person.email)])
      )
    )
    expect(Option.getOrThrow(found[0])).toEqual(person)
    expect(Option.isNone(found[1])).toBe(true)
  })
}
