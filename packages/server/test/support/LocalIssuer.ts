/**
 * A token issuer on 127.0.0.1, as a Kubernetes API server or a CI provider is one: an OIDC discovery document,
 * a JWKS it serves (counting the fetches), and keys the test signs workload tokens with and rotates.
 */
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose"
import { createServer, type Server } from "node:http"

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"]

interface SigningKey {
  readonly kid: string
  readonly privateKey: PrivateKey
  readonly jwk: Record<string, unknown>
}

export interface LocalIssuer {
  readonly issuer: string
  readonly jwksUri: string
  /** Requests for the JWKS so far. */
  readonly jwksFetches: () => number
  /** Requests for the discovery document so far. */
  readonly discoveryFetches: () => number
  /** A token signed with the current key: `sub`, `aud` and a 5-minute `exp` unless `claims` says otherwise. */
  readonly mint: (claims: JWTPayload & { readonly sub?: string }, options?: { readonly key?: SigningKey }) => Promise<
    string
  >
  /** Replaces the served key by a new one (a new `kid`); tokens are signed with it from then on. */
  readonly rotate: () => Promise<void>
  /** A key the issuer never published, to sign forged tokens with (same `kid` as the current one). */
  readonly strangerKey: () => Promise<SigningKey>
  readonly close: () => Promise<void>
}

let counter = 0
const newKey = async (kid = `key-${++counter}`): Promise<SigningKey> => {
  const { privateKey, publicKey } = await generateKeyPair("RS256")
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } }
}

export const startLocalIssuer = async (audience: string): Promise<LocalIssuer> => {
  let current = await newKey()
  let jwks = 0
  let discovery = 0
  let base = ""
  const server: Server = createServer((request, response) => {
    if (request.url === "/jwks") {
      jwks++
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ keys: [current.jwk] }))
    } else if (request.url === "/.well-known/openid-configuration") {
      discovery++
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks` }))
    } else {
      response.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("expected a TCP address")
  base = `http://127.0.0.1:${address.port}`
  return {
    issuer: base,
    jwksUri: `${base}/jwks`,
    jwksFetches: () => jwks,
    discoveryFetches: () => discovery,
    mint: (claims, options = {}) => {
      const key = options.key ?? current
      const { aud, exp, iss, nbf, sub, ...rest } = claims
      const jwt = new SignJWT(rest).setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "JWT" })
        .setIssuer(iss ?? base).setAudience(aud ?? audience).setSubject(sub ?? "system:serviceaccount:ci:builder")
        .setIssuedAt().setExpirationTime(exp ?? "5m")
      if (nbf !== undefined) jwt.setNotBefore(nbf)
      return jwt.sign(key.privateKey)
    },
    rotate: async () => {
      current = await newKey()
    },
    strangerKey: () => newKey(current.kid),
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
