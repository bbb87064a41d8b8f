/**
 * Column codecs for the row schemas. PGlite and PostgreSQL return some types differently (timestamps as
 * text or Date, int8 as text, number or bigint, jsonb as text or parsed); each codec accepts every form
 * once, so a row schema is the domain model's schema with these columns swapped in.
 */
import { Schema, SchemaGetter } from "effect"

const PG_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)(Z|[+-]\d{2}(?::?\d{2})?)?$/

const zoneOf = (zone: string | undefined) =>
  zone === undefined || zone === "Z"
    ? "Z"
    : zone.length === 3
    ? `${zone}:00`
    : zone.includes(":")
    ? zone
    : `${zone.slice(0, 3)}:${zone.slice(3)}`

/** PostgreSQL's timestamp text (`2026-01-01 10:00:00.5+00`) or ISO 8601, as ISO 8601 with milliseconds. */
const PgTimestampText = Schema.String.check(
  Schema.makeFilter((text) => PG_TIMESTAMP.test(text), { expected: "a PostgreSQL timestamp" })
)

const isoOf = (value: string | Date): string => {
  if (value instanceof Date) return value.toISOString()
  const match = PG_TIMESTAMP.exec(value)!
  return new Date(`${match[1]}T${match[2]}${zoneOf(match[3])}`).toISOString()
}

/** A `timestamptz` column, decoded to ISO 8601 in UTC with milliseconds. */
export const Timestamp = Schema.Union([PgTimestampText, Schema.Date]).pipe(
  Schema.decodeTo(Schema.String, {
    decode: SchemaGetter.transform(isoOf),
    encode: SchemaGetter.transform((iso: string) => iso)
  })
)

/** An integer column (`integer` or `bigint`), whatever form the driver hands it in. */
export const Int = Schema.Union([Schema.Number, Schema.BigInt, Schema.String]).pipe(
  Schema.decodeTo(Schema.Int, {
    decode: SchemaGetter.transform((value: number | bigint | string) => Number(value)),
    encode: SchemaGetter.transform((n: number) => n)
  })
)

/**
 * A `jsonb` column holding an object or an array: text to parse, or already parsed. A jsonb value that is
 * itself a JSON string would be ambiguous here; such columns are read as `::text` and decoded with
 * `Schema.fromJsonString` instead (the audit log's request body).
 */
export const Jsonb = <S extends Schema.Top>(schema: S) =>
  Schema.Unknown.pipe(
    Schema.decodeTo(schema, {
      decode: SchemaGetter.transform((value: unknown) => (typeof value === "string" ? JSON.parse(value) : value)),
      encode: SchemaGetter.transform((value: S["Encoded"]) => value)
    })
  )

/** The created/updated pair most tables carry. */
export const timestamps = { created_at: Timestamp, last_updated_at: Timestamp } as const

/** A value for a jsonb parameter: serialised here, cast in SQL with `::jsonb`. */
export const toJson = (value: unknown): string => JSON.stringify(value)
