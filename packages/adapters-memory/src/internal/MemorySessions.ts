/** Sessions and local accounts in memory: a token hash is unique; a removed user's sessions and password go. */
import { Session, SessionStore, type User } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { byCreation, Table } from "./Table.ts"

interface SessionRow {
  readonly session: Session
  readonly tokenHash: string
}

interface PasswordRow {
  readonly userId: string
  readonly passwordHash: string
}

export const makeSessionStore = (state: MemoryState, users: Table<User>) => {
  const sessions = new Table<SessionRow>(state, (row) => [`token/${row.tokenHash}`])
  const passwords = new Table<PasswordRow>(state)
  const exists = (userId: string) => users.rows.has(userId)
  const update = (id: string, when: (s: Session) => boolean, change: (s: Session) => Partial<Session>) =>
    sessions.replaceWhen(
      id,
      (row) => when(row.session),
      (row) => ({ ...row, session: new Session({ ...row.session, ...change(row.session) }) })
    )
  return SessionStore.of({
    insert: (session, tokenHash) => Effect.asVoid(sessions.insert(session.id, { session, tokenHash })),
    get: (id) => Effect.sync(() => Option.map(sessions.get(id), (row) => row.session)),
    findByTokenHash: (tokenHash) =>
      Effect.sync(() => Option.filter(sessions.byUnique(`token/${tokenHash}`), (row) => exists(row.session.user_id))),
    listActive: (userId, at) =>
      Effect.sync(() =>
        [...sessions.rows.values()]
          .map((row) => row.session)
          .filter((s) => s.user_id === userId && s.revoked_at === null && s.expires_at > at && exists(userId))
          .sort((a, b) => -byCreation(a, b))
      ),
    touch: (id, at) => update(id, (s) => s.last_seen_at < at, () => ({ last_seen_at: at })),
    revoke: (id, at) => update(id, (s) => s.revoked_at === null, () => ({ revoked_at: at })),
    revokeAll: (userId, at, exceptId) =>
      Effect.gen(function*() {
        const ids = [...sessions.rows.values()]
          .filter((row) =>
            row.session.user_id === userId && row.session.revoked_at === null &&
            row.session.id !== exceptId
          )
          .map((row) => row.session.id)
        for (const id of ids) yield* update(id, () => true, () => ({ revoked_at: at }))
        return ids
      }),
    setPassword: (userId, passwordHash) =>
      Effect.gen(function*() {
        yield* passwords.delete(userId)
        yield* passwords.insert(userId, { userId, passwordHash })
      }),
    passwordOf: (userId) =>
      Effect.sync(() => exists(userId) ? Option.map(passwords.get(userId), (row) => row.passwordHash) : Option.none()),
    passwordsByEmail: (email) =>
      Effect.sync(() => {
        const wanted = email.toLowerCase()
        return [...users.rows.values()]
          .filter((user) => user.email.toLowerCase() === wanted)
          .sort(byCreation)
          .flatMap((user) => Option.toArray(passwords.get(user.id)))
      })
  })
}
