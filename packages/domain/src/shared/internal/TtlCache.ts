/**
 * A small in-process cache whose entries live `ttlMs`, bounded to `capacity` entries (oldest out first).
 * For reads on the hot path that may be a little stale across processes, and are cleared in-process
 * whenever this process changes what they hold. With an infinite lifetime it caches immutable things
 * (compiled template versions) and only the bound evicts.
 *
 * A cache that may answer from a snapshot while the store is unreachable (StoreOutage.ts) keeps entries
 * `retainMs` past their lifetime: `get` no longer answers them, `snapshot` does, with how old their store read is.
 * Whatever a change deletes (`deleteWhere`, `clear`) is gone from the snapshot too.
 */
interface Entry<V> {
  readonly value: V
  /** When the value was read from the store. */
  readonly storedAt: number
  /** Until when `get` answers it. */
  readonly until: number
}

export class TtlCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>()
  private readonly ttlMs: number
  private readonly capacity: number
  private readonly retainMs: number

  constructor(ttlMs: number, capacity: number, retainMs = 0) {
    this.ttlMs = ttlMs
    this.capacity = capacity
    this.retainMs = retainMs
  }

  /** The entry while it is kept (fresh or retained), else undefined; an entry kept no longer goes. */
  private kept(key: K, now: number): Entry<V> | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.until + this.retainMs <= now) {
      this.entries.delete(key)
      return undefined
    }
    return entry
  }

  get(key: K, now: number): V | undefined {
    const entry = this.kept(key, now)
    return entry === undefined || entry.until <= now ? undefined : entry.value
  }

  /** The value held for `key` whatever its lifetime says, if its store read is at most `maxAgeMs` old. */
  snapshot(key: K, now: number, maxAgeMs: number): { readonly value: V; readonly ageMs: number } | undefined {
    const entry = this.kept(key, now)
    if (entry === undefined) return undefined
    const ageMs = Math.max(0, now - entry.storedAt)
    return ageMs <= maxAgeMs ? { value: entry.value, ageMs } : undefined
  }

  set(key: K, value: V, now: number): void {
    if (this.ttlMs <= 0) return
    if (this.entries.size >= this.capacity && !this.entries.has(key)) {
      this.entries.delete(this.entries.keys().next().value!)
    }
    this.entries.set(key, { value, storedAt: now, until: now + this.ttlMs })
  }

  deleteWhere(predicate: (value: V, key: K) => boolean): void {
    for (const [key, entry] of this.entries) if (predicate(entry.value, key)) this.entries.delete(key)
  }

  clear(): void {
    this.entries.clear()
  }
}
