/** What SCIM keeps of users on `effect/sql`: one row a user, gone with the user (a cascading foreign key). */
import { ScimIdentity, ScimStore } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { timestamps } from "./internal/rows.ts"
import { read } from "./internal/statements.ts"

const ScimIdentityRow = ScimIdentity.mapFields((f) => ({ ...f, ...timestamps })).pipe(Schema.decodeTo(ScimIdentity))

export const makeScimStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const byUser = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: ScimIdentityRow,
    execute: (userId) => sql`SELECT * FROM scim_identities WHERE user_id = ${userId}`
  })
  const byOrganisation = SqlSchema.findAll({
    Request: Schema.String,
    Result: ScimIdentityRow,
    execute: (organisationId) => sql`SELECT * FROM scim_identities WHERE organisation_id = ${organisationId}`
  })

  return ScimStore.of({
    putIdentity: (i) =>
      read(sql`
        INSERT INTO scim_identities (user_id, organisation_id, external_id, active, created_at, last_updated_at)
        VALUES (${i.user_id}, ${i.organisation_id}, ${i.external_id}, ${i.active}, ${i.created_at}, ${i.last_updated_at})
        ON CONFLICT (user_id) DO UPDATE SET external_id = EXCLUDED.external_id, active = EXCLUDED.active,
          last_updated_at = EXCLUDED.last_updated_at`).pipe(Effect.asVoid),
    getIdentity: (userId) => read(byUser(userId)),
    identities: (organisationId) => read(byOrganisation(organisationId)),
    removeIdentity: (userId) =>
      read(
        Effect.map(sql`DELETE FROM scim_identities WHERE user_id = ${userId} RETURNING user_id`, (rows) =>
          rows.length > 0)
      )
  })
})
