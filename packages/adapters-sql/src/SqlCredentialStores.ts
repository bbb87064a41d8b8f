/**
 * Configs on `effect/sql`. Provider keys arrive encrypted and leave encrypted: the store never sees a plaintext
 * key.
 */
import { ConfigStore, ConfigVersion, GatewayConfig, type PageRequest, type StoredSecret } from "@gateway-control/domain"
import { Context, Effect, Schema, SchemaGetter } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as SqlSchema from "effect/sql/SqlSchema"
import { queriesOn } from "./internal/queries.ts"
import { Int, Jsonb, Timestamp, timestamps, toJson } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const EncryptedKey = Schema.NullOr(Schema.String)
/** 0 or 1, whatever integer form the driver hands it in. */
const IsDefault = Int.pipe(Schema.decodeTo(GatewayConfig.fields.is_default))

/** A config's row, as the port's `StoredSecret`: the record, and its API key, when it has one, as stored (encrypted). */
const ConfigRow = Schema.Struct({
  ...GatewayConfig.mapFields((f) => ({ ...f, ...timestamps, config: Jsonb(f.config), is_default: IsDefault })).fields,
  encrypted_api_key: EncryptedKey
}).pipe(
  Schema.decodeTo(Schema.Struct({ record: GatewayConfig, encryptedKey: EncryptedKey }), {
    decode: SchemaGetter.transform(({ encrypted_api_key, ...record }) => ({ record, encryptedKey: encrypted_api_key })),
    encode: SchemaGetter.transform(({ encryptedKey, record }) => ({ ...record, encrypted_api_key: encryptedKey }))
  })
)

/** A config's version: its body as stored then. */
const ConfigVersionRow = ConfigVersion.mapFields((f) => ({
  ...f,
  created_at: Timestamp,
  version: Int,
  config: Jsonb(f.config)
})).pipe(Schema.decodeTo(ConfigVersion))

export const makeCredentialStores = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { allBySlug, byId, bySlug, inScope, listing } = queriesOn(sql)
  /** Whether a statement `RETURNING id` changed a row. */
  const updated = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
    read(Effect.map(statement, (rows) => rows.length > 0))

  const queriesOf = <A>(table: string, Row: Schema.Decoder<StoredSecret<A>>) => {
    return {
      get: byId(table, Row),
      findBySlug: bySlug(table, "workspace_id", Row),
      findAllBySlug: allBySlug(table, Row),
      list: (organisationId: string, workspaceId: string | null, page: PageRequest) =>
        Effect.map(
          listing(Row, table, inScope(organisationId, workspaceId), page),
          ({ items, total }) => ({ items: items.map((stored) => stored.record), total })
        ),
      delete: (id: string) => updated(sql`DELETE FROM ${sql(table)} WHERE id = ${id} RETURNING id`)
    }
  }

  const configVersions = SqlSchema.findAll({
    Request: Schema.String,
    Result: ConfigVersionRow,
    execute: (id) => sql`SELECT * FROM config_versions WHERE config_id = ${id} ORDER BY version`
  })
  const configs = ConfigStore.of({
    ...queriesOf("configs", ConfigRow),
    insert: ({ encryptedKey, record: c }) =>
      write(sql`INSERT INTO configs (id, organisation_id, workspace_id, name, slug, config, masked_api_key,
                  encrypted_api_key, is_default, status, version_id, created_at, last_updated_at)
                VALUES (${c.id}, ${c.organisation_id}, ${c.workspace_id}, ${c.name}, ${c.slug},
                  ${toJson(c.config)}::jsonb, ${c.masked_api_key}, ${encryptedKey}, ${c.is_default}, ${c.status},
                  ${c.version_id}, ${c.created_at}, ${c.last_updated_at})`),
    update: ({ encryptedKey, record: c }) =>
      updated(sql`UPDATE configs SET name = ${c.name}, config = ${toJson(c.config)}::jsonb,
                    masked_api_key = ${c.masked_api_key}, encrypted_api_key = ${encryptedKey},
                    is_default = ${c.is_default}, status = ${c.status}, version_id = ${c.version_id},
                    last_updated_at = ${c.last_updated_at}
                  WHERE id = ${c.id} RETURNING id`),
    addVersion: (v) =>
      Effect.asVoid(write(sql`INSERT INTO config_versions (id, config_id, version, name, config, created_at)
                VALUES (${v.id}, ${v.config_id}, ${v.version}, ${v.name}, ${toJson(v.config)}::jsonb,
                  ${v.created_at})`)),
    versions: (configId) => read(configVersions(configId)),
    clearDefault: (workspaceId) =>
      read(Effect.asVoid(sql`UPDATE configs SET is_default = 0 WHERE workspace_id = ${workspaceId} AND is_default = 1`))
  })

  return Context.make(ConfigStore, configs)
})
