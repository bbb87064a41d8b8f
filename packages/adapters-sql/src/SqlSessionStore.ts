/**
 * Sessions and local accounts on `effect/sql`. A session's row holds the SHA-256 of its token (unique), never
 * the token; a user's sessions and password go with the user (`ON DELETE CASCADE`).
 */
import { Session, SessionStore } from "@gateway-control/domain"
import { Effect, Option, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { queriesOn } from "./internal/queries.ts"
import { Timestamp } from "./internal/rows.ts"
import { read } from "./internal/statements.ts"

const sessionColumns = {
  ...Session.fields,
  created_at: Timestamp,
  last_seen_at: Timestamp,
  expires_at: Timestamp,
  revoked_at: Schema.NullOr(Timestamp)
}

const SessionRow = Schema.Struct(sessionColumns).pipe(Schema.decodeTo(Session))

const StoredRow = Schema.Struct({ ...sessionColumns, token_hash: Schema.String })
const PasswordRow = Schema.Struct({ user_id: Schema.String, password_hash: Schema.String })

export const makeSessionStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { byId } = queriesOn(sql)

  const byTokenHash = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: StoredRow,
    execute: (hash) => sql`SELECT * FROM sessions WHERE token_hash = ${hash}`
  })
  const active = SqlSchema.findAll({
    Request: Schema.Struct({ userId: Schema.String, at: Schema.String }),
    Result: SessionRow,
    execute: ({ at, userId }) =>
      sql`SELECT * FROM sessions WHERE user_id = ${userId} AND revoked_at IS NULL AND expires_at > ${at}
          ORDER BY created_at DESC, id`
  })
  const passwordOf = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: PasswordRow,
    execute: (userId) => sql`SELECT user_id, password_hash FROM local_accounts WHERE user_id = ${userId}`
  })
  const passwordsByEmail = SqlSchema.findAll({
    Request: Schema.String,
    Result: PasswordRow,
    execute: (email) =>
      sql`SELECT a.user_id, a.password_hash FROM local_accounts a JOIN users u ON u.id = a.user_id
          WHERE lower(u.email) = ${email.toLowerCase()} ORDER BY u.created_at, u.id`
  })

  return SessionStore.of({
    insert: (s, tokenHash) =>
      read(sql`
        INSERT INTO sessions (id, user_id, organisation_id, token_hash, method, identity_provider, subject, created_at,
          last_seen_at, expires_at, revoked_at, user_agent, client_ip)
        VALUES (${s.id}, ${s.user_id}, ${s.organisation_id}, ${tokenHash}, ${s.method}, ${s.identity_provider},
          ${s.subject}, ${s.created_at}, ${s.last_seen_at}, ${s.expires_at}, ${s.revoked_at}, ${s.user_agent},
          ${s.client_ip})`.pipe(Effect.asVoid)),
    get: byId("sessions", SessionRow),
    findByTokenHash: (hash) =>
      read(Effect.map(
        byTokenHash(hash),
        Option.map(({ token_hash, ...session }) => ({
          session: new Session(session),
          tokenHash: token_hash
        }))
      )),
    listActive: (userId, at) => read(active({ userId, at })),
    touch: (id, at) =>
      read(Effect.map(
        sql`UPDATE sessions SET last_seen_at = ${at} WHERE id = ${id} AND last_seen_at < ${at} RETURNING id`,
        (rows) => rows.length > 0
      )),
    revoke: (id, at) =>
      read(Effect.map(
        sql`UPDATE sessions SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL RETURNING id`,
        (rows) => rows.length > 0
      )),
    revokeAll: (userId, at, exceptId) =>
      read(Effect.map(
        sql<{ id: string }>`UPDATE sessions SET revoked_at = ${at} WHERE user_id = ${userId} AND revoked_at IS NULL
          AND id <> ${exceptId ?? ""} RETURNING id`,
        (rows) => rows.map((row) => row.id)
      )),
    setPassword: (userId, hash, at) =>
      read(sql`
        INSERT INTO local_accounts (user_id, password_hash, updated_at) VALUES (${userId}, ${hash}, ${at})
        ON CONFLICT (user_id) DO UPDATE SET password_hash = EXCLUDED.password_hash, updated_at = EXCLUDED.updated_at`
        .pipe(Effect.asVoid)),
    passwordOf: (userId) => read(Effect.map(passwordOf(userId), Option.map((row) => row.password_hash))),
    passwordsByEmail: (email) =>
      read(
        Effect.map(passwordsByEmail(email), (rows) =>
          rows.map((row) => ({ userId: row.user_id, passwordHash: row.password_hash })))
      )
  })
})
