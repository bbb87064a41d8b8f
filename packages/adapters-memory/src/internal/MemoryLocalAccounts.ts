/**
 * Organisations' sign-in settings, TOTP second factors and sign-in challenges in memory: a removed user's factor
 * and challenges are never answered.
 */
import { LocalAccountStore, type SignInSettings, type StoredTotp, type User } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { Table } from "./Table.ts"

interface ChallengeRow {
  readonly userId: string
  readonly expiresAt: string
}

export const makeLocalAccountStore = (state: MemoryState, users: Table<User>) => {
  const settings = new Table<SignInSettings>(state)
  const factors = new Table<StoredTotp>(state)
  const challenges = new Table<ChallengeRow>(state)
  const exists = (userId: string) => users.rows.has(userId)
  return LocalAccountStore.of({
    settingsOf: (organisationId) => Effect.sync(() => settings.get(organisationId)),
    saveSettings: (next) =>
      Effect.gen(function*() {
        yield* settings.delete(next.organisation_id)
        yield* settings.insert(next.organisation_id, next)
      }),
    totpOf: (userId) => Effect.sync(() => exists(userId) ? factors.get(userId) : Option.none()),
    savePendingTotp: (userId, encryptedSecret) =>
      Effect.gen(function*() {
        yield* factors.delete(userId)
        yield* factors.insert(userId, { userId, encryptedSecret, active: false, lastUsedStep: null })
      }),
    activateTotp: (userId, step) =>
      factors.replaceWhen(userId, (row) => !row.active, (row) => ({ ...row, active: true, lastUsedStep: step })),
    useTotpStep: (userId, step) =>
      factors.replaceWhen(
        userId,
        (row) => row.active && (row.lastUsedStep === null || row.lastUsedStep < step),
        (row) => ({ ...row, lastUsedStep: step })
      ),
    deleteTotp: (userId) => factors.delete(userId),
    insertChallenge: (tokenHash, userId, expiresAt, now) =>
      Effect.gen(function*() {
        const expired = [...challenges.rows.entries()].filter(([, row]) => row.expiresAt <= now).map(([id]) => id)
        for (const id of expired) yield* challenges.delete(id)
        yield* challenges.insert(tokenHash, { userId, expiresAt })
      }),
    takeChallenge: (tokenHash, now) =>
      Effect.gen(function*() {
        const row = challenges.get(tokenHash)
        if (Option.isNone(row) || !(yield* challenges.delete(tokenHash))) return Option.none()
        return row.value.expiresAt > now && exists(row.value.userId) ? Option.some(row.value.userId) : Option.none()
      })
  })
}
