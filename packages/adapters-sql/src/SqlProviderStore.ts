/**
 * Providers on `effect/sql`: a slug is unique within its workspace (a `UNIQUE` constraint, so racing creates get
 * one row and a `Conflict`).
 */
import { Provider, ProviderStore } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { queriesOn } from "./internal/queries.ts"
import { Jsonb, Timestamp, timestamps, toJson } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const ProviderRow = Provider.mapFields((f) => ({
  ...f,
  ...timestamps,
  usage_limits: Schema.NullOr(Jsonb(f.usage_limits.members[0])),
  rate_limits: Schema.NullOr(Jsonb(f.rate_limits.members[0])),
  expires_at: Schema.NullOr(Timestamp),
  models: Schema.NullOr(Jsonb(f.models.members[0]))
}))

const nullableJson = (value: unknown) => (value === null ? null : toJson(value))

export const makeProviderStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { allBySlug, byId, bySlug, inScope, listing } = queriesOn(sql)

  return ProviderStore.of({
    insert: (p) =>
      write(sql`
        INSERT INTO providers (id, organisation_id, workspace_id, integration_id, name, slug, note, status,
          usage_limits, rate_limits, expires_at, models, created_at, last_updated_at)
        VALUES (${p.id}, ${p.organisation_id}, ${p.workspace_id}, ${p.integration_id}, ${p.name}, ${p.slug}, ${p.note},
          ${p.status}, ${nullableJson(p.usage_limits)}::jsonb, ${nullableJson(p.rate_limits)}::jsonb, ${p.expires_at},
          ${nullableJson(p.models)}::jsonb, ${p.created_at}, ${p.last_updated_at})`),
    get: byId("providers", ProviderRow),
    findBySlug: bySlug("providers", "workspace_id", ProviderRow),
    findAllBySlug: allBySlug("providers", ProviderRow),
    list: (organisationId, workspaceId, page) =>
      listing(ProviderRow, "providers", inScope(organisationId, workspaceId), page),
    listVirtualKeys: (organisationId, workspaceId, page) =>
      listing(ProviderRow, "providers", sql`${inScope(organisationId, workspaceId)} AND integration_id = id`, page),
    usingIntegration: (integrationId, limit) =>
      read(Effect.map(
        sql<{ readonly slug: string }>`
          SELECT slug FROM providers WHERE integration_id = ${integrationId} ORDER BY created_at, id LIMIT ${limit}`,
        (rows) => rows.map((row) => row.slug)
      )),
    update: (p) =>
      read(Effect.map(
        sql`
          UPDATE providers
          SET name = ${p.name}, note = ${p.note}, status = ${p.status},
              usage_limits = ${nullableJson(p.usage_limits)}::jsonb, rate_limits = ${
          nullableJson(p.rate_limits)
        }::jsonb,
              expires_at = ${p.expires_at}, models = ${nullableJson(p.models)}::jsonb,
              last_updated_at = ${p.last_updated_at}
          WHERE id = ${p.id}
          RETURNING id`,
        (rows) => rows.length > 0
      )),
    delete: (id) =>
      read(Effect.map(sql`DELETE FROM providers WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0))
  })
})
