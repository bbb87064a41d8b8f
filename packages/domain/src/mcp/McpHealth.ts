/**
 * The health of MCP integrations. A background checker pings every integration that is not archived (a fresh
 * session: `initialize`, then `ping`) once per `MCP_HEALTH_INTERVAL_MS`:
 *
 * | status      | check     | becomes                                                            |
 * |-------------|-----------|--------------------------------------------------------------------|
 * | `active`    | succeeds  | `active`, failures reset to 0                                      |
 * | `active`    | fails     | `active` with one more failure; `unhealthy` at `MCP_UNHEALTHY_AFTER` |
 * | `unhealthy` | fails     | `unhealthy`, its message the last failure's (no write if unchanged)  |
 * | `unhealthy` | succeeds  | `active`                                                           |
 * | `archived`  | (none)    | `archived`: not checked                                            |
 *
 * Among processes sharing a store, the one holding the `mcp-health-checker` lease checks; the others wait,
 * and take over once a crashed checker's lease expires.
 */
import { Array as Arr, Cause, Clock, Effect } from "effect"
import { inBackground } from "../shared/BackgroundWork.ts"
import { nowIso } from "../shared/internal/time.ts"
import { LeaseStore } from "../shared/Leases.ts"
import { countMcpHealthCheck } from "../shared/OperationalMetrics.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { type McpIntegration, McpIntegrationStore, type StatusChange } from "./Mcp.ts"
import { McpSettings, McpTimedOut, upstreamConnections } from "./McpConnections.ts"
import { makeEndpointOf } from "./McpEndpoints.ts"

/**
 * The status change one check makes, `failure` being its error (undefined when it succeeded); undefined
 * when nothing changes. Pure.
 */
export const nextStatus = (
  integration: McpIntegration,
  failure: string | undefined,
  unhealthyAfter: number,
  now: string
): StatusChange | undefined => {
  if (integration.status === "archived") return undefined
  if (failure === undefined) {
    if (integration.status === "active" && integration.consecutive_failures === 0) return undefined
    return {
      status: "active",
      status_message: null,
      status_changed_at: integration.status === "unhealthy" ? now : integration.status_changed_at,
      consecutive_failures: 0
    }
  }
  // An unhealthy integration failing as before changes nothing a reader acts on: its count stops there, so a
  // store full of unreachable servers costs one write each when they turn unhealthy, not one every round
  // (each a write on the request path's thread with PGlite).
  if (integration.status === "unhealthy" && integration.status_message === failure) return undefined
  const failures = integration.consecutive_failures + 1
  const unhealthy = integration.status === "unhealthy" || failures >= unhealthyAfter
  return {
    status: unhealthy ? "unhealthy" : "active",
    status_message: unhealthy ? failure : null,
    status_changed_at: unhealthy && integration.status !== "unhealthy" ? now : integration.status_changed_at,
    consecutive_failures: failures
  }
}

/**
 * Integrations read per page of a round. Each page is one background statement on PGlite's one thread: 100 rows
 * took ~7 ms there, in front of any request that came meanwhile; 20 take ~1.5, one page a second at the pace below.
 */
const PAGE = 20
/**
 * Status changes written in one statement. With PGlite a statement holds the thread that serves requests: one
 * change took ~2.4 ms there in a bench round, a page's 20 in one statement ~7 ms (renders queued behind it), five
 * about what one did. The page's changes are written when its checks are done.
 */
const WRITE_BATCH = 5
/** Checks running at once. */
const CONCURRENCY = 8
/**
 * The least time between two checks' starts: a hundredth of the interval, at most 50 ms (20 checks a second).
 * A round's status writes then come one at a time, not in bursts: with PGlite each write runs on the thread
 * that serves requests (~1 ms), and 1,000 unreachable integrations checked at once stalled renders for tens of
 * milliseconds. A round of more integrations than the pace allows in one interval takes longer; the next
 * starts an interval after it ends.
 */
const spacingOf = (intervalMs: number) => Math.min(50, intervalMs / 100)

/** What a round did: integrations checked, and among them the checks that failed to run to their end. */
export interface HealthRound {
  readonly checked: number
  /** Checks that broke (a store write's defect, say): logged and counted, and the round went on. */
  readonly broken: number
}

/** What an isolated step that broke answers (it was logged). */
const BROKE = Symbol("broke")

/** A check's status change, to be written with its page's. */
interface Checked {
  readonly integration: McpIntegration
  readonly change: StatusChange
}

/**
 * One round of checks over every integration in use; one check breaking does not stop the others. The status
 * changes of a page's checks are written together once the page is checked (`setStatuses`), a few to a
 * statement rather than one a check: with PGlite those statements ran on the thread that serves requests 20
 * times a second while a store's integrations were new (each failure counted until they turned unhealthy).
 */
export const makeHealthRound = Effect.gen(function*() {
  const integrations = yield* McpIntegrationStore
  const connections = yield* upstreamConnections
  const endpointOf = yield* makeEndpointOf

  /** Checks one integration; answers the status change it makes, if any. */
  const check = Effect.fnUntraced(function*(integration: McpIntegration) {
    const settings = yield* McpSettings
    // The address check resolves a name first; the whole check gets the call's time and that much again.
    const outcome = yield* endpointOf(integration).pipe(
      Effect.flatMap(connections.probe),
      Effect.timeoutOrElse({
        duration: 2 * settings.timeoutMs,
        orElse: () => Effect.fail(new McpTimedOut({ timeoutMs: 2 * settings.timeoutMs }))
      }),
      Effect.result
    )
    const failure = outcome._tag === "Success" ? undefined : outcome.failure.message
    yield* failure === undefined ? countMcpHealthCheck.ok : countMcpHealthCheck.failed
    yield* Effect.logDebug("MCP health check").pipe(
      Effect.annotateLogs({ integration_id: integration.id, ok: failure === undefined })
    )
    const change = nextStatus(integration, failure, settings.unhealthyAfter, yield* nowIso)
    return change === undefined ? undefined : ({ integration, change } satisfies Checked)
  })

  const logWritten = ({ change, integration }: Checked) =>
    change.status === integration.status ? Effect.void : Effect.logInfo(`MCP integration is ${change.status}`).pipe(
      Effect.annotateLogs({ integration_id: integration.id, status_message: change.status_message })
    )

  /**
   * Runs `effect` so that whatever goes wrong in it (an unstorable write, a lost database, a bug) is logged and
   * answered as `BROKE`: before, one integration's failed status write aborted the round, and every
   * integration after it, whoever's, went unchecked round after round. Interruption (the round stopping) still
   * propagates.
   */
  const isolated = <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    what: string,
    integrationId?: string
  ): Effect.Effect<A | typeof BROKE, E, R> =>
    Effect.catchCause(effect, (cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.as(
        Effect.logWarning(what, Cause.pretty(cause)).pipe(
          Effect.annotateLogs(integrationId === undefined ? {} : { integration_id: integrationId })
        ),
        BROKE
      ))

  /**
   * Writes a few changes at once; when that write fails, each on its own, so that one change the store cannot
   * take (text it refuses, say) breaks its own check only. Answers how many checks broke.
   */
  const writeSome = Effect.fnUntraced(function*(checked: ReadonlyArray<Checked>) {
    const written = yield* isolated(
      integrations.setStatuses(checked.map(({ change, integration }) => ({ id: integration.id, change }))),
      "MCP health checks: a status write of several failed; writing its changes one at a time"
    )
    if (written !== BROKE) {
      yield* Effect.forEach(checked.filter((c) => written.has(c.integration.id)), logWritten, { discard: true })
      return 0
    }
    const one = yield* Effect.forEach(checked, (c) =>
      isolated(
        Effect.flatMap(integrations.setStatus(c.integration.id, c.change), (ok) => ok ? logWritten(c) : Effect.void),
        "MCP health check broke; the round goes on",
        c.integration.id
      ))
    return one.filter((outcome) => outcome === BROKE).length
  })

  /** Writes a page's changes, `WRITE_BATCH` to a statement; answers how many checks broke. */
  const write = (checked: ReadonlyArray<Checked>) =>
    Effect.map(
      Effect.forEach(Arr.chunksOf(checked, WRITE_BATCH), writeSome),
      (broken) => broken.reduce((sum, n) => sum + n, 0)
    )

  return Effect.gen(function*() {
    const spacing = spacingOf((yield* McpSettings).healthIntervalMs)
    // When the next check may start, shared by the concurrent checks of the round.
    let nextStart = 0
    const paced = (integration: McpIntegration) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const wait = Math.max(0, nextStart - now)
        nextStart = now + wait + spacing
        return Effect.andThen(
          Effect.sleep(wait),
          isolated(check(integration), "MCP health check broke; the round goes on", integration.id)
        )
      })
    let after: string | null = null
    let checked = 0
    let broken = 0
    while (true) {
      const page: ReadonlyArray<McpIntegration> = yield* integrations.listInUse(after, PAGE)
      const outcomes = yield* Effect.forEach(page, paced, { concurrency: CONCURRENCY })
      broken += outcomes.filter((o) => o === BROKE).length
      broken += yield* write(outcomes.filter((o): o is Checked => o !== undefined && o !== BROKE))
      checked += page.length
      if (page.length < PAGE) return { checked, broken } satisfies HealthRound
      after = page[page.length - 1].id
    }
  })
})

/** The lease only one process at a time holds to check. */
export const HEALTH_CHECKER_LEASE = "mcp-health-checker"

/**
 * The checker: every interval, take or renew the lease and, holding it, run a round while renewing it; a
 * round whose lease is lost (the process stalled past its expiry) stops. Runs until interrupted, then gives
 * the lease up. Does nothing when `MCP_HEALTH_INTERVAL_MS` is 0.
 */
export const runHealthChecks = inBackground(Effect.gen(function*() {
  const settings = yield* McpSettings
  if (settings.healthIntervalMs <= 0) return
  const leases = yield* LeaseStore
  const holder = (yield* PlatformCrypto).uuid()
  const round = yield* makeHealthRound
  const interval = settings.healthIntervalMs
  // A crashed checker is replaced within three intervals.
  const ttl = 3 * interval
  let checking = false

  const keepLease = Effect.gen(function*() {
    while (true) {
      yield* Effect.sleep(interval)
      if (!(yield* leases.acquire(HEALTH_CHECKER_LEASE, holder, ttl))) return
    }
  })

  const cycle = Effect.gen(function*() {
    const held = yield* leases.acquire(HEALTH_CHECKER_LEASE, holder, ttl)
    if (held !== checking) {
      checking = held
      yield* Effect.logInfo(
        held ? "MCP health checks: this process checks now" : "MCP health checks: another process checks now"
      )
    }
    if (held) yield* Effect.raceFirst(Effect.asVoid(round), keepLease)
  }).pipe(
    Effect.catchCause((cause) => Effect.logWarning("MCP health checks: a round failed", Cause.pretty(cause)))
  )

  return yield* Effect.forever(Effect.andThen(cycle, Effect.sleep(interval))).pipe(
    // A store that is down cannot take the release: the lease then runs out by itself.
    Effect.ensuring(Effect.ignore(leases.release(HEALTH_CHECKER_LEASE, holder)))
  )
}))
