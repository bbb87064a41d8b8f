/**
 * Workload tokens on `jose`: signatures checked against the issuer's JWKS, then `iss`, `aud`, `exp` and `nbf`
 * with a bounded clock skew (`CLOCK_SKEW_SECONDS`).
 *
 * Remote key sets are jose's `createRemoteJWKSet`, one per JWKS URL, kept for the process: it fetches once,
 * reuses the keys, and on a token whose `kid` it does not know fetches again, at most once per cooldown
 * (`cooldownMs`), so a key rotated at the issuer is fetched once, and tokens naming unknown keys cannot make the
 * gateway hammer the issuer. Every fetch (and OIDC discovery's) goes through the gateway's outbound rules: the
 * address guard of custom hosts and MCP servers (a host that resolves to a loopback or private address is
 * refused unless `TRUSTED_CUSTOM_HOSTS` lists it), on a connection pinned to the checked addresses, no
 * redirects, a timeout and a size bound.
 */
import { McpFetch } from "@gateway-control/adapters-mcp"
import {
  checkIssuerUrl,
  CLOCK_SKEW_SECONDS,
  InvalidRequest,
  type JwkSet,
  type KeySource,
  makeAddressGuard,
  TokenRejected,
  WorkloadTokens
} from "@gateway-control/domain"
import { Clock, Effect, Layer } from "effect"
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  type FetchImplementation,
  importJWK,
  type JWK,
  jwtVerify,
  type JWTVerifyGetKey
} from "jose"

export interface WorkloadTokenOptions {
  /** The least time between two fetches of one key set on unknown `kid`s: 30 s unless given. */
  readonly cooldownMs?: number | undefined
  /** How long fetched keys (and a discovery document) are used before they are fetched again: 10 minutes. */
  readonly cacheMaxAgeMs?: number | undefined
  /** How long one fetch may take: 5 s. */
  readonly timeoutMs?: number | undefined
}

/** Signature algorithms accepted: asymmetric ones only (a shared secret would be a stored secret). */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"]

/** The largest key set or discovery document read. */
const MAX_DOCUMENT_BYTES = 256 * 1024

/** The algorithm to import a JWK with when it names none. */
const algorithmOf = (jwk: Record<string, unknown>): string | undefined => {
  if (typeof jwk.alg === "string") return jwk.alg
  switch (jwk.kty) {
    case "RSA":
      return "RS256"
    case "EC":
      return jwk.crv === "P-384" ? "ES384" : jwk.crv === "P-521" ? "ES512" : "ES256"
    case "OKP":
      return "EdDSA"
  }
  return undefined
}

const rejected = (reason: TokenRejected["reason"], message: string) => new TokenRejected({ reason, message })

/** A jose failure as the domain's reason; anything unknown is the keys' (fetch, timeout, bad JWKS). */
const rejectionOf = (error: unknown): TokenRejected => {
  const code = typeof error === "object" && error !== null ? Reflect.get(error, "code") : undefined
  const claim = typeof error === "object" && error !== null ? Reflect.get(error, "claim") : undefined
  switch (code) {
    case "ERR_JWT_EXPIRED":
      return rejected("expired", "The token has expired.")
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      if (claim === "aud") return rejected("audience", "The token's audience is not one a trust policy requires.")
      if (claim === "iss") return rejected("issuer", "The token's issuer does not match.")
      if (claim === "nbf") return rejected("not_yet_valid", "The token is not valid yet (nbf).")
      return rejected("malformed", `The token's ${String(claim)} claim is missing or invalid.`)
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return rejected("signature", "The token's signature does not verify with the issuer's keys.")
    case "ERR_JWKS_NO_MATCHING_KEY":
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return rejected("signature", "No key of the issuer matches the token's signing key (kid, alg).")
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
    case "ERR_JOSE_ALG_NOT_ALLOWED":
    case "ERR_JOSE_NOT_SUPPORTED":
      return rejected("malformed", "The token is not a JWT signed with an asymmetric algorithm this gateway accepts.")
  }
  return rejected("keys", "The issuer's keys could not be fetched; try again later.")
}

export const layerWorkloadTokens = (options: WorkloadTokenOptions = {}) =>
  Layer.effect(
    WorkloadTokens,
    Effect.gen(function*() {
      const guard = yield* makeAddressGuard
      const fetches = yield* McpFetch
      const context = yield* Effect.context<never>()
      const run = Effect.runPromiseWith(context)
      const cooldownMs = options.cooldownMs ?? 30_000
      const cacheMaxAgeMs = options.cacheMaxAgeMs ?? 600_000
      const timeoutMs = options.timeoutMs ?? 5_000

      /**
       * A GET through the outbound rules; the answer's body read whole (bounded) before the connection's agent
       * closes, and handed back as a Response of its own.
       */
      const guardedGet = (url: string, signal?: AbortSignal): Promise<Response> =>
        run(Effect.scoped(Effect.gen(function*() {
          const pinned = yield* guard(new URL(url), "The issuer's key URL", "jwks_uri")
          const fetch = yield* fetches.fetchFor(pinned)
          return yield* Effect.promise(async () => {
            const answer = await fetch(url, {
              method: "GET",
              headers: { accept: "application/json" },
              redirect: "manual",
              signal: signal ?? AbortSignal.timeout(timeoutMs)
            })
            const body = await answer.arrayBuffer()
            if (body.byteLength > MAX_DOCUMENT_BYTES) throw new Error(`${url} answered more than 256 KiB`)
            return new Response(body, { status: answer.status, headers: answer.headers })
          })
        })))

      const joseFetch: FetchImplementation = (url, init) => guardedGet(url, init.signal)

      const remoteSets = new Map<string, JWTVerifyGetKey>()
      const remoteSet = (jwksUri: string) => {
        let set = remoteSets.get(jwksUri)
        if (set === undefined) {
          set = createRemoteJWKSet(new URL(jwksUri), {
            cooldownDuration: cooldownMs,
            cacheMaxAge: cacheMaxAgeMs,
            timeoutDuration: timeoutMs,
            [customFetch]: joseFetch
          })
          remoteSets.set(jwksUri, set)
        }
        return set
      }

      const staticSets = new Map<string, JWTVerifyGetKey>()
      const staticSet = (jwks: JwkSet) => {
        const key = JSON.stringify(jwks)
        let set = staticSets.get(key)
        if (set === undefined) {
          // Policies are few; a bound keeps a stream of replaced ones from growing the map for ever.
          if (staticSets.size > 1_000) staticSets.clear()
          set = createLocalJWKSet({ keys: jwks.keys as Array<JWK> })
          staticSets.set(key, set)
        }
        return set
      }

      /** The JWKS URL an issuer's OIDC discovery document names, kept like its keys. */
      const discovered = new Map<string, { readonly jwksUri: string; readonly at: number }>()
      const discover = async (issuer: string, now: number): Promise<string> => {
        const known = discovered.get(issuer)
        if (known !== undefined && now - known.at < cacheMaxAgeMs) return known.jwksUri
        const answer = await guardedGet(`${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`)
        if (answer.status !== 200) throw new Error(`discovery answered ${answer.status}`)
        const document: unknown = await answer.json()
        const jwksUri = typeof document === "object" && document !== null
          ? Reflect.get(document, "jwks_uri")
          : undefined
        if (typeof jwksUri !== "string") throw new Error("the discovery document names no jwks_uri")
        await run(checkIssuerUrl(jwksUri, "jwks_uri"))
        discovered.set(issuer, { jwksUri, at: now })
        return jwksUri
      }

      const keysOf = async (source: KeySource, now: number): Promise<JWTVerifyGetKey> => {
        switch (source._tag) {
          case "Static":
            return staticSet(source.jwks)
          case "Remote":
            return remoteSet(source.jwksUri)
          case "Discovery":
            return remoteSet(await discover(source.issuer, now))
        }
      }

      return WorkloadTokens.of({
        claimedIssuer: (token) => {
          try {
            const { iss } = decodeJwt(token)
            return typeof iss === "string" ? iss : undefined
          } catch {
            return undefined
          }
        },
        verify: (token, expected) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.tryPromise({
              try: async () => {
                const keys = await keysOf(expected.keys, now)
                const { payload } = await jwtVerify(token, keys, {
                  issuer: expected.issuer,
                  audience: expected.audience,
                  algorithms: ALGORITHMS,
                  clockTolerance: CLOCK_SKEW_SECONDS,
                  currentDate: new Date(now),
                  requiredClaims: ["exp", "sub"]
                })
                return { issuer: expected.issuer, subject: String(payload.sub), claims: payload }
              },
              catch: rejectionOf
            })),
        checkKeySet: (jwks, param) =>
          Effect.forEach(jwks.keys, (jwk, i) =>
            Effect.tryPromise({
              try: () => importJWK(jwk as JWK, algorithmOf(jwk)),
              catch: (error) =>
                InvalidRequest.of(
                  `${param}.keys[${i}] is not a usable public key: ${
                    error instanceof Error ? error.message : "invalid"
                  }.`,
                  `${param}.keys[${i}]`
                )
            }), { discard: true })
      })
    })
  )
