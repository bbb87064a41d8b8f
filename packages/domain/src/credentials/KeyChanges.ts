/**
 * Changing an existing key: rotating its secret (the old one keeps working for a transition) and updating
 * its name, description, scopes, expiry and rate limits. Both under the policy's no-escalation rules, and
 * both forget the key in every process's cache.
 */
import { Effect, Redacted } from "effect"
import { ensureKeyRotation, ensureKeyUpdate, KeyRotationActions } from "../access/KeyPolicy.ts"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import type { Change } from "../shared/ChangeFeed.ts"
import { Conflict, InvalidRequest, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import { checkName } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { refuseUnsupported } from "../shared/Unsupported.ts"
import { ApiKey, maskKey } from "./ApiKey.ts"
import { type RotateApiKey, UNSUPPORTED_KEY_FIELDS, type UpdateApiKey } from "./ApiKeyInputs.ts"
import { makeKeyWrites } from "./internal/keyWrites.ts"
import {
  checkAlertEmails,
  checkExpiry,
  checkRateLimits,
  checkRotationPolicy,
  checkScopes,
  checkTransitionPeriod,
  DEFAULT_TRANSITION_PERIOD_MS,
  KEY_DEFAULTS_WHY
} from "./KeyRules.ts"
import { checkUsageLimits } from "./UsageLimits.ts"

/** How long the current secret keeps working (`RotateApiKey`): 30 minutes when absent, 0 for not at all. */
export type RotateKeyInput = typeof RotateApiKey.Type

/** What an update changes (`UpdateApiKey`); absent fields stay as they are. */
export type UpdateKeyInput = typeof UpdateApiKey.Type

export interface KeyChangeServices {
  /** A new secret: its plaintext, digest and masked form. */
  readonly newSecret: () => { readonly plaintext: string; readonly digest: string }
  /** Forgets the change in this process's cache once it commits, and tells the other processes. */
  readonly forget: (change: Change) => Effect.Effect<void, StoreError>
  /** Knows a secret this process issued, once the change commits (KeyResolution.ts). */
  readonly learn: (key: ApiKey, digest: string) => Effect.Effect<void>
}

export const makeKeyChanges = ({ forget, learn, newSecret }: KeyChangeServices) =>
  Effect.gen(function*() {
    const store = yield* makeKeyWrites

    const rotate = Effect.fn("ApiKeys.rotate")(function*(principal: Principal, id: string, input: RotateKeyInput) {
      if (
        input.transition_period_ms !== undefined && input.key_transition_period_ms !== undefined &&
        input.transition_period_ms !== input.key_transition_period_ms
      ) {
        return yield* InvalidRequest.of(
          "transition_period_ms and key_transition_period_ms name one period; give one.",
          "key_transition_period_ms"
        )
      }
      const key = yield* requireRow(yield* store.get(id), "API key", id)
      // Asked for by either name, else the key's policy's, else 30 minutes.
      const asked = input.key_transition_period_ms ?? input.transition_period_ms
      const period = yield* checkTransitionPeriod(
        asked ?? key.rotation_policy?.key_transition_period_ms ?? DEFAULT_TRANSITION_PERIOD_MS,
        input.key_transition_period_ms === undefined ? "transition_period_ms" : "key_transition_period_ms"
      )
      const resource = { type: "API key", id }
      // A key the caller cannot see (an admin key, for a workspace key) answers not found, as reading it does.
      yield* ensureAllowed(principal, KeyRotationActions[key.type], Target.of(key), resource)
      // A new secret carries the key's powers: as creating the key, acting as its user, within the caller's lifetime.
      const rotating = yield* ensureKeyRotation(principal, key, yield* store.actingUser(key))
      if (key.status === "revoked") {
        return yield* new Conflict({
          message: "This API key is revoked; a revoked key cannot be rotated.",
          param: null
        })
      }
      const at = yield* nowIso
      const inTransition = new Conflict({
        message: `This API key's last rotation is in its transition until ${key.transition_ends_at}; ` +
          "rotate it again once that ends.",
        param: null
      })
      if (key.transition_ends_at !== null && key.transition_ends_at > at) return yield* inTransition
      const { digest, plaintext } = newSecret()
      const transitionEndsAt = new Date(Date.parse(at) + period).toISOString()
      const maskedKey = maskKey(plaintext)
      // The store decides again in the same statement: of two concurrent rotations, one wins.
      const rotated = yield* store.rotate(rotating, { id, digest, maskedKey, at, transitionEndsAt })
      if (!rotated) return yield* inTransition
      yield* forget({ _tag: "ApiKeyChanged", keyId: id })
      const rotatedKey = new ApiKey({
        ...key,
        masked_key: maskedKey,
        rotated_at: at,
        transition_ends_at: transitionEndsAt,
        last_updated_at: at
      })
      yield* learn(rotatedKey, digest)
      return { key: rotatedKey, plaintext: Redacted.make(plaintext, { label: "api-key" }) }
    })

    const update = Effect.fn("ApiKeys.update")(function*(principal: Principal, id: string, input: UpdateKeyInput) {
      const key = yield* requireRow(yield* store.get(id), "API key", id)
      yield* ensureAllowed(principal, "api_keys.update", Target.of(key), { type: "API key", id })
      if (key.status === "revoked") return yield* InvalidRequest.of("A revoked key cannot be changed.", null)
      const name = input.name?.trim()
      if (name !== undefined) yield* checkName(name)
      const scopes = input.scopes === undefined ? undefined : yield* checkScopes(input.scopes)
      const expiresAt = input.expires_at === undefined || input.expires_at === null
        ? input.expires_at
        : yield* checkExpiry(input.expires_at)
      if (input.rate_limits !== undefined) yield* checkRateLimits(input.rate_limits)
      yield* refuseUnsupported(input, UNSUPPORTED_KEY_FIELDS, KEY_DEFAULTS_WHY)
      if (input.reset_usage === true) {
        return yield* InvalidRequest.of(
          "reset_usage: this gateway counts no usage against usage_limits, so there is none to reset.",
          "reset_usage"
        )
      }
      const usageLimits = input.usage_limits == null ? input.usage_limits : yield* checkUsageLimits(input.usage_limits)
      const rotationPolicy = input.rotation_policy == null
        ? input.rotation_policy
        : yield* checkRotationPolicy(input.rotation_policy)
      const alertEmails = input.alert_emails === undefined ? undefined : yield* checkAlertEmails(input.alert_emails)
      const changed = new ApiKey({
        ...key,
        name: name ?? key.name,
        description: input.description === undefined ? key.description : input.description,
        scopes: scopes ?? key.scopes,
        expires_at: expiresAt === undefined ? key.expires_at : expiresAt,
        rate_limits: input.rate_limits ?? key.rate_limits,
        usage_limits: usageLimits === undefined ? key.usage_limits : usageLimits,
        rotation_policy: rotationPolicy === undefined ? key.rotation_policy : rotationPolicy,
        alert_emails: alertEmails ?? key.alert_emails,
        last_updated_at: yield* nowIso
      })
      const updating = yield* ensureKeyUpdate(principal, {
        key,
        changed,
        user: yield* store.actingUser(key),
        scopesChanged: scopes !== undefined,
        rateLimitsChanged: input.rate_limits !== undefined
      })
      yield* store.update(updating, changed)
      yield* forget({ _tag: "ApiKeyChanged", keyId: id })
      return changed
    })

    return { rotate, update }
  })
