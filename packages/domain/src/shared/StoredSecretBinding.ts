/**
 * The one rule for every secret the gateway stores (a virtual key's provider key, a stored config's `api_key`,
 * an MCP integration's header values and its secret mappings): **a stored secret is bound to the destination
 * it was stored with**, the scheme, host and port of the URL it is sent to. An update that changes the
 * destination must supply the secrets again in the same request; one that would carry a stored secret to the
 * new destination is refused (400 naming the destination's field) and changes nothing.
 *
 * Refused rather than dropped, for every kind: a dropped credential would surface only later, as calls and
 * health checks failing at the new destination, while a refusal tells the client at once what to send. A
 * virtual key cannot drop its key anyway (it is nothing without one).
 *
 * Each kind describes its secrets once (`SecretBinding`), and its store's `update` is reachable only through
 * `secretBoundWrites`, which applies the rule before writing: a service has no path that updates stored
 * secrets without it, as `grantedWrites` leaves none without the policy.
 */
import { Effect } from "effect"
import { InvalidRequest } from "./Errors.ts"

/**
 * The destination a URL names: its origin, scheme, host and port (`https://api.example.com:8443`; a default
 * port is left out, so `https://a:443` and `https://a` are one destination). A text that is no URL is its own
 * destination, so that any change of it counts as a change. Pure.
 */
export const destinationOf = (url: string): string => {
  if (!URL.canParse(url)) return url
  const origin = new URL(url).origin
  return origin === "null" ? url : origin
}

/** How one kind of record holds stored secrets, and where it sends them. */
export interface SecretBinding<V> {
  /** The URL the record's secrets are sent to: its custom host, else its provider's base URL; its server's URL. */
  readonly destination: (value: V) => string
  /** The field of an update that changes the destination: refusals name it. */
  readonly destinationField: string
  /**
   * The record's stored secrets, by the field that holds them (`key`, `configurations.headers.X-Team`).
   * The values are only compared, never shown.
   */
  readonly secrets: (value: V) => ReadonlyMap<string, unknown>
}

/** An update as the rule sees it. */
export interface SecretUpdate<V> {
  /** The record as stored. */
  readonly current: V
  /** The record as the update would store it. */
  readonly updated: V
  /** The secret fields the request itself gives (in clear): these go wherever the request says. */
  readonly supplied: ReadonlyArray<string>
}

/**
 * The stored secrets the updated record would keep without the request giving them: the same field with the
 * same value as stored, not supplied by the request. Pure.
 */
export const carriedSecrets = <V>(binding: SecretBinding<V>, update: SecretUpdate<V>): ReadonlyArray<string> => {
  const stored = binding.secrets(update.current)
  const supplied = new Set(update.supplied)
  return [...binding.secrets(update.updated)].flatMap(([field, value]) =>
    !supplied.has(field) && stored.has(field) && stored.get(field) === value ? [field] : []
  )
}

/** The rule: the refusal of an update that would carry a stored secret to a new destination, else undefined. Pure. */
export const checkSecretBinding = <V>(
  binding: SecretBinding<V>,
  update: SecretUpdate<V>
): InvalidRequest | undefined => {
  const before = destinationOf(binding.destination(update.current))
  const after = destinationOf(binding.destination(update.updated))
  if (before === after) return undefined
  const carried = carriedSecrets(binding, update)
  if (carried.length === 0) return undefined
  return InvalidRequest.of(
    `A new ${binding.destinationField} needs the stored secrets it would carry (${carried.join(", ")}) supplied ` +
      "again in the same request: a stored secret is only sent to the destination (scheme, host and port) it " +
      "was stored with.",
    binding.destinationField
  )
}

/** An update method taking a grant `G` and the value `V` it writes. */
type UpdateOf<G, V, A, E, R> = (grant: G, value: V) => Effect.Effect<A, E, R>

/**
 * The store, its `update` taking a `SecretUpdate` (the record as stored and as updated, and what the request
 * supplied) and writing only what the rule allows: the one way services update records holding secrets.
 */
export const secretBoundWrites = <S extends object, G, V, A, E, R>(
  store: S & { readonly update: UpdateOf<G, V, A, E, R> },
  binding: SecretBinding<V>
): Omit<S, "update"> & { readonly update: UpdateOf<G, SecretUpdate<V>, A, E | InvalidRequest, R> } => ({
  ...store,
  update: (grant: G, update: SecretUpdate<V>) => {
    const refusal = checkSecretBinding(binding, update)
    return refusal === undefined ? store.update(grant, update.updated) : Effect.fail(refusal)
  }
})
