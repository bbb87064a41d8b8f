/**
 * API keys on `effect/sql`: the public record and the digest of the plaintext, never the plaintext.
 */
import { ApiKey, ApiKeyStore, type StoredApiKey } from "@gateway-control/domain"
import { Effect, Schema, SchemaGetter } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { Jsonb, Timestamp, timestamps, toJson } from "./internal/rows.ts"
import { pageOf, read, write } from "./internal/statements.ts"

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
  const byId = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: ApiKeyRow,
    execute: (id) => sql`SELECT * FROM api_keys WHERE id = ${id}`
  })

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
    get: (id) => read(byId(id)),
    list: (organisationId, workspaceId, request) => {
      const where = workspaceId === null
        ? sql`organisation_id = ${organisationId}`
        : sql`organisation_id = ${organisationId} AND workspace_id = ${workspaceId}`
      return pageOf(
        ApiKeyRow,
        sql`SELECT *, count(*) OVER () AS total_count FROM api_keys WHERE ${where}
            ORDER BY created_at, id LIMIT ${request.limit} OFFSET ${request.offset}`,
        request,
        sql`SELECT count(*) AS n FROM api_keys WHERE ${where}`
      )
    },
    revoke: (id, at) =>
      read(
        Effect.map(
          sql`UPDATE api_keys SET status = 'revoked', last_updated_at = ${at} WHERE id = ${id} RETURNING id`,
          (rows) => rows.length > 0
        )
      )
  })
})
