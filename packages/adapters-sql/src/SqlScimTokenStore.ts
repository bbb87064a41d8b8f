/** SCIM tokens on `effect/sql`: the digest of a token's secret is unique (an index finds it on every SCIM call). */
import { ScimToken, ScimTokenStore } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { queriesOn } from "./internal/queries.ts"
import { Timestamp, timestamps } from "./internal/rows.ts"
import { read } from "./internal/statements.ts"

const ScimTokenRow = ScimToken.mapFields((f) => ({
  ...f,
  ...timestamps,
  revoked_at: Schema.NullOr(Timestamp)
})).pipe(Schema.decodeTo(ScimToken))

export const makeScimTokenStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { byId, listing } = queriesOn(sql)

  const byDigest = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: ScimTokenRow,
    execute: (digest) =>
      sql`SELECT id, organisation_id, name, masked_token, status, created_at, created_by_user_id,
            created_by_api_key_id, revoked_at, last_updated_at
          FROM scim_tokens WHERE digest = ${digest}`
  })

  return ScimTokenStore.of({
    insert: ({ digest, token: t }) =>
      read(sql`
        INSERT INTO scim_tokens (id, organisation_id, name, digest, masked_token, status, created_at,
          created_by_user_id, created_by_api_key_id, revoked_at, last_updated_at)
        VALUES (${t.id}, ${t.organisation_id}, ${t.name}, ${digest}, ${t.masked_token}, ${t.status}, ${t.created_at},
          ${t.created_by_user_id}, ${t.created_by_api_key_id}, ${t.revoked_at}, ${t.last_updated_at})`),
    findByDigest: (digest) => read(byDigest(digest)),
    get: byId("scim_tokens", ScimTokenRow),
    list: (organisationId, page) =>
      listing(ScimTokenRow, "scim_tokens", sql`organisation_id = ${organisationId}`, page),
    revoke: (id, at) =>
      Effect.map(
        read(sql`
          UPDATE scim_tokens SET status = 'revoked', revoked_at = ${at}, last_updated_at = ${at}
          WHERE id = ${id} AND status = 'active'
          RETURNING id`),
        (rows) => rows.length > 0
      )
  })
})
