/**
 * Row decoding shared by the PGlite and PostgreSQL clients, which return some types differently
 * (timestamps as text or Date, int8 as text or bigint, jsonb as text or parsed).
 */
const PG_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)(Z|[+-]\d{2}(?::?\d{2})?)?$/

/** A timestamp column as ISO 8601 with milliseconds, in UTC. */
export const iso = (value: unknown): string => {
  if (value instanceof Date) return value.toISOString()
  if (typeof value === "string") {
    const match = PG_TIMESTAMP.exec(value)
    if (match !== null) {
      const zone = match[3] === undefined || match[3] === "Z"
        ? "Z"
        : match[3].length === 3
        ? `${match[3]}:00`
        : match[3].includes(":")
        ? match[3]
        : `${match[3].slice(0, 3)}:${match[3].slice(3)}`
      return new Date(`${match[1]}T${match[2]}${zone}`).toISOString()
    }
  }
  throw new Error(`Unexpected timestamp from the store: ${String(value)}`)
}

export const isoOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : iso(value))

export const text = (value: unknown): string => {
  if (typeof value === "string") return value
  throw new Error(`Unexpected text from the store: ${String(value)}`)
}

export const textOrNull = (
  value: unknown
): string | null => (value === null || value === undefined ? null : text(value))

export const int = (value: unknown): number => {
  const n = typeof value === "bigint" ? Number(value) : typeof value === "string" ? Number(value) : value
  if (typeof n === "number" && Number.isSafeInteger(n)) return n
  throw new Error(`Unexpected integer from the store: ${String(value)}`)
}

export const json = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value)

/** A value for a jsonb parameter: serialised here, cast in SQL with `::jsonb`. */
export const toJson = (value: unknown): string => JSON.stringify(value)
