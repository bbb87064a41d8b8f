/**
 * RFC 8693 token exchange for workloads: a JWT its platform gave it (a Kubernetes service-account token, a CI
 * job's OIDC token) for a short-lived credential, an API key of its trust policy's workspace with the policy's
 * scopes (or fewer, as asked), rate limits and lifetime, stored as a digest like every key.
 *
 * Which policy: those of the token's issuer, oldest first; the first whose keys verify the token's signature,
 * whose audience the token carries, and whose subject and claims it matches. Refusals are RFC 6749 §5.2 errors,
 * recorded in the audit log without the token; nothing is issued. The key is written by `ApiKeys.issue` inside
 * this audited use case without a policy grant: no key asks, the matched trust policy (written under the
 * policy by an owner or admin) is the authority, as the empty store is bootstrap's.
 */
import type { Redacted } from "effect"
import { Context, Effect, Layer, Result, Schema } from "effect"
import type { Scope } from "../access/Scopes.ts"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import type { AuditActor } from "../audit/AuditRecord.ts"
import { ApiKeys } from "../credentials/ApiKeys.ts"
import type { Conflict } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { matchesGlob } from "./SubjectPattern.ts"
import type { TrustPolicy } from "./TrustPolicy.ts"
import { keySourceOf } from "./TrustPolicyRules.ts"
import { TrustPolicyStore } from "./TrustPolicyStore.ts"
import type { TokenRejected } from "./WorkloadTokens.ts"
import { type VerifiedToken, WorkloadTokens } from "./WorkloadTokens.ts"

export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
export const JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt"
export const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
export const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"

/** The error codes of RFC 6749 §5.2 and RFC 8693 §2.2.2 this endpoint answers with. */
export const OAuthErrorCode = Schema.Literals([
  "invalid_request",
  "invalid_grant",
  "invalid_target",
  "unsupported_grant_type",
  "invalid_scope"
])
export type OAuthErrorCode = typeof OAuthErrorCode.Type

/** A refused exchange: `error` and `error_description` are what the workload is told. */
export class OAuthError extends Schema.TaggedError<OAuthError>()("OAuthError", {
  error: OAuthErrorCode,
  error_description: Schema.String
}) {
  override get message() {
    return this.error_description
  }
}

/** The form fields of a token request (RFC 8693 §2.1), as sent: absent ones undefined. */
export interface TokenRequest {
  readonly grant_type?: string | undefined
  readonly subject_token?: string | undefined
  readonly subject_token_type?: string | undefined
  readonly requested_token_type?: string | undefined
  readonly scope?: string | undefined
  readonly audience?: string | undefined
  readonly resource?: string | undefined
  readonly actor_token?: string | undefined
}

/** The answer of RFC 8693 §2.2.1, but its `token_type`: how the token is presented is the HTTP adapter's word. */
export interface IssuedWorkloadToken {
  readonly access_token: Redacted.Redacted<string>
  readonly issued_token_type: typeof ACCESS_TOKEN_TYPE
  readonly expires_in: number
  readonly scope: string
  /** The issued key's id, for the audit record and the caller's logs; not part of the RFC's answer. */
  readonly key_id: string
}

const refuse = (error: OAuthErrorCode, description: string) =>
  Effect.fail(new OAuthError({ error, error_description: description }))

/** The request as the audit log keeps it: never the token. */
const recordedBody = (request: TokenRequest) => ({
  grant_type: request.grant_type ?? null,
  subject_token_type: request.subject_token_type ?? null,
  requested_token_type: request.requested_token_type ?? null,
  scope: request.scope ?? null,
  audience: request.audience ?? null,
  resource: request.resource ?? null
})

/** Does the token's claim carry the policy's value: equal to it, or, for an array claim, holding it? */
const claimMatches = (actual: unknown, expected: string | number | boolean) =>
  Array.isArray(actual) ? actual.some((item) => item === expected) : actual === expected

const subjectMatches = (policy: TrustPolicy, subject: string) =>
  policy.subject !== null
    ? policy.subject === subject
    : policy.subject_pattern !== null && matchesGlob(policy.subject_pattern, subject)

/** The first verdict a policy's refusal gives, ranked: the most telling reason is the one the workload hears. */
const REJECTION_RANK: Record<TokenRejected["reason"], number> = {
  keys: 1,
  malformed: 2,
  issuer: 3,
  signature: 4,
  audience: 5,
  not_yet_valid: 6,
  expired: 7
}

/**
 * A `sub` this gateway can name the credential by and store: 1 to 1000 characters, no control characters (the
 * stores refuse U+0000, and a subject is shown in listings and records).
 */
const usableSubject = (subject: string) => {
  if (subject.length === 0 || subject.length > 1000) return false
  for (let i = 0; i < subject.length; i++) {
    const code = subject.charCodeAt(i)
    if (code < 0x20 || code === 0x7f) return false
  }
  return true
}

interface Matched {
  readonly policy: TrustPolicy
  readonly token: VerifiedToken
}

/** Why no policy matched, and the workload as far as its token was verified (for the refusal's record). */
interface Unmatched {
  readonly error: OAuthError
  readonly workload: AuditActor["workload"]
}

export class TokenExchange extends Context.Service<
  TokenExchange,
  {
    /** Exchanges the request's token for a credential, or refuses it (recorded either way). */
    readonly exchange: (
      request: TokenRequest
    ) => Effect.Effect<IssuedWorkloadToken, OAuthError | Conflict | StoreError>
  }
>()("@gateway-control/TokenExchange") {
  static readonly layer = Layer.effect(
    TokenExchange,
    Effect.gen(function*() {
      const policies = yield* TrustPolicyStore
      const tokens = yield* WorkloadTokens
      const apiKeys = yield* ApiKeys
      const useCases = yield* AuditedUseCase

      /** The request's own rules, before any token is looked at. */
      const checkRequest = Effect.fnUntraced(function*(request: TokenRequest) {
        if (request.grant_type === undefined || request.grant_type === "") {
          return yield* refuse("invalid_request", "grant_type is required.")
        }
        if (request.grant_type !== TOKEN_EXCHANGE_GRANT) {
          return yield* refuse("unsupported_grant_type", `Only the grant_type ${TOKEN_EXCHANGE_GRANT} is supported.`)
        }
        if (request.subject_token === undefined || request.subject_token === "") {
          return yield* refuse("invalid_request", "subject_token is required.")
        }
        if (request.subject_token_type !== JWT_TOKEN_TYPE && request.subject_token_type !== ID_TOKEN_TYPE) {
          return yield* refuse(
            "invalid_request",
            `subject_token_type must be ${JWT_TOKEN_TYPE} or ${ID_TOKEN_TYPE}.`
          )
        }
        if (request.requested_token_type !== undefined && request.requested_token_type !== ACCESS_TOKEN_TYPE) {
          return yield* refuse("invalid_request", `requested_token_type may only be ${ACCESS_TOKEN_TYPE}.`)
        }
        if (request.actor_token !== undefined) {
          return yield* refuse("invalid_request", "Delegation (actor_token) is not supported.")
        }
        return request.subject_token
      })

      /**
       * The first policy of the token's issuer that the token satisfies, or why none does. Each key source is
       * asked once per audience: policies that share keys and audience share one verification.
       */
      const match = (subjectToken: string): Effect.Effect<Matched, Unmatched | StoreError> =>
        Effect.gen(function*() {
          const unmatched = (error: OAuthErrorCode, description: string, workload?: AuditActor["workload"]) =>
            Effect.fail<Unmatched>({ error: new OAuthError({ error, error_description: description }), workload })
          const issuer = tokens.claimedIssuer(subjectToken)
          if (issuer === undefined) return yield* unmatched("invalid_grant", "subject_token is not a signed JWT.")
          const candidates = yield* policies.findByIssuer(issuer)
          if (candidates.length === 0) {
            return yield* unmatched("invalid_grant", "No trust policy accepts tokens of this issuer.")
          }
          const verdicts = new Map<string, Result.Result<VerifiedToken, TokenRejected>>()
          let rejection: TokenRejected | undefined
          let verified: VerifiedToken | undefined
          for (const policy of candidates) {
            const keys = keySourceOf(policy)
            const cacheKey = JSON.stringify([keys, policy.audience])
            let verdict = verdicts.get(cacheKey)
            if (verdict === undefined) {
              verdict = yield* Effect.result(tokens.verify(subjectToken, { issuer, audience: policy.audience, keys }))
              verdicts.set(cacheKey, verdict)
            }
            if (Result.isFailure(verdict)) {
              if (
                rejection === undefined || REJECTION_RANK[verdict.failure.reason] > REJECTION_RANK[rejection.reason]
              ) {
                rejection = verdict.failure
              }
              continue
            }
            const token = verdict.success
            if (!usableSubject(token.subject)) {
              return yield* unmatched("invalid_grant", "The token's sub is empty, too long or has control characters.")
            }
            verified = token
            if (!subjectMatches(policy, token.subject)) continue
            if (!Object.entries(policy.claims).every(([name, value]) => claimMatches(token.claims[name], value))) {
              continue
            }
            return { policy, token }
          }
          if (verified !== undefined) {
            const workload = { issuer: verified.issuer, subject: verified.subject }
            return yield* unmatched(
              "invalid_grant",
              "The token's subject and claims match no trust policy of its issuer and audience.",
              workload
            )
          }
          return yield* unmatched("invalid_grant", rejection?.message ?? "The token could not be verified.")
        })

      /** The scopes asked for (space-separated, RFC 6749 §3.3): the policy's when none, else a subset of them. */
      const narrowed = (policy: TrustPolicy, requested: string | undefined) => {
        const asked = (requested ?? "").split(" ").filter((scope) => scope !== "")
        if (asked.length === 0) return Effect.succeed(policy.scopes as ReadonlyArray<Scope>)
        const beyond = asked.filter((scope) => !policy.scopes.includes(scope))
        return beyond.length > 0
          ? refuse("invalid_scope", `The trust policy does not grant: ${beyond.join(" ")}.`)
          : Effect.succeed([...new Set(asked)] as ReadonlyArray<Scope>)
      }

      const issue = Effect.fnUntraced(function*(matched: Matched, scopes: ReadonlyArray<Scope>) {
        const { policy, token } = matched
        const now = yield* nowIso
        const expiresAt = new Date(Date.parse(now) + policy.max_ttl_seconds * 1000).toISOString()
        const issued = yield* apiKeys.issue({
          type: "workspace-service",
          name: `workload ${token.subject}`.slice(0, 255),
          description: `Issued by token exchange under the trust policy '${policy.name}'.`.slice(0, 1000),
          organisationId: policy.organisation_id,
          workspaceId: policy.workspace_id,
          userId: null,
          scopes,
          expiresAt,
          rateLimits: policy.rate_limits,
          workload: { trust_policy_id: policy.id, issuer: token.issuer, subject: token.subject }
        })
        return {
          access_token: issued.plaintext,
          issued_token_type: ACCESS_TOKEN_TYPE,
          expires_in: policy.max_ttl_seconds,
          scope: scopes.join(" "),
          key_id: issued.key.id
        } satisfies IssuedWorkloadToken
      })

      const stranger: AuditActor = { organisationId: null, keyId: null, userId: null }

      /** A refusal, recorded with the workload when its token was verified, then failed with. */
      const refused = (request: TokenRequest, error: OAuthError, workload?: AuditActor["workload"]) =>
        Effect.andThen(
          useCases.refused({
            useCase: "tokenExchange.exchange",
            actor: workload === undefined ? stranger : { ...stranger, workload },
            workspaceId: null,
            status: 400,
            body: recordedBody(request)
          }),
          Effect.fail(error)
        )

      const exchange = Effect.fn("TokenExchange.exchange")(function*(request: TokenRequest) {
        const checked = yield* Effect.result(checkRequest(request))
        if (Result.isFailure(checked)) return yield* refused(request, checked.failure)
        // Outside any unit of work: verifying may fetch the issuer's keys over the network.
        const matched = yield* Effect.result(match(checked.success))
        if (Result.isFailure(matched)) {
          const failure = matched.failure
          if (!("error" in failure)) return yield* Effect.fail(failure)
          return yield* refused(request, failure.error, failure.workload)
        }
        const { policy, token } = matched.success
        const workload = { issuer: token.issuer, subject: token.subject }
        const scopes = yield* Effect.result(narrowed(policy, request.scope))
        if (Result.isFailure(scopes)) return yield* refused(request, scopes.failure, workload)
        return yield* useCases.run(
          {
            useCase: "tokenExchange.exchange",
            actor: { organisationId: policy.organisation_id, keyId: null, userId: null, workload },
            resourceId: (issued) => issued.key_id,
            workspaceId: policy.workspace_id,
            body: recordedBody(request),
            successBody: (issued) => ({
              ...recordedBody(request),
              trust_policy_id: policy.id,
              scope: issued.scope,
              expires_in: issued.expires_in
            })
          },
          issue(matched.success, scopes.success)
        )
      })

      return TokenExchange.of({ exchange })
    })
  )
}
