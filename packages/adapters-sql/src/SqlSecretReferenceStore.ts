/**
 * Secret references on `effect/sql`: a slug is unique within its organisation (a `UNIQUE` constraint, so racing
 * creates get one row and a `Conflict`). The login's secret fields arrive encrypted and leave encrypted.
 */
import { SecretReference, SecretReferenceStore } from "@gateway-control/domain"
import { Effect, Schema, SchemaGetter } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { likePattern, queriesOn } from "./internal/queries.ts"
import { Jsonb, timestamps, toJson } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const EncryptedAuth = Schema.Record(Schema.String, Schema.String)

/** A reference's row, as the port's `StoredSecretReference`. */
const SecretReferenceRow = Schema.Struct({
  ...SecretReference.mapFields((f) => ({
    ...f,
    ...timestamps,
    auth_config: Jsonb(f.auth_config),
    allowed_workspaces: Jsonb(f.allowed_workspaces),
    tags: Schema.NullOr(Jsonb(f.tags.members[0]))
  })).fields,
  encrypted_auth: Jsonb(EncryptedAuth)
}).pipe(
  Schema.decodeTo(Schema.Struct({ record: SecretReference, encryptedAuth: EncryptedAuth }), {
    decode: SchemaGetter.transform(({ encrypted_auth, ...record }) => ({ record, encryptedAuth: encrypted_auth })),
    encode: SchemaGetter.transform(({ encryptedAuth, record }) => ({ ...record, encrypted_auth: encryptedAuth }))
  })
)

export const makeSecretReferenceStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { byId, bySlug, listing } = queriesOn(sql)

  return SecretReferenceStore.of({
    insert: ({ encryptedAuth, record: r }) =>
      write(sql`
        INSERT INTO secret_references (id, organisation_id, name, slug, description, manager_type, auth_config,
          encrypted_auth, secret_path, secret_key, allow_all_workspaces, allowed_workspaces, tags, status,
          created_by, created_at, last_updated_at)
        VALUES (${r.id}, ${r.organisation_id}, ${r.name}, ${r.slug}, ${r.description}, ${r.manager_type},
          ${toJson(r.auth_config)}::jsonb, ${toJson(encryptedAuth)}::jsonb, ${r.secret_path}, ${r.secret_key},
          ${r.allow_all_workspaces}, ${toJson(r.allowed_workspaces)}::jsonb,
          ${r.tags === null ? null : toJson(r.tags)}::jsonb, ${r.status}, ${r.created_by}, ${r.created_at},
          ${r.last_updated_at})`),
    get: byId("secret_references", SecretReferenceRow),
    findBySlug: bySlug("secret_references", "organisation_id", SecretReferenceRow),
    list: (organisationId, filter, page) =>
      Effect.map(
        listing(
          SecretReferenceRow,
          "secret_references",
          sql.and([
            sql`organisation_id = ${organisationId}`,
            ...(filter.managerType === undefined ? [] : [sql`manager_type = ${filter.managerType}`]),
            ...(filter.search === undefined ? [] : [sql`name ILIKE ${likePattern(filter.search)}`])
          ]),
          page
        ),
        ({ items, total }) => ({ items: items.map((stored) => stored.record), total })
      ),
    update: ({ encryptedAuth, record: r }) =>
      Effect.map(
        write(sql`
          UPDATE secret_references
          SET name = ${r.name}, slug = ${r.slug}, description = ${r.description},
              auth_config = ${toJson(r.auth_config)}::jsonb, encrypted_auth = ${toJson(encryptedAuth)}::jsonb,
              secret_path = ${r.secret_path}, secret_key = ${r.secret_key},
              allow_all_workspaces = ${r.allow_all_workspaces},
              allowed_workspaces = ${toJson(r.allowed_workspaces)}::jsonb,
              tags = ${r.tags === null ? null : toJson(r.tags)}::jsonb, last_updated_at = ${r.last_updated_at}
          WHERE id = ${r.id}
          RETURNING id`),
        (rows) => rows.length > 0
      ),
    delete: (id) =>
      read(Effect.map(sql`DELETE FROM secret_references WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0))
  })
})
