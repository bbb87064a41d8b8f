/**
 * JSON with object keys sorted at every depth: the same value always gives the same text. Audit content is
 * made storable (nesting capped) before it is hashed, so the recursion here stays shallow.
 */
export const canonicalJson = (value: unknown): string => JSON.stringify(sortKeys(value))

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === "object") {
    // `Object.fromEntries` defines own properties, so a `__proto__` key is kept (and hashed) like any other.
    return Object.fromEntries(
      Object.keys(value).sort().flatMap((key) => {
        const inner = (value as Record<string, unknown>)[key]
        return inner === undefined ? [] : [[key, sortKeys(inner)] as const]
      })
    )
  }
  return value
}
