/**
 * The store contract for local accounts' hardening: an organisation's sign-in settings; a TOTP factor kept
 * pending, activated once, each code's time step taken once and never an earlier one (replays), gone with the
 * user; a sign-in challenge taken once, and only before it expires.
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { UserStore } from "../../src/access/AccessStores.ts"
import { LocalAccountStore, SignInSettings } from "../../src/index.ts"
import { at, type Harness, uid, user } from "./ContractHarness.ts"

export const localAccountContract = ({ freshOrganisation, run }: Harness) => {
  const accounts = <A, E>(use: (store: LocalAccountStore["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(Effect.service(LocalAccountStore), use)

  it("keeps an organisation's sign-in settings, replaced as a whole", async () => {
    const org = await freshOrganisation()
    expect(Option.isNone(await run(accounts((s) => s.settingsOf(org.id))))).toBe(true)
    const off = new SignInSettings({
      organisation_id: org.id,
      local_accounts_enabled: false,
      require_second_factor: true,
      last_updated_at: at()
    })
    await run(accounts((s) => s.saveSettings(off)))
    const on = new SignInSettings({ ...off, local_accounts_enabled: true, last_updated_at: at() })
    await run(accounts((s) => s.saveSettings(on)))
    expect(Option.getOrThrow(await run(accounts((s) => s.settingsOf(org.id))))).toEqual(on)
  })

  it("activates a pending factor once, takes each code's step once and never an earlier one", async () => {
    const org = await freshOrganisation()
    const person = user(org.id)
    await run(Effect.flatMap(Effect.service(UserStore), (users) => users.insert(person)))
    await run(accounts((s) => s.savePendingTotp(person.id, "sealed-one", at())))
    expect(await run(accounts((s) => s.useTotpStep(person.id, 10)))).toBe(false)
    expect(await run(accounts((s) => s.activateTotp(person.id, 100, at())))).toBe(true)
    expect(await run(accounts((s) => s.activateTotp(person.id, 101, at())))).toBe(false)
    expect(Option.getOrThrow(await run(accounts((s) => s.totpOf(person.id))))).toEqual({
      userId: person.id,
      encryptedSecret: "sealed-one",
      active: true,
      lastUsedStep: 100
    })
    expect(await run(accounts((s) => s.useTotpStep(person.id, 100)))).toBe(false)
    expect(await run(accounts((s) => s.useTotpStep(person.id, 99)))).toBe(false)
    const racing = await run(
      Effect.all([101, 101, 101].map((step) => accounts((s) => s.useTotpStep(person.id, step))), {
        concurrency: "unbounded"
      })
    )
    expect(racing.filter(Boolean)).toHaveLength(1)
    // Enrolling again replaces the factor with a pending one.
    await run(accounts((s) => s.savePendingTotp(person.id, "sealed-two", at())))
    expect(Option.getOrThrow(await run(accounts((s) => s.totpOf(person.id))))).toMatchObject({
      encryptedSecret: "sealed-two",
      active: false,
      lastUsedStep: null
    })
    expect(await run(accounts((s) => s.deleteTotp(person.id)))).toBe(true)
    expect(await run(accounts((s) => s.deleteTotp(person.id)))).toBe(false)
    await run(accounts((s) => s.savePendingTotp(person.id, "sealed-three", at())))
    await run(Effect.flatMap(Effect.service(UserStore), (users) => users.remove(person.id)))
    expect(Option.isNone(await run(accounts((s) => s.totpOf(person.id))))).toBe(true)
  })

  it("hands a challenge to one taker, only before it expires", async () => {
    const org = await freshOrganisation()
    const person = user(org.id)
    await run(Effect.flatMap(Effect.service(UserStore), (users) => users.insert(person)))
    const [live, stale] = [`live-${uid()}`, `stale-${uid()}`]
    const now = "2030-01-01T00:00:00.000Z"
    await run(accounts((s) => s.insertChallenge(live, person.id, "2030-01-01T00:05:00.000Z", now)))
    await run(accounts((s) => s.insertChallenge(stale, person.id, "2030-01-01T00:01:00.000Z", now)))
    const later = "2030-01-01T00:02:00.000Z"
    expect(Option.isNone(await run(accounts((s) => s.takeChallenge(stale, later))))).toBe(true)
    const takers = await run(Effect.all([1, 2, 3].map(() => accounts((s) => s.takeChallenge(live, later))), {
      concurrency: "unbounded"
    }))
    expect(takers.filter(Option.isSome).map(Option.getOrThrow)).toEqual([person.id])
    expect(Option.isNone(await run(accounts((s) => s.takeChallenge(`unknown-${uid()}`, later))))).toBe(true)
  })
}
