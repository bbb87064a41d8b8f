/**
 * Virtual keys and configs on `effect/sql`. Keys arrive encrypted and leave encrypted.
 */
import { ConfigStore, GatewayConfig, VirtualKey, VirtualKeyStore } from "@gateway-control/domain"
import { Context, Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { int, iso, json, text, textOrNull, toJson } from "./internal/rows.ts"
import { first, type Row, toPage, write } from "./internal/statements.ts"

const virtualKeyFrom = (row: Row) => ({
  record: new VirtualKey({
    id: text(row.id),
    organisation_id: text(row.organisation_id),
    workspace_id: text(row.workspace_id),
    name: text(row.name),
    slug: text(row.slug),
    provider: text(row.provider),
    masked_key: text(row.masked_key),
    custom_host: textOrNull(row.custom_host),
    created_at: iso(row.created_at),
    last_updated_at: iso(row.last_updated_at)
  }),
  encryptedKey: text(row.encrypted_key)
})

const configFrom = (row: Row) => ({
  record: new GatewayConfig({
    id: text(row.id),
    organisation_id: text(row.organisation_id),
    workspace_id: text(row.workspace_id),
    name: text(row.name),
    slug: text(row.slug),
    config: json(row.config) as GatewayConfig["config"],
    masked_api_key: textOrNull(row.masked_api_key),
    created_at: iso(row.created_at),
    last_updated_at: iso(row.last_updated_at)
  }),
  encryptedKey: textOrNull(row.encrypted_api_key)
})

export const makeCredentialStores = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const read = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A> => Effect.orDie(effect)

  const listOf =
    <A>(table: string, decode: (row: Row) => { readonly record: A }) =>
    (organisationId: string, workspaceId: string | null, page: { readonly limit: number; readonly offset: number }) =>
      read(Effect.gen(function*() {
        const where = workspaceId === null
          ? sql`organisation_id = ${organisationId}`
          : sql`organisation_id = ${organisationId} AND workspace_id = ${workspaceId}`
        const rows = yield* sql<Row>`SELECT *, count(*) OVER () AS total_count FROM ${sql(table)} WHERE ${where}
                                   ORDER BY created_at, id LIMIT ${page.limit} OFFSET ${page.offset}`
        if (rows.length > 0 || page.offset === 0) return toPage(rows, (row) => decode(row).record)
        const counted = yield* sql<Row>`SELECT count(*) AS n FROM ${sql(table)} WHERE ${where}`
        return { items: [], total: int(counted[0].n) }
      }))

  const byId = <A>(table: string, decode: (row: Row) => A) => (id: string) =>
    read(Effect.map(sql<Row>`SELECT * FROM ${sql(table)} WHERE id = ${id}`, (r) => first(r, decode)))
  const bySlug = <A>(table: string, decode: (row: Row) => A) => (workspaceId: string, slug: string) =>
    read(Effect.map(
      sql<Row>`SELECT * FROM ${sql(table)} WHERE workspace_id = ${workspaceId} AND slug = ${slug}`,
      (r) => first(r, decode)
    ))
  const remove = (table: string) => (id: string) =>
    read(Effect.map(sql<Row>`DELETE FROM ${sql(table)} WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0))

  const virtualKeys = VirtualKeyStore.of({
    insert: ({ encryptedKey, record: k }) =>
      write(sql`INSERT INTO virtual_keys (id, organisation_id, workspace_id, name, slug, provider, masked_key,
                  encrypted_key, custom_host, created_at, last_updated_at)
                VALUES (${k.id}, ${k.organisation_id}, ${k.workspace_id}, ${k.name}, ${k.slug}, ${k.provider},
                  ${k.masked_key}, ${encryptedKey}, ${k.custom_host}, ${k.created_at}, ${k.last_updated_at})`),
    get: byId("virtual_keys", virtualKeyFrom),
    findBySlug: bySlug("virtual_keys", virtualKeyFrom),
    list: listOf("virtual_keys", virtualKeyFrom),
    delete: remove("virtual_keys")
  })

  const configs = ConfigStore.of({
    insert: ({ encryptedKey, record: c }) =>
      write(sql`INSERT INTO configs (id, organisation_id, workspace_id, name, slug, config, masked_api_key,
                  encrypted_api_key, created_at, last_updated_at)
                VALUES (${c.id}, ${c.organisation_id}, ${c.workspace_id}, ${c.name}, ${c.slug},
                  ${toJson(c.config)}::jsonb, ${c.masked_api_key}, ${encryptedKey}, ${c.created_at},
                  ${c.last_updated_at})`),
    get: byId("configs", configFrom),
    findBySlug: bySlug("configs", configFrom),
    list: listOf("configs", configFrom),
    delete: remove("configs")
  })

  return Context.make(VirtualKeyStore, virtualKeys).pipe(Context.add(ConfigStore, configs))
})
