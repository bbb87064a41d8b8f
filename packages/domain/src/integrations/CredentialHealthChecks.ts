/**
 * Credential health: an integration's credential is tried with a cheap authenticated call to its provider
 * (`GET {destination}/models`, for the OpenAI-compatible types), on demand (`test`, an audited use case of the
 * integration's managers) and in the background, like MCP integrations' health (McpHealth.ts): among processes
 * sharing a store, the one holding the `credential-health-checker` lease checks every active integration once per
 * `CREDENTIAL_HEALTH_INTERVAL_MS`. The key goes where every call of the integration goes (its destination, a
 * custom host checked and pinned), fetched from its secret reference when it has one (each use audited).
 *
 * | check                                   | status    | `status_message`           |
 * |-----------------------------------------|-----------|----------------------------|
 * | 2xx                                     | `active`  | null                       |
 * | 401/403 whose error says "expired"      | `expired` | the provider's error       |
 * | any other answer, or no call possible   | `failing` | the provider's error, or why |
 *
 * Each check writes when it ran (`checked_at`) and the last success and failure: readers see how fresh it is.
 */
import { Cause, Context, Effect, Layer, Metric, Option } from "effect"
import { ensureAllowed } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { makeCustomHostCheck } from "../fine-tuning/CustomHosts.ts"
import { FineTuningUpstream, ProviderRegistry, untrustedFineTuningUpstream } from "../fine-tuning/Providers.ts"
import { inBackground } from "../shared/BackgroundWork.ts"
import { type Forbidden, InvalidRequest, type NotFound } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import { LeaseStore } from "../shared/Leases.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { untrustedText } from "../shared/UntrustedText.ts"
import { CredentialHealth, CredentialHealthStore } from "./CredentialHealth.ts"
import { type Integration, OPENAI_COMPATIBLE } from "./Integration.ts"
import { integrationAccessTarget, Integrations } from "./Integrations.ts"
import { findIntegration, IntegrationStore } from "./IntegrationStore.ts"

export interface CredentialHealthSettingsShape {
  /** How often the background checker runs; 0 turns it off: `CREDENTIAL_HEALTH_INTERVAL_MS`. */
  readonly intervalMs: number
}

export const DEFAULT_CREDENTIAL_HEALTH_SETTINGS: CredentialHealthSettingsShape = { intervalMs: 300_000 }

export const CredentialHealthSettings = Context.Reference<CredentialHealthSettingsShape>(
  "@gateway-control/domain/CredentialHealthSettings",
  { defaultValue: () => DEFAULT_CREDENTIAL_HEALTH_SETTINGS }
)

/** What one check found: success, or the failure's words and whether the provider said the credential expired. */
export type ProbeOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly expired: boolean; readonly message: string }

/** Characters of a failure's message kept. */
const MAX_MESSAGE = 500
const messageText = untrustedText(MAX_MESSAGE)

/** The provider's own words in a refusal: OpenAI's `error.message`, else `message` or `detail`, else the text. */
const errorWords = (body: string): string => {
  try {
    const parsed: unknown = JSON.parse(body)
    if (parsed !== null && typeof parsed === "object") {
      const record = parsed as Record<string, unknown>
      const error = record.error
      if (error !== null && typeof error === "object") {
        const message = (error as Record<string, unknown>).message
        if (typeof message === "string") return message
      }
      if (typeof error === "string") return error
      for (const key of ["message", "detail"]) if (typeof record[key] === "string") return record[key] as string
    }
  } catch {
    // Not JSON: the text itself.
  }
  return body
}

/** The health after a check with `outcome` at `now`, given what was kept before. Pure. */
export const nextHealth = (
  integrationId: string,
  previous: Option.Option<CredentialHealth>,
  outcome: ProbeOutcome,
  now: string
): CredentialHealth => {
  const before = Option.getOrUndefined(previous)
  return new CredentialHealth({
    integration_id: integrationId,
    status: outcome.ok ? "active" : outcome.expired ? "expired" : "failing",
    status_message: outcome.ok ? null : outcome.message,
    checked_at: now,
    last_success_at: outcome.ok ? now : before?.last_success_at ?? null,
    last_failure_at: outcome.ok ? before?.last_failure_at ?? null : now
  })
}

/** Integrations whose credential a check can try: the OpenAI-compatible types (a models listing). */
export const isCheckable = (integration: Integration) => OPENAI_COMPATIBLE.has(integration.ai_provider_id)

/** One counter per status, its attribute given at its making (see OperationalMetrics.ts for why). */
const credentialChecks = (status: "active" | "failing" | "expired") =>
  Metric.counter("gateway_credential_health_checks_total", {
    description: "Checks of integrations' credentials, by the status they found (active, failing, expired).",
    incremental: true,
    attributes: { status }
  })
const countCheck = {
  active: Metric.update(credentialChecks("active"), 1),
  failing: Metric.update(credentialChecks("failing"), 1),
  expired: Metric.update(credentialChecks("expired"), 1)
}

/** One check of an integration's credential, and what it keeps. */
const makeCheck = Effect.gen(function*() {
  const integrations = yield* Integrations
  const registry = yield* ProviderRegistry
  const upstream = untrustedFineTuningUpstream(yield* FineTuningUpstream)
  const checkCustomHost = yield* makeCustomHostCheck
  const store = yield* CredentialHealthStore

  /** Tries the credential: what it found, never failing for the provider's or the credential's sake. */
  const probe = (integration: Integration): Effect.Effect<ProbeOutcome, StoreError> =>
    Effect.gen(function*() {
      const credential = yield* integrations.ownCredential(integration.id)
      const destination = credential.customHost === null
        ? { baseUrl: registry.baseUrls.get(integration.ai_provider_id)!, pinnedAddresses: undefined }
        : yield* checkCustomHost(credential.customHost, "configurations.custom_host")
      const answer = yield* upstream.send(
        { ...destination, apiKey: credential.apiKey, timeoutMs: registry.timeoutMs },
        { method: "GET", path: "/models", query: [], body: undefined }
      )
      if (answer.status >= 200 && answer.status <= 299) return { ok: true } satisfies ProbeOutcome
      const words = messageText(errorWords(answer.body))
      return {
        ok: false,
        expired: (answer.status === 401 || answer.status === 403) && /expired/i.test(words),
        message: messageText(`The provider answered ${answer.status}: ${words}`)
      } satisfies ProbeOutcome
    }).pipe(
      Effect.catchTags({
        InvalidRequest: (e) => Effect.succeed({ ok: false, expired: false, message: messageText(e.message) } as const),
        UpstreamUnreachable: (e) =>
          Effect.succeed({ ok: false, expired: false, message: messageText(e.message) } as const),
        UpstreamTimedOut: (e) =>
          Effect.succeed({ ok: false, expired: false, message: messageText(e.message) } as const),
        UpstreamInvalid: (e) => Effect.succeed({ ok: false, expired: false, message: messageText(e.message) } as const)
      })
    )

  /** Keeps what a check found; answers the health kept. */
  const keep = Effect.fnUntraced(function*(integrationId: string, outcome: ProbeOutcome) {
    const health = nextHealth(integrationId, yield* store.get(integrationId), outcome, yield* nowIso)
    yield* store.put(health)
    yield* countCheck[health.status]
    return health
  })

  return { probe, keep }
})

/** What a round did: integrations checked, and the checks that broke (a store write's defect, say). */
export interface CredentialHealthRound {
  readonly checked: number
  readonly broken: number
}

/** Integrations read per page of a round. */
const PAGE = 100
/** Checks running at once. */
const CONCURRENCY = 4

/** One round of checks over every active integration of a checkable type; one check breaking does not stop it. */
export const makeCredentialHealthRound = Effect.gen(function*() {
  const integrations = yield* IntegrationStore
  const { keep, probe } = yield* makeCheck

  const isolated = (integration: Integration) =>
    Effect.flatMap(probe(integration), (outcome) => keep(integration.id, outcome)).pipe(
      Effect.tap((health) =>
        health.status === "active" ? Effect.void : Effect.logInfo(`Integration credential is ${health.status}`).pipe(
          Effect.annotateLogs({ integration_id: integration.id, status_message: health.status_message })
        )
      ),
      Effect.as(false),
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.as(
          Effect.logWarning("Credential health check broke; the round goes on", Cause.pretty(cause)).pipe(
            Effect.annotateLogs({ integration_id: integration.id })
          ),
          true
        )
      )
    )

  return Effect.gen(function*() {
    let after: string | null = null
    let checked = 0
    let broken = 0
    while (true) {
      const page: ReadonlyArray<Integration> = yield* integrations.listActive(after, PAGE)
      const outcomes = yield* Effect.forEach(page.filter(isCheckable), isolated, { concurrency: CONCURRENCY })
      checked += outcomes.length
      broken += outcomes.filter((b) => b).length
      if (page.length < PAGE) return { checked, broken } satisfies CredentialHealthRound
      after = page[page.length - 1].id
    }
  })
})

/** The lease only one process at a time holds to check. */
export const CREDENTIAL_HEALTH_LEASE = "credential-health-checker"

/**
 * The checker: every interval, take or renew the lease and, holding it, run a round while renewing it. Runs until
 * interrupted, then gives the lease up. Does nothing when `CREDENTIAL_HEALTH_INTERVAL_MS` is 0.
 */
export const runCredentialHealthChecks = inBackground(Effect.gen(function*() {
  const { intervalMs } = yield* CredentialHealthSettings
  if (intervalMs <= 0) return
  const leases = yield* LeaseStore
  const holder = (yield* PlatformCrypto).uuid()
  const round = yield* makeCredentialHealthRound
  // A crashed checker is replaced within three intervals.
  const ttl = 3 * intervalMs

  const keepLease = Effect.gen(function*() {
    while (true) {
      yield* Effect.sleep(intervalMs)
      if (!(yield* leases.acquire(CREDENTIAL_HEALTH_LEASE, holder, ttl))) return
    }
  })

  const cycle = Effect.gen(function*() {
    if (yield* leases.acquire(CREDENTIAL_HEALTH_LEASE, holder, ttl)) {
      yield* Effect.raceFirst(Effect.asVoid(round), keepLease)
    }
  }).pipe(
    Effect.catchCause((cause) => Effect.logWarning("Credential health checks: a round failed", Cause.pretty(cause)))
  )

  return yield* Effect.forever(Effect.andThen(cycle, Effect.sleep(intervalMs))).pipe(
    Effect.ensuring(Effect.ignore(leases.release(CREDENTIAL_HEALTH_LEASE, holder)))
  )
}))

/** A test's outcome: the integration tested and the health it now reads with. */
export interface CredentialTest {
  readonly integration: Integration
  readonly health: CredentialHealth
}

export class CredentialHealthChecks extends Context.Service<
  CredentialHealthChecks,
  {
    /**
     * Tests integration `ref`'s credential now (audited `integrations.test`), for those who may change the
     * integration: the provider's refusal is an outcome (`failing`), not an error. A type no check can call is a 400.
     */
    readonly test: (
      principal: Principal,
      ref: string
    ) => Effect.Effect<CredentialTest, InvalidRequest | Forbidden | NotFound | StoreError>
    /** The health kept for an integration the caller has read; none before its first check. */
    readonly current: (integrationId: string) => Effect.Effect<Option.Option<CredentialHealth>, StoreError>
    /** The health kept for each of a page of integrations the caller has listed, in one read, by integration id. */
    readonly currentOf: (
      integrationIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, CredentialHealth>, StoreError>
  }
>()("@gateway-control/CredentialHealthChecks") {
  static readonly layer = Layer.effect(
    CredentialHealthChecks,
    Effect.gen(function*() {
      const raw = yield* IntegrationStore
      const store = yield* CredentialHealthStore
      const useCases = yield* AuditedUseCase
      const { keep, probe } = yield* makeCheck

      /** The integration `ref` (id or slug) names in the caller's organisation, for its managers. */
      const managed = Effect.fnUntraced(function*(principal: Principal, ref: string) {
        const { record } = yield* findIntegration(raw, principal.organisationId, ref)
        yield* ensureAllowed(
          principal,
          record.workspace_id === null ? "integrations.update.organisation" : "integrations.update.workspace",
          integrationAccessTarget(record),
          { type: "integration", id: ref }
        )
        if (!isCheckable(record)) {
          return yield* InvalidRequest.of(
            `Credential tests list the provider's models, for the OpenAI-compatible types (${
              [...OPENAI_COMPATIBLE].join(", ")
            }); '${record.ai_provider_id}' is not tested.`
          )
        }
        return record
      })

      interface Probed {
        readonly integration: Integration
        readonly outcome: ProbeOutcome
      }
      const test = (principal: Principal, ref: string) =>
        useCases.runSteps<
          Probed,
          CredentialTest,
          InvalidRequest | Forbidden | NotFound | StoreError,
          StoreError,
          never,
          never
        >(
          {
            useCase: "integrations.test",
            actor: principal,
            resourceId: ({ integration }) => integration.id,
            workspaceId: ({ integration }) => integration.workspace_id,
            requestedId: ref,
            body: null,
            successBody: ({ health }) => ({ status: health.status })
          },
          Effect.flatMap(
            managed(principal, ref),
            (integration) => Effect.map(probe(integration), (outcome) => ({ integration, outcome }))
          ),
          ({ integration, outcome }) =>
            Effect.map(keep(integration.id, outcome), (health) => ({ integration, health }) satisfies CredentialTest)
        ).pipe(Effect.withSpan("CredentialHealthChecks.test"))

      return CredentialHealthChecks.of({ test, current: store.get, currentOf: store.getMany })
    })
  )
}
