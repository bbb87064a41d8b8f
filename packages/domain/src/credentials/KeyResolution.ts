/**
 * Resolving a presented key into a `Principal`, on every request: a recently resolved key resolves from this
 * process's cache with no store access, its use is noted for `last_used_at`, and a key with rate limits is
 * counted against them (one without asks nothing more).
 *
 * The cache forgets a key as soon as this process changes it (once the change commits), and as soon as the
 * change feed says another process did; when the feed is down, within `KEY_CACHE_TTL_MS`. A store no other
 * process writes (the change feed's `soleWriter`) needs no lifetime: its entries hold until a change, and a service
 * key this process issues or rotates there is known from then on, its first use included (`learn`).
 *
 * While the store is unreachable (StoreOutage.ts), a key this process resolved in the last
 * `STORE_OUTAGE_SNAPSHOT_MS` is admitted from the cache's snapshot, saying how old its store read is; a key it
 * forgot (revoked, its user removed) stays forgotten, and any other key's check fails with the store's error.
 */
import { Effect, Option, Redacted } from "effect"
import { UserStore, WorkspaceMemberStore } from "../access/AccessStores.ts"
import { type Principal, principalOf } from "../access/Principal.ts"
import { isScope } from "../access/Scopes.ts"
import { cacheLifetimeMs, type Change, type ChangeEvent, ChangeFeed } from "../shared/ChangeFeed.ts"
import { Unauthenticated } from "../shared/Errors.ts"
import { SingleFlight } from "../shared/internal/SingleFlight.ts"
import { TtlCache } from "../shared/internal/TtlCache.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { StoreOutage } from "../shared/StoreOutage.ts"
import { StoreTransaction } from "../shared/StoreTransaction.ts"
import { type ApiKey, hasKeyShape } from "./ApiKey.ts"
import { ApiKeyStore } from "./ApiKeyStore.ts"
import { makeKeyRateLimits, type RateLimited, type RateLimitStatus } from "./KeyRateLimits.ts"
import { makeKeyUsage } from "./KeyUsage.ts"

/**
 * How long a resolved key is reused before the store is asked again. Revoking a key, or removing its user
 * from its workspace, takes effect at once in this process; in another process sharing the store, as soon as
 * the change feed tells it (PostgreSQL), else within this time.
 */
export const KEY_CACHE_TTL_MS = 5_000

/** An authenticated call: its principal, and what it left of the key's tightest rate limit, if it has any. */
export interface Admitted {
  readonly principal: Principal
  readonly rateLimit: RateLimitStatus | undefined
  /** Admitted from the snapshot while the store is unreachable: how old the key's store read is. */
  readonly snapshotAgeMs?: number | undefined
}

interface Resolved {
  readonly key: ApiKey
  /** When the presented secret stops working: the key's expiry, or for a replaced secret its transition's end. */
  readonly validUntilMs: number
  readonly replaced: boolean
  /** The answer for a key without limits, made once. */
  readonly admitted: Admitted
}

const knownKey = (key: ApiKey) => ({
  id: key.id,
  organisation_id: key.organisation_id,
  workspace_id: key.workspace_id,
  user_id: key.user_id,
  ...(key.workload === null ? {} : { workload: { issuer: key.workload.issuer, subject: key.workload.subject } })
})

const rejected = (message: string, key?: ApiKey, credential?: Unauthenticated["credential"]) =>
  Effect.fail(
    new Unauthenticated({
      message,
      ...(credential === undefined ? {} : { credential }),
      ...(key === undefined ? {} : { knownKey: knownKey(key) })
    })
  )

const invalid = () => rejected("Invalid API key.", undefined, "unrecognised")

/** Why a secret that was valid no longer is. */
const lapsed = ({ key, replaced }: Resolved) =>
  replaced
    ? rejected(
      `This API key's secret was replaced at ${key.rotated_at} and its transition ended at ` +
        `${key.transition_ends_at}; use the new secret.`,
      key
    )
    : rejected(`This API key expired at ${key.expires_at}; create a new key.`, key)

const millisOf = (iso: string | null) => iso === null ? Number.POSITIVE_INFINITY : Date.parse(iso)

const principalFor = (
  key: ApiKey,
  organisationRole: Principal["organisationRole"],
  membership: Parameters<typeof principalOf>[2]
) => principalOf({ ...key, scopes: key.scopes.filter(isScope) }, organisationRole, membership)

export const makeKeyResolution = Effect.gen(function*() {
  const store = yield* ApiKeyStore
  const crypto = yield* PlatformCrypto
  const users = yield* UserStore
  const members = yield* WorkspaceMemberStore
  const transaction = yield* StoreTransaction
  const feed = yield* ChangeFeed
  const countRequest = yield* makeKeyRateLimits
  const noteUse = yield* makeKeyUsage
  const outage = yield* StoreOutage

  // Resolutions are kept past their lifetime for as long as an outage may answer from them.
  const resolved = new TtlCache<string, Resolved>(cacheLifetimeMs(feed, KEY_CACHE_TTL_MS), 10_000, outage.snapshotMs)
  // Bumped by every invalidation: a resolution that read the store before one does not fill the cache, nor is
  // shared with a request that came after.
  let generation = 0
  const resolving = new SingleFlight<string, Resolved, Unauthenticated | StoreError>()
  const forgetHere = (predicate: (key: ApiKey) => boolean) => {
    generation++
    resolved.deleteWhere((entry) => predicate(entry.key))
  }

  const predicateOf = (change: Change): ((key: ApiKey) => boolean) | undefined => {
    switch (change._tag) {
      case "ApiKeyChanged":
        return (key) => key.id === change.keyId
      case "UserAccessChanged":
        return (key) => key.user_id === change.userId
      default:
        return undefined
    }
  }

  const onChange = (event: ChangeEvent) => {
    if (event._tag === "Resync") return forgetHere(() => true)
    const predicate = predicateOf(event)
    if (predicate !== undefined) forgetHere(predicate)
  }
  yield* feed.subscribe(onChange)
  yield* outage.onRecovery(onChange)

  /** Forgets what this process resolved of the change once the unit of work commits, and tells the others. */
  const forget = (change: Change) => {
    const predicate = predicateOf(change)!
    return Effect.andThen(transaction.afterCommit(Effect.sync(() => forgetHere(predicate))), feed.publish(change))
  }

  /**
   * The key as a principal, with its user's current roles. A key whose user no longer exists, or a
   * workspace/user key whose user is no longer a member of its workspace, does not authenticate: it
   * acts as that user, and that user may no longer act there.
   */
  const resolvePrincipal = Effect.fnUntraced(function*(key: ApiKey) {
    let organisationRole: Principal["organisationRole"] = null
    if (key.user_id !== null) {
      const user = yield* users.get(key.user_id)
      if (Option.isNone(user) || user.value.organisation_id !== key.organisation_id) {
        return yield* rejected("This API key's user no longer exists; use another key.")
      }
      organisationRole = user.value.role
    }
    const membership = key.workspace_id === null || key.user_id === null
      ? null
      : Option.getOrNull(Option.map(yield* members.get(key.workspace_id, key.user_id), (m) => m.role))
    const principal = principalFor(key, organisationRole, membership)
    if (principal === undefined) {
      return yield* rejected(
        `This API key's user is no longer a member of workspace '${key.workspace_id}'; ` +
          "the key works again only if they are added back."
      )
    }
    return principal
  })

  const resolveFromStore = Effect.fnUntraced(function*(digest: string, now: number) {
    const startedAt = generation
    const found = yield* store.findByDigest(digest)
    if (Option.isNone(found)) return yield* invalid()
    const { key, previousDigest } = found.value
    const replaced = !crypto.digestsEqual(found.value.digest, digest)
    if (replaced && (previousDigest === null || !crypto.digestsEqual(previousDigest, digest))) return yield* invalid()
    if (key.status === "revoked") return yield* rejected("This API key has been revoked; use another key.", key)
    const validUntilMs = Math.min(millisOf(key.expires_at), replaced ? millisOf(key.transition_ends_at) : Infinity)
    const entry: Resolved = {
      key,
      validUntilMs,
      replaced,
      admitted: { principal: yield* resolvePrincipal(key), rateLimit: undefined }
    }
    if (validUntilMs <= now) return yield* lapsed(entry)
    if (generation === startedAt) resolved.set(digest, entry, now)
    return entry
  })

  const admitResolved = (
    entry: Resolved,
    now: number
  ): Effect.Effect<Admitted, Unauthenticated | RateLimited | StoreError> => {
    if (entry.validUntilMs <= now) return lapsed(entry)
    noteUse(entry.key.id, now)
    if (entry.key.rate_limits.length === 0) return Effect.succeed(entry.admitted)
    return Effect.map(
      countRequest(entry.key.id, entry.key.rate_limits),
      (rateLimit) => ({ principal: entry.admitted.principal, rateLimit })
    )
  }

  /** During an outage, the key as the cache's snapshot holds it, with the age of its store read. */
  const admitFromSnapshot = (digest: string, now: number) => {
    const hit = outage.fromSnapshot(resolved, digest, now)
    if (hit === undefined) return undefined
    return Effect.map(
      admitResolved(hit.value, now),
      (admitted): Admitted => ({ ...admitted, snapshotAgeMs: hit.ageMs })
    )
  }

  // Every request runs this: a cached key without limits resolves synchronously, with no store access.
  const admit = (presented: Redacted.Redacted<string>) =>
    Effect.clockWith((clock): Effect.Effect<Admitted, Unauthenticated | RateLimited | StoreError> => {
      const candidate = Redacted.value(presented).trim()
      if (candidate.length === 0) return rejected("Missing API key.", undefined, "missing")
      if (!hasKeyShape(candidate)) return invalid()
      const digest = crypto.sha256Hex(candidate)
      const now = clock.currentTimeMillisUnsafe()
      if (outage.snapshotting()) {
        return admitFromSnapshot(digest, now) ??
          Effect.flatMap(resolveFromStore(digest, now), (entry) => admitResolved(entry, now))
      }
      const cached = resolved.get(digest, now)
      if (cached !== undefined) return admitResolved(cached, now)
      return outage.orSnapshot(
        Effect.flatMap(
          // A request that comes while another resolves the same key (a client's connections opening at once)
          // waits for that resolution.
          resolving.run(digest, generation, resolveFromStore(digest, now), Effect.succeed),
          (entry) => admitResolved(entry, now)
        ),
        () => admitFromSnapshot(digest, now)
      )
    })

  /**
   * A secret this process just issued (a new key, or a rotation's new secret), known at its first use once the
   * unit of work commits: admitted from the cache, with no read of the store. Rotating 100 keys, then using
   * their new secrets at once, was 100 reads in a row on PGlite's one thread, in front of every other request.
   * - Only on a store no other process writes (`soleWriter`: memory, PGlite), where every later change to the
   *   key goes through this process and forgets it. Where others write, a revocation they make between this
   *   commit and this entry could be missed for the cache's lifetime, so the first use reads as before.
   * - Only for a key that acts as no user (a service or admin key of no user): a user's key carries its user's
   *   current roles, which its first use reads.
   * Registered after the change's `forget`, it runs after it.
   */
  const learn = (key: ApiKey, digest: string) =>
    key.user_id !== null || feed.soleWriter !== true ? Effect.void : transaction.afterCommit(Effect.clockWith(
      (clock) =>
        Effect.sync(() => {
          const principal = principalFor(key, null, null)
          const now = clock.currentTimeMillisUnsafe()
          const validUntilMs = millisOf(key.expires_at)
          if (principal === undefined || key.status === "revoked" || validUntilMs <= now) return
          resolved.set(
            digest,
            { key, validUntilMs, replaced: false, admitted: { principal, rateLimit: undefined } },
            now
          )
        })
    ))

  return { admit, forget, learn }
})
