/**
 * Trust policies on `effect/sql`: a name is unique within its organisation (a `UNIQUE` constraint, so racing
 * creates get one row and a `Conflict`); exchanges look policies up by issuer (an index).
 */
import { TrustPolicy, TrustPolicyStore } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { queriesOn } from "./internal/queries.ts"
import { Int, Jsonb, timestamps, toJson } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const TrustPolicyRow = TrustPolicy.mapFields((f) => ({
  ...f,
  ...timestamps,
  jwks: Schema.NullOr(Jsonb(f.jwks.members[0])),
  claims: Jsonb(f.claims),
  scopes: Jsonb(f.scopes),
  rate_limits: Jsonb(f.rate_limits),
  max_ttl_seconds: Int
})).pipe(Schema.decodeTo(TrustPolicy))

const jsonOrNull = (value: unknown) => value === null ? null : toJson(value)

export const makeTrustPolicyStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { byId, listing } = queriesOn(sql)

  const byIssuer = SqlSchema.findAll({
    Request: Schema.String,
    Result: TrustPolicyRow,
    execute: (issuer) => sql`SELECT * FROM trust_policies WHERE issuer = ${issuer} ORDER BY created_at, id`
  })

  return TrustPolicyStore.of({
    insert: (p) =>
      write(sql`
        INSERT INTO trust_policies (id, organisation_id, workspace_id, name, issuer, jwks_uri, jwks, audience, subject,
          subject_pattern, claims, scopes, rate_limits, max_ttl_seconds, created_at, created_by_user_id,
          created_by_api_key_id, last_updated_at)
        VALUES (${p.id}, ${p.organisation_id}, ${p.workspace_id}, ${p.name}, ${p.issuer}, ${p.jwks_uri},
          ${jsonOrNull(p.jwks)}::jsonb, ${p.audience}, ${p.subject}, ${p.subject_pattern}, ${toJson(p.claims)}::jsonb,
          ${toJson(p.scopes)}::jsonb, ${toJson(p.rate_limits)}::jsonb, ${p.max_ttl_seconds}, ${p.created_at},
          ${p.created_by_user_id}, ${p.created_by_api_key_id}, ${p.last_updated_at})`),
    get: byId("trust_policies", TrustPolicyRow),
    list: (organisationId, page) =>
      listing(TrustPolicyRow, "trust_policies", sql`organisation_id = ${organisationId}`, page),
    findByIssuer: (issuer) => read(byIssuer(issuer)),
    update: (p) =>
      Effect.map(
        write(sql`
          UPDATE trust_policies
          SET workspace_id = ${p.workspace_id}, name = ${p.name}, issuer = ${p.issuer}, jwks_uri = ${p.jwks_uri},
              jwks = ${jsonOrNull(p.jwks)}::jsonb, audience = ${p.audience}, subject = ${p.subject},
              subject_pattern = ${p.subject_pattern}, claims = ${toJson(p.claims)}::jsonb,
              scopes = ${toJson(p.scopes)}::jsonb, rate_limits = ${toJson(p.rate_limits)}::jsonb,
              max_ttl_seconds = ${p.max_ttl_seconds}, last_updated_at = ${p.last_updated_at}
          WHERE id = ${p.id}
          RETURNING id`),
        (rows) => rows.length > 0
      ),
    delete: (id) =>
      read(Effect.map(sql`DELETE FROM trust_policies WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0))
  })
})
