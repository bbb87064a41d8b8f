/**
 * The domain's `OidcClient` on openid-client (v6): discovery from the issuer, the authorization URL with PKCE
 * (S256), `state` and `nonce`, the code exchange, and the ID token's validation (signature against the issuer's
 * JWKS, `iss`, `aud`, `exp`, `iat`, `nonce`), all by the library. The userinfo endpoint fills claims the ID
 * token lacks (`email`, `email_verified`, groups), checked against the token's subject. An http issuer is
 * allowed for a loopback host only (the domain's rule), which is what local test providers use.
 */
import { OidcClient, type OidcConnection, OidcFailure } from "@gateway-control/domain"
import { Effect, Layer, Redacted } from "effect"
import * as client from "openid-client"

/** How long a discovered configuration is reused before the issuer is asked again. */
const DISCOVERY_TTL_MS = 10 * 60 * 1000

const isLoopback = (url: URL) =>
  url.hostname === "localhost" || url.hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(url.hostname)

/**
 * The most precise words of a failure: openid-client wraps oauth4webapi's error, whose message names the claim
 * at fault (`unexpected ID Token "nonce" claim value`, `"exp" claim timestamp check failed`).
 */
const innermost = (error: Error): Error => {
  let current = error
  for (let depth = 0; depth < 3 && current.cause instanceof Error; depth++) current = current.cause
  return current
}

/** Words for the person and the log: the library's message, never a token or a secret. */
const failureOf = (what: string) => (cause: unknown) =>
  new OidcFailure({ message: `${what}: ${cause instanceof Error ? innermost(cause).message : String(cause)}` })

export const makeOpenIdClient = () => {
  const discovered = new Map<string, { readonly at: number; readonly config: Promise<client.Configuration> }>()

  const configurationOf = (connection: OidcConnection) => {
    const secret = Redacted.value(connection.clientSecret)
    const key = JSON.stringify([connection.issuer, connection.clientId, secret])
    const cached = discovered.get(key)
    if (cached !== undefined && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.config
    const issuer = new URL(connection.issuer)
    const config = client.discovery(
      issuer,
      connection.clientId,
      { redirect_uris: [connection.redirectUri], response_types: ["code"] },
      client.ClientSecretBasic(secret),
      isLoopback(issuer) && issuer.protocol === "http:" ? { execute: [client.allowInsecureRequests] } : undefined
    )
    discovered.set(key, { at: Date.now(), config })
    // A failed discovery is not kept: the next sign-in asks again.
    config.catch(() => discovered.delete(key))
    return config
  }

  const discover = (connection: OidcConnection) =>
    Effect.tryPromise({
      try: () => configurationOf(connection),
      catch: failureOf(`Discovery at ${connection.issuer} failed`)
    })

  return OidcClient.of({
    begin: (connection) =>
      Effect.gen(function*() {
        const config = yield* discover(connection)
        const codeVerifier = client.randomPKCECodeVerifier()
        const state = client.randomState()
        const nonce = client.randomNonce()
        const challenge = yield* Effect.tryPromise({
          try: () => client.calculatePKCECodeChallenge(codeVerifier),
          catch: failureOf("PKCE")
        })
        const url = client.buildAuthorizationUrl(config, {
          redirect_uri: connection.redirectUri,
          scope: "openid email profile",
          code_challenge: challenge,
          code_challenge_method: "S256",
          state,
          nonce
        })
        return { url: url.href, state, nonce, codeVerifier }
      }),
    finish: (connection, search, expected) =>
      Effect.gen(function*() {
        const config = yield* discover(connection)
        const callback = new URL(connection.redirectUri)
        callback.search = search
        const tokens = yield* Effect.tryPromise({
          try: () =>
            client.authorizationCodeGrant(config, callback, {
              pkceCodeVerifier: expected.codeVerifier,
              expectedState: expected.state,
              expectedNonce: expected.nonce,
              idTokenExpected: true
            }),
          catch: failureOf("The code exchange or its ID token was refused")
        })
        const claims = tokens.claims()
        if (claims === undefined) return yield* new OidcFailure({ message: "The provider answered no ID token." })
        const userinfo = yield* Effect.tryPromise({
          try: () => client.fetchUserInfo(config, tokens.access_token, claims.sub),
          catch: failureOf("The userinfo endpoint's answer was refused")
        })
        const merged: Record<string, unknown> = { ...userinfo, ...claims }
        return merged
      })
  })
}

/** The `OidcClient` port on openid-client. */
export const layerOpenIdClient = Layer.sync(OidcClient, makeOpenIdClient)
