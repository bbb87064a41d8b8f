/**
 * Invitations on `effect/sql`. A link's token is kept as its SHA-256 (`UNIQUE`); every change of state is a
 * conditional `UPDATE`, so two acceptances of one link at the same moment change one row once.
 */
import { Invite, InviteStore } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as SqlSchema from "effect/sql/SqlSchema"
import { queriesOn } from "./internal/queries.ts"
import { Jsonb, Timestamp, timestamps, toJson } from "./internal/rows.ts"
import { read } from "./internal/statements.ts"

const InviteRow = Invite.mapFields((f) => ({
  ...f,
  ...timestamps,
  expires_at: Timestamp,
  accepted_at: Schema.NullOr(Timestamp),
  workspaces: Jsonb(f.workspaces)
})).pipe(Schema.decodeTo(Invite))

export const makeInviteStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { byId, listing } = queriesOn(sql)

  const byTokenHash = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: InviteRow,
    execute: (hash) => sql`SELECT * FROM invites WHERE token_hash = ${hash}`
  })

  const changed = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
    Effect.map(read(statement), (rows) => rows.length > 0)

  return InviteStore.of({
    insert: (i, tokenHash) => {
      const workspaces = toJson(i.workspaces)
      return Effect.asVoid(read(sql`
        INSERT INTO invites (id, organisation_id, email, role, user_id, workspaces, status, token_hash, created_at,
          expires_at, accepted_at, accepted_user_id, invited_by, invited_by_api_key_id, last_updated_at)
        VALUES (${i.id}, ${i.organisation_id}, ${i.email}, ${i.role}, ${i.user_id}, ${workspaces}::jsonb, ${i.status},
          ${tokenHash}, ${i.created_at}, ${i.expires_at}, ${i.accepted_at}, ${i.accepted_user_id}, ${i.invited_by},
          ${i.invited_by_api_key_id}, ${i.last_updated_at})`))
    },
    get: byId("invites", InviteRow),
    list: (organisationId, filter, at, page) => {
      const conditions = [sql`organisation_id = ${organisationId}`]
      if (filter.role !== undefined) conditions.push(sql`role = ${filter.role}`)
      if (filter.email !== undefined) conditions.push(sql`email = ${filter.email.trim().toLowerCase()}`)
      if (filter.status === "pending") conditions.push(sql`status = 'pending' AND expires_at > ${at}`)
      else if (filter.status === "expired") conditions.push(sql`status = 'pending' AND expires_at <= ${at}`)
      else if (filter.status !== undefined) conditions.push(sql`status = ${filter.status}`)
      return listing(InviteRow, "invites", sql.and(conditions), page)
    },
    findByTokenHash: (hash) => read(byTokenHash(hash)),
    renew: (id, tokenHash, expiresAt, at) =>
      changed(sql`
        UPDATE invites SET token_hash = ${tokenHash}, expires_at = ${expiresAt}, last_updated_at = ${at}
        WHERE id = ${id} AND status = 'pending' RETURNING id`),
    cancel: (id, at) =>
      changed(sql`
        UPDATE invites SET status = 'cancelled', last_updated_at = ${at}
        WHERE id = ${id} AND status = 'pending' RETURNING id`),
    accept: (id, tokenHash, userId, at) =>
      changed(sql`
        UPDATE invites SET status = 'accepted', accepted_at = ${at}, accepted_user_id = ${userId},
          last_updated_at = ${at}
        WHERE id = ${id} AND status = 'pending' AND token_hash = ${tokenHash} AND expires_at > ${at}
        RETURNING id`)
  })
})
