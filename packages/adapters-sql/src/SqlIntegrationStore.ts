/**
 * AI-provider integrations on `effect/sql`: a slug is unique within its organisation (a `UNIQUE` constraint, so
 * racing creates get one row and a `Conflict`). The secrets arrive encrypted and leave encrypted.
 */
import { Integration, IntegrationStore } from "@gateway-control/domain"
import { Effect, Schema, SchemaGetter } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { queriesOn } from "./internal/queries.ts"
import { Jsonb, timestamps, toJson } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const EncryptedSecrets = Schema.Record(Schema.String, Schema.String)

/** An integration's row, as the port's `StoredIntegration`. */
const IntegrationRow = Schema.Struct({
  ...Integration.mapFields((f) => ({
    ...f,
    ...timestamps,
    configurations: Jsonb(f.configurations),
    secret_mappings: Jsonb(f.secret_mappings),
    global_workspace_access_settings: Schema.NullOr(Jsonb(f.global_workspace_access_settings.members[0])),
    workspaces: Jsonb(f.workspaces),
    models: Jsonb(f.models)
  })).fields,
  encrypted_secrets: Jsonb(EncryptedSecrets)
}).pipe(
  Schema.decodeTo(Schema.Struct({ record: Integration, encryptedSecrets: EncryptedSecrets }), {
    decode: SchemaGetter.transform(({ encrypted_secrets, ...record }) => ({
      record,
      encryptedSecrets: encrypted_secrets
    })),
    encode: SchemaGetter.transform(({ encryptedSecrets, record }) => ({
      ...record,
      encrypted_secrets: encryptedSecrets
    }))
  })
)

const nullableJson = (value: unknown) => (value === null ? null : toJson(value))

export const makeIntegrationStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { byId, bySlug, listing } = queriesOn(sql)

  return IntegrationStore.of({
    insert: ({ encryptedSecrets, record: r }) =>
      write(sql`
        INSERT INTO integrations (id, organisation_id, workspace_id, name, slug, ai_provider_id, description, status,
          masked_key, configurations, encrypted_secrets, secret_mappings, global_workspace_access_settings,
          workspaces, allow_all_models, models, created_at, last_updated_at)
        VALUES (${r.id}, ${r.organisation_id}, ${r.workspace_id}, ${r.name}, ${r.slug}, ${r.ai_provider_id},
          ${r.description}, ${r.status}, ${r.masked_key}, ${toJson(r.configurations)}::jsonb,
          ${toJson(encryptedSecrets)}::jsonb, ${toJson(r.secret_mappings)}::jsonb,
          ${nullableJson(r.global_workspace_access_settings)}::jsonb, ${toJson(r.workspaces)}::jsonb,
          ${r.allow_all_models}, ${toJson(r.models)}::jsonb, ${r.created_at}, ${r.last_updated_at})`),
    get: byId("integrations", IntegrationRow),
    findBySlug: bySlug("integrations", "organisation_id", IntegrationRow),
    list: (organisationId, filter, page) =>
      Effect.map(
        listing(
          IntegrationRow,
          "integrations",
          sql.and([
            sql`organisation_id = ${organisationId}`,
            ...(filter.level === "workspace" ? [sql`workspace_id IS NOT NULL`] : []),
            ...(filter.level === "organisation" ? [sql`workspace_id IS NULL`] : []),
            ...(filter.usableBy === null ? [] : [sql`(workspace_id = ${filter.usableBy} OR (workspace_id IS NULL AND (
              coalesce((global_workspace_access_settings ->> 'enabled')::boolean, false)
              OR workspaces @> ${toJson([{ id: filter.usableBy, enabled: true }])}::jsonb)))`])
          ]),
          page
        ),
        ({ items, total }) => ({ items: items.map((stored) => stored.record), total })
      ),
    update: ({ encryptedSecrets, record: r }) =>
      Effect.map(
        write(sql`
          UPDATE integrations
          SET name = ${r.name}, slug = ${r.slug}, description = ${r.description}, status = ${r.status},
              masked_key = ${r.masked_key}, configurations = ${toJson(r.configurations)}::jsonb,
              encrypted_secrets = ${toJson(encryptedSecrets)}::jsonb,
              secret_mappings = ${toJson(r.secret_mappings)}::jsonb,
              global_workspace_access_settings = ${nullableJson(r.global_workspace_access_settings)}::jsonb,
              workspaces = ${toJson(r.workspaces)}::jsonb, allow_all_models = ${r.allow_all_models},
              models = ${toJson(r.models)}::jsonb, last_updated_at = ${r.last_updated_at}
          WHERE id = ${r.id}
          RETURNING id`),
        (rows) => rows.length > 0
      ),
    delete: (id) =>
      read(Effect.map(sql`DELETE FROM integrations WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0)),
    listActive: (afterId, limit) =>
      read(
        Effect.map(
          SqlSchema.findAll({
            Request: Schema.Void,
            Result: IntegrationRow,
            execute: () =>
              sql`SELECT * FROM integrations WHERE status = 'active'
                  ${
                afterId === null ? sql`` : sql`AND id COLLATE "C" > ${afterId}`
              } ORDER BY id COLLATE "C" LIMIT ${limit}`
          })(undefined),
          (rows) => rows.map((stored) => stored.record)
        )
      )
  })
})
