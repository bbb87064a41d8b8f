/**
 * The port that checks a workload's token: a JWT signed by its issuer. The adapter (the server's, on `jose`)
 * fetches and caches each issuer's keys through the gateway's outbound address rules; the domain decides which
 * trust policy a verified token matches and what it gets.
 */
import { Context, type Effect, Schema } from "effect"
import type { InvalidRequest } from "../shared/Errors.ts"
import type { JwkSet } from "./TrustPolicy.ts"

/** Where a policy's keys come from: given, at a URL, or at the URL the issuer's OIDC discovery document names. */
export type KeySource =
  | { readonly _tag: "Static"; readonly jwks: JwkSet }
  | { readonly _tag: "Remote"; readonly jwksUri: string }
  | { readonly _tag: "Discovery"; readonly issuer: string }

/** What a token must say, beyond a good signature by a key of `keys`. */
export interface TokenExpectations {
  readonly issuer: string
  readonly audience: string
  readonly keys: KeySource
}

/** A token whose signature, `iss`, `aud`, `exp` and `nbf` checked out. */
export interface VerifiedToken {
  readonly issuer: string
  readonly subject: string
  readonly claims: Readonly<Record<string, unknown>>
}

/** Why a token was not accepted; `message` is fit to show the workload (it says nothing of any policy). */
export class TokenRejected extends Schema.TaggedError<TokenRejected>()("TokenRejected", {
  reason: Schema.Literals(["malformed", "signature", "issuer", "audience", "expired", "not_yet_valid", "keys"]),
  message: Schema.String
}) {}

/** How far a token's `exp` and `nbf` may be off this gateway's clock. */
export const CLOCK_SKEW_SECONDS = 60

export class WorkloadTokens extends Context.Service<
  WorkloadTokens,
  {
    /** The `iss` a token claims, before anything is verified; undefined when it is no JWT. */
    readonly claimedIssuer: (token: string) => string | undefined
    readonly verify: (token: string, expected: TokenExpectations) => Effect.Effect<VerifiedToken, TokenRejected>
    /** Refuses a JWK set no key of which could verify a signature (`param` names the field). */
    readonly checkKeySet: (jwks: JwkSet, param: string) => Effect.Effect<void, InvalidRequest>
  }
>()("@gateway-control/WorkloadTokens") {}
