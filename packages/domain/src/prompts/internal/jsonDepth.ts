/**
 * How deep a JSON value nests, measured without recursion: `JSON.stringify` and any recursive walk overflow
 * the stack a few thousand levels down, and a 1 MB request can nest half a million.
 */

/**
 * Whether `value` holds arrays or objects more than `max` levels deep (a scalar is depth 0, `[]` and `{}`
 * are depth 1). Stops at the first path that goes too deep; otherwise visits every value once.
 */
export const nestsDeeperThan = (value: unknown, max: number): boolean => {
  if (value === null || typeof value !== "object") return false
  const values: Array<unknown> = [value]
  const depths: Array<number> = [1]
  while (values.length > 0) {
    const current = values.pop() as object
    const depth = depths.pop()!
    if (depth > max) return true
    for (const inner of Array.isArray(current) ? current : Object.values(current)) {
      if (inner !== null && typeof inner === "object") {
        values.push(inner)
        depths.push(depth + 1)
      }
    }
  }
  return false
}
