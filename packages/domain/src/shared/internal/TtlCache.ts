/**
 * A small in-process cache whose entries live `ttlMs`, bounded to `capacity` entries (oldest out first).
 * For reads on the hot path that may be a little stale across processes, and are cleared in-process
 * whenever this process changes what they hold. With an infinite lifetime it caches immutable things
 * (compiled template versions) and only the bound evicts.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { readonly value: V; readonly until: number }>()
  private readonly ttlMs: number
  private readonly capacity: number

  constructor(ttlMs: number, capacity: number) {
    this.ttlMs = ttlMs
    this.capacity = capacity
  }

  get(key: K, now: number): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.until <= now) {
      this.entries.delete(key)
      return undefined
    }
    return entry.value
  }

  set(key: K, value: V, now: number): void {
    if (this.ttlMs <= 0) return
    if (this.entries.size >= this.capacity && !this.entries.has(key)) {
      this.entries.delete(this.entries.keys().next().value!)
    }
    this.entries.set(key, { value, until: now + this.ttlMs })
  }

  deleteWhere(predicate: (value: V, key: K) => boolean): void {
    for (const [key, entry] of this.entries) if (predicate(entry.value, key)) this.entries.delete(key)
  }

  clear(): void {
    this.entries.clear()
  }
}
