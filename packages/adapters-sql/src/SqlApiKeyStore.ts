/**
 * API keys on `effect/sql`: the public record and the digest of the plaintext, never the plaintext.
 */
import { ApiKey, ApiKeyStore, type StoredApiKey } from "@gateway-control/domain"
import { Effect, Schema, SchemaGetter } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { queriesOn } from "./internal/queries.ts"
import { Jsonb, Timestamp, timestamps, toJson } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const columns = ApiKey.mapFields((f) => ({
  ...f,
  ...timestamps,
  scopes: Jsonb(f.scopes),
  expires_at: Schema.NullOr(Timestamp)
}))

const ApiKeyRow = columns.pipe(Schema.decodeTo(ApiKey))

/** A row with its digest, as the port's `StoredApiKey`. */
const StoredApiKeyRow = Schema.Struct({ ...columns.fields, digest: Schema.String }).pipe(
  Schema.decodeTo(Schema.Struct({ key: ApiKey, digest: Schema.String }), {
    decode: SchemaGetter.transform(({ digest, ...key }) => ({ key, digest })),
    encode: SchemaGetter.transform(({ digest, key }) => ({ ...key, digest }))
  })
)

export const makeApiKeyStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const byDigest = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: StoredApiKeyRow,
    execute: (digest) => sql`SELECT * FROM api_keys WHERE digest = ${digest}`
  })
  const { byId, inScope, listing } = queriesOn(sql)

  return ApiKeyStore.of({
    insert: ({ digest, key: k }: StoredApiKey) =>
      write(
        sql`INSERT INTO api_keys (id, organisation_id, workspace_id, user_id, type, name, description, scopes, status,
                                  masked_key, digest, created_at, created_by_user_id, created_by_api_key_id,
                                  last_updated_at, expires_at)
            VALUES (${k.id}, ${k.organisation_id}, ${k.workspace_id}, ${k.user_id}, ${k.type}, ${k.name},
                    ${k.description}, ${toJson(k.scopes)}::jsonb, ${k.status}, ${k.masked_key}, ${digest},
                    ${k.created_at}, ${k.created_by_user_id}, ${k.created_by_api_key_id}, ${k.last_updated_at},
                    ${k.expires_at})`
      ),
    findByDigest: (digest) => read(byDigest(digest)),
    get: byId("api_keys", ApiKeyRow),
    list: (organisationId, workspaceId, request) =>
      listing(ApiKeyRow, "api_keys", inScope(organisationId, workspaceId), request),
    update: (k) =>
      read(
        Effect.map(
          sql`UPDATE api_keys SET name = ${k.name}, description = ${k.description},
                scopes = ${
            toJson(k.scopes)
          }::jsonb, expires_at = ${k.expires_at}, last_updated_at = ${k.last_updated_at}
              WHERE id = ${k.id} RETURNING id`,
          (rows) => rows.length > 0
        )
      ),
    revoke: (id, at) =>
      read(
        Effect.map(
          sql`UPDATE api_keys SET status = 'revoked', last_updated_at = ${at} WHERE id = ${id} RETURNING id`,
          (rows) => rows.length > 0
        )
      )
  })
})
