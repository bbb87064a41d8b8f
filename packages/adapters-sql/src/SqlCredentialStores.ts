/**
 * Virtual keys and configs on `effect/sql`. Provider keys arrive encrypted and leave encrypted: the store
 * never sees a plaintext key.
 */
import {
  ConfigStore,
  GatewayConfig,
  type PageRequest,
  type StoredSecret,
  VirtualKey,
  VirtualKeyStore
} from "@gateway-control/domain"
import { Context, Effect, Schema, SchemaGetter } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { queriesOn } from "./internal/queries.ts"
import { Jsonb, timestamps, toJson } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const EncryptedKey = Schema.NullOr(Schema.String)

/** Usage limits as a jsonb parameter: SQL NULL for none. */
const usageLimitsOf = (limits: object | null) => (limits === null ? null : toJson(limits))

/** A virtual key's row, as the port's `StoredSecret`: the record, and its key as stored (encrypted). */
const VirtualKeyRow = Schema.Struct({
  ...VirtualKey.mapFields((f) => ({ ...f, ...timestamps, usage_limits: Jsonb(f.usage_limits) })).fields,
  encrypted_key: EncryptedKey
}).pipe(
  Schema.decodeTo(Schema.Struct({ record: VirtualKey, encryptedKey: EncryptedKey }), {
    decode: SchemaGetter.transform(({ encrypted_key, ...record }) => ({ record, encryptedKey: encrypted_key })),
    encode: SchemaGetter.transform(({ encryptedKey, record }) => ({ ...record, encrypted_key: encryptedKey }))
  })
)

/** A config's row, likewise: its API key, when it has one, as stored (encrypted). */
const ConfigRow = Schema.Struct({
  ...GatewayConfig.mapFields((f) => ({ ...f, ...timestamps, config: Jsonb(f.config) })).fields,
  encrypted_api_key: EncryptedKey
}).pipe(
  Schema.decodeTo(Schema.Struct({ record: GatewayConfig, encryptedKey: EncryptedKey }), {
    decode: SchemaGetter.transform(({ encrypted_api_key, ...record }) => ({ record, encryptedKey: encrypted_api_key })),
    encode: SchemaGetter.transform(({ encryptedKey, record }) => ({ ...record, encrypted_api_key: encryptedKey }))
  })
)

export const makeCredentialStores = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { byId, bySlug, inScope, listing } = queriesOn(sql)
  /** Whether a statement `RETURNING id` changed a row. */
  const updated = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
    read(Effect.map(statement, (rows) => rows.length > 0))

  const queriesOf = <A>(table: string, Row: Schema.Decoder<StoredSecret<A>>) => {
    return {
      get: byId(table, Row),
      findBySlug: bySlug(table, "workspace_id", Row),
      list: (organisationId: string, workspaceId: string | null, page: PageRequest) =>
        Effect.map(
          listing(Row, table, inScope(organisationId, workspaceId), page),
          ({ items, total }) => ({ items: items.map((stored) => stored.record), total })
        ),
      delete: (id: string) => updated(sql`DELETE FROM ${sql(table)} WHERE id = ${id} RETURNING id`)
    }
  }

  const virtualKeys = VirtualKeyStore.of({
    ...queriesOf("virtual_keys", VirtualKeyRow),
    insert: ({ encryptedKey, record: k }) =>
      write(sql`INSERT INTO virtual_keys (id, organisation_id, workspace_id, name, slug, provider, masked_key,
                  encrypted_key, custom_host, note, usage_limits, created_at, last_updated_at)
                VALUES (${k.id}, ${k.organisation_id}, ${k.workspace_id}, ${k.name}, ${k.slug}, ${k.provider},
                  ${k.masked_key}, ${encryptedKey}, ${k.custom_host}, ${k.note}, ${
        usageLimitsOf(k.usage_limits)
      }::jsonb,
                  ${k.created_at}, ${k.last_updated_at})`),
    update: ({ encryptedKey, record: k }) =>
      updated(sql`UPDATE virtual_keys SET name = ${k.name}, masked_key = ${k.masked_key},
                    encrypted_key = ${encryptedKey}, custom_host = ${k.custom_host}, note = ${k.note},
                    usage_limits = ${usageLimitsOf(k.usage_limits)}::jsonb, last_updated_at = ${k.last_updated_at}
                  WHERE id = ${k.id} RETURNING id`)
  })

  const configs = ConfigStore.of({
    ...queriesOf("configs", ConfigRow),
    insert: ({ encryptedKey, record: c }) =>
      write(sql`INSERT INTO configs (id, organisation_id, workspace_id, name, slug, config, masked_api_key,
                  encrypted_api_key, created_at, last_updated_at)
                VALUES (${c.id}, ${c.organisation_id}, ${c.workspace_id}, ${c.name}, ${c.slug},
                  ${toJson(c.config)}::jsonb, ${c.masked_api_key}, ${encryptedKey}, ${c.created_at},
                  ${c.last_updated_at})`),
    update: ({ encryptedKey, record: c }) =>
      updated(sql`UPDATE configs SET name = ${c.name}, config = ${toJson(c.config)}::jsonb,
                    masked_api_key = ${c.masked_api_key}, encrypted_api_key = ${encryptedKey},
                    last_updated_at = ${c.last_updated_at}
                  WHERE id = ${c.id} RETURNING id`)
  })

  return Context.make(VirtualKeyStore, virtualKeys).pipe(Context.add(ConfigStore, configs))
})
