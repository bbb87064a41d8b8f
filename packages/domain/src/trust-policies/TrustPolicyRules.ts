/**
 * The checks on what a caller gives for a trust policy. Each fails with `InvalidRequest` naming the field (or
 * `UnknownScopes`); the scopes' ceiling (never more than the writer holds) is the policy's (KeyPolicy.ts).
 */
import { Effect } from "effect"
import { checkRateLimits, checkScopes } from "../credentials/KeyRules.ts"
import { InvalidRequest } from "../shared/Errors.ts"
import { checkName } from "../shared/Rules.ts"
import { subjectPatternProblem } from "./SubjectPattern.ts"
import { type CreateTrustPolicy, type JwkSet, MAX_WORKLOAD_TTL_SECONDS } from "./TrustPolicy.ts"
import type { KeySource } from "./WorkloadTokens.ts"

/** Hosts an http (not https) issuer or JWKS URL may name: this machine only, for tests and local issuers. */
const isLoopbackHost = (hostname: string) =>
  hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)

/**
 * An issuer or JWKS URL: https, or http to a loopback host; no credentials, no fragment (an issuer, no query
 * either: OIDC discovery appends to it).
 */
export const checkIssuerUrl = (text: string, param: string): Effect.Effect<string, InvalidRequest> => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return Effect.fail(InvalidRequest.of(`${param} must be an absolute https URL.`, param))
  }
  const plainLoopback = url.protocol === "http:" && isLoopbackHost(url.hostname)
  if (url.protocol !== "https:" && !plainLoopback) {
    return Effect.fail(InvalidRequest.of(`${param} must be an https URL (http only for a loopback host).`, param))
  }
  if (url.username !== "" || url.password !== "" || url.hash !== "" || (param === "issuer" && url.search !== "")) {
    return Effect.fail(InvalidRequest.of(`${param} must not carry credentials, a query or a fragment.`, param))
  }
  return Effect.succeed(text)
}

/** Members that only a private or symmetric key has: a JWK set given here holds public keys only. */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]
const PUBLIC_KEY_TYPES = new Set(["RSA", "EC", "OKP"])
const MAX_KEYS = 50

/** The shape of a JWK set: 1 to 50 public RSA, EC or OKP keys. */
export const checkJwkSetShape = (jwks: JwkSet): Effect.Effect<void, InvalidRequest> => {
  if (jwks.keys.length === 0 || jwks.keys.length > MAX_KEYS) {
    return Effect.fail(InvalidRequest.of(`jwks.keys must hold 1 to ${MAX_KEYS} keys.`, "jwks.keys"))
  }
  for (const [i, key] of jwks.keys.entries()) {
    const param = `jwks.keys[${i}]`
    if (typeof key.kty !== "string" || !PUBLIC_KEY_TYPES.has(key.kty)) {
      return Effect.fail(InvalidRequest.of(`${param}.kty must be RSA, EC or OKP: a public signing key.`, param))
    }
    const secret = PRIVATE_MEMBERS.find((member) => Object.hasOwn(key, member))
    if (secret !== undefined) {
      return Effect.fail(
        InvalidRequest.of(`${param} has the private member '${secret}': give the issuer's public keys only.`, param)
      )
    }
  }
  return Effect.void
}

const RESERVED_CLAIMS = new Set(["iss", "aud", "sub", "exp", "nbf", "iat", "jti"])
const MAX_CLAIMS = 20

/** A policy as given, checked and normalised; the JWK set's keys are checked by the verifier after this. */
export const checkTrustPolicy = Effect.fnUntraced(function*(input: CreateTrustPolicy) {
  const name = input.name.trim()
  yield* checkName(name)
  const issuer = yield* checkIssuerUrl(input.issuer, "issuer")
  const jwksUri = input.jwks_uri ?? null
  const jwks = input.jwks ?? null
  if (jwksUri !== null && jwks !== null) {
    return yield* InvalidRequest.of("Give jwks_uri or jwks, not both (neither: OIDC discovery at the issuer).", "jwks")
  }
  if (jwksUri !== null) yield* checkIssuerUrl(jwksUri, "jwks_uri")
  if (jwks !== null) yield* checkJwkSetShape(jwks)
  const audience = input.audience.trim()
  if (audience.length === 0 || audience.length > 1000) {
    return yield* InvalidRequest.of("audience must be 1 to 1000 characters.", "audience")
  }
  const subject = input.subject ?? null
  const subjectPattern = input.subject_pattern ?? null
  if ((subject === null) === (subjectPattern === null)) {
    return yield* InvalidRequest.of(
      "Give exactly one of subject (the token's sub, exactly) and subject_pattern (a glob with *).",
      subject === null ? "subject" : "subject_pattern"
    )
  }
  if (subject !== null && (subject.length === 0 || subject.length > 1000)) {
    return yield* InvalidRequest.of("subject must be 1 to 1000 characters.", "subject")
  }
  if (subjectPattern !== null) {
    const problem = subjectPatternProblem(subjectPattern)
    if (problem !== undefined) return yield* InvalidRequest.of(problem, "subject_pattern")
  }
  const claims = input.claims ?? {}
  const names = Object.keys(claims)
  if (names.length > MAX_CLAIMS) return yield* InvalidRequest.of(`claims may name at most ${MAX_CLAIMS}.`, "claims")
  const reserved = names.find((claim) => RESERVED_CLAIMS.has(claim))
  if (reserved !== undefined) {
    return yield* InvalidRequest.of(
      `claims.${reserved}: iss, aud and sub have fields of their own, and exp, nbf, iat and jti are checked anyway.`,
      `claims.${reserved}`
    )
  }
  const scopes = yield* checkScopes(input.scopes)
  const rateLimits = input.rate_limits ?? []
  yield* checkRateLimits(rateLimits)
  if (
    !Number.isSafeInteger(input.max_ttl_seconds) || input.max_ttl_seconds < 1 ||
    input.max_ttl_seconds > MAX_WORKLOAD_TTL_SECONDS
  ) {
    return yield* InvalidRequest.of(
      `max_ttl_seconds must be a whole number of seconds from 1 to ${MAX_WORKLOAD_TTL_SECONDS}.`,
      "max_ttl_seconds"
    )
  }
  return {
    name,
    issuer,
    jwks_uri: jwksUri,
    jwks,
    audience,
    subject,
    subject_pattern: subjectPattern,
    claims,
    scopes,
    rate_limits: rateLimits,
    max_ttl_seconds: input.max_ttl_seconds,
    workspace_id: input.workspace_id
  }
})

/** Where a policy's keys come from. */
export const keySourceOf = (policy: {
  readonly issuer: string
  readonly jwks_uri: string | null
  readonly jwks: JwkSet | null
}): KeySource =>
  policy.jwks !== null
    ? { _tag: "Static", jwks: policy.jwks }
    : policy.jwks_uri !== null
    ? { _tag: "Remote", jwksUri: policy.jwks_uri }
    : { _tag: "Discovery", issuer: policy.issuer }
