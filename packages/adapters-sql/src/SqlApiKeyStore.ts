/**
 * API keys on `effect/sql`: the public record and the digest of the plaintext, never the plaintext. During a
 * rotation's transition the replaced secret's digest is kept too (`previous_digest`), and finds the key.
 */
import { ApiKey, ApiKeyStore, type KeyListFilters } from "@gateway-control/domain"
import { Effect, Schema, SchemaGetter } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as SqlSchema from "effect/sql/SqlSchema"
import { queriesOn } from "./internal/queries.ts"
import { Jsonb, Timestamp, timestamps, toJson } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const columns = ApiKey.mapFields((f) => ({
  ...f,
  ...timestamps,
  scopes: Jsonb(f.scopes),
  rate_limits: Jsonb(f.rate_limits),
  usage_limits: Jsonb(f.usage_limits),
  rotation_policy: Jsonb(f.rotation_policy),
  alert_emails: Jsonb(f.alert_emails),
  expires_at: Schema.NullOr(Timestamp),
  last_used_at: Schema.NullOr(Timestamp),
  rotated_at: Schema.NullOr(Timestamp),
  transition_ends_at: Schema.NullOr(Timestamp)
}))

const ApiKeyRow = columns.pipe(Schema.decodeTo(ApiKey))

/** A nullable object column's value: SQL NULL for none. */
const jsonOrNull = (value: object | null) => (value === null ? null : toJson(value))

/** A row with its digests, as the port's `StoredApiKey`. */
const StoredApiKeyRow = Schema.Struct({
  ...columns.fields,
  digest: Schema.String,
  previous_digest: Schema.NullOr(Schema.String)
}).pipe(
  Schema.decodeTo(
    Schema.Struct({ key: ApiKey, digest: Schema.String, previousDigest: Schema.NullOr(Schema.String) }),
    {
      decode: SchemaGetter.transform(({ digest, previous_digest, ...key }) => ({
        key,
        digest,
        previousDigest: previous_digest
      })),
      encode: SchemaGetter.transform(({ digest, key, previousDigest }) => ({
        ...key,
        digest,
        previous_digest: previousDigest
      }))
    }
  )
)

export const makeApiKeyStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const byDigest = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: StoredApiKeyRow,
    execute: (digest) => sql`SELECT * FROM api_keys WHERE digest = ${digest} OR previous_digest = ${digest}`
  })
  const { byId, inScope, listing } = queriesOn(sql)

  const filtered = (organisationId: string, workspaceId: string | null, filters: KeyListFilters) =>
    sql.and([
      inScope(organisationId, workspaceId),
      ...(filters.status === undefined ? [] : [sql`status = ${filters.status}`]),
      ...(filters.type === undefined ? [] : [sql`type = ${filters.type}`]),
      // The name's own characters, wildcards included, match themselves.
      ...(filters.name === undefined ? [] : [sql`strpos(lower(name), lower(${filters.name})) > 0`]),
      ...(filters.lastUsedBefore === undefined
        ? []
        : [sql`(last_used_at IS NULL OR last_used_at < ${filters.lastUsedBefore})`])
    ])

  /** Whether the statement, which returns the rows it wrote, wrote any. */
  const changed = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
    read(Effect.map(statement, (rows) => rows.length > 0))

  return ApiKeyStore.of({
    insert: ({ digest, key: k }) =>
      write(
        sql`INSERT INTO api_keys (id, organisation_id, workspace_id, user_id, type, name, description, scopes, status,
                                  masked_key, digest, created_at, created_by_user_id, created_by_api_key_id,
                                  last_updated_at, expires_at, rate_limits, last_used_at, rotated_at,
                                  transition_ends_at, usage_limits, rotation_policy, alert_emails)
            VALUES (${k.id}, ${k.organisation_id}, ${k.workspace_id}, ${k.user_id}, ${k.type}, ${k.name},
                    ${k.description}, ${toJson(k.scopes)}::jsonb, ${k.status}, ${k.masked_key}, ${digest},
                    ${k.created_at}, ${k.created_by_user_id}, ${k.created_by_api_key_id}, ${k.last_updated_at},
                    ${k.expires_at}, ${toJson(k.rate_limits)}::jsonb, ${k.last_used_at}, ${k.rotated_at},
                    ${k.transition_ends_at}, ${jsonOrNull(k.usage_limits)}::jsonb,
                    ${jsonOrNull(k.rotation_policy)}::jsonb, ${toJson(k.alert_emails)}::jsonb)`
      ),
    findByDigest: (digest) => read(byDigest(digest)),
    get: byId("api_keys", ApiKeyRow),
    list: (organisationId, workspaceId, request, filters = {}) =>
      listing(ApiKeyRow, "api_keys", filtered(organisationId, workspaceId, filters), request),
    revoke: (id, at) =>
      changed(sql`UPDATE api_keys SET status = 'revoked', last_updated_at = ${at} WHERE id = ${id} RETURNING id`),
    // One statement decides and writes, so two concurrent rotations cannot both start a transition.
    rotate: ({ at, digest, id, maskedKey, transitionEndsAt }) =>
      changed(sql`
        UPDATE api_keys
        SET previous_digest = CASE WHEN ${transitionEndsAt}::timestamptz > ${at}::timestamptz THEN digest END,
            digest = ${digest}, masked_key = ${maskedKey}, rotated_at = ${at},
            transition_ends_at = ${transitionEndsAt}, last_updated_at = ${at}
        WHERE id = ${id} AND status = 'active'
          AND (transition_ends_at IS NULL OR transition_ends_at <= ${at}::timestamptz)
        RETURNING id`),
    update: (k) =>
      changed(sql`
        UPDATE api_keys
        SET name = ${k.name}, description = ${k.description}, scopes = ${toJson(k.scopes)}::jsonb,
            expires_at = ${k.expires_at}, rate_limits = ${toJson(k.rate_limits)}::jsonb,
            usage_limits = ${jsonOrNull(k.usage_limits)}::jsonb, rotation_policy = ${
        jsonOrNull(k.rotation_policy)
      }::jsonb,
            alert_emails = ${toJson(k.alert_emails)}::jsonb, last_updated_at = ${k.last_updated_at}
        WHERE id = ${k.id}
        RETURNING id`),
    recordUse: (ids, at) =>
      ids.length === 0 ? Effect.void : read(Effect.asVoid(sql`
        UPDATE api_keys SET last_used_at = ${at}
        WHERE id IN ${sql.in(ids)} AND (last_used_at IS NULL OR last_used_at < ${at}::timestamptz)`)),
    // Each ended transition is claimed by the one statement that clears it, so only one process answers it.
    endTransitions: (now) =>
      read(Effect.flatMap(
        sql`UPDATE api_keys SET previous_digest = NULL
            WHERE previous_digest IS NOT NULL AND transition_ends_at <= ${now}::timestamptz
            RETURNING *`,
        Schema.decodeUnknownEffect(Schema.Array(ApiKeyRow))
      ))
  })
})
