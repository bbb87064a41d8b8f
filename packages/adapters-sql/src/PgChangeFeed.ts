/**
 * The change feed on PostgreSQL: `pg_notify` on one channel, sent by the changing statement's own connection so
 * that it is part of the change's transaction (PostgreSQL delivers it at commit, and never after a rollback), and
 * `LISTEN` on a connection of its own in every process.
 *
 * When that connection drops, caches fall back to their lifetimes: a log line says so, the feed reconnects
 * (100 ms, doubling to 2 s between attempts), and once it listens again it tells every subscriber to `Resync`,
 * since what was notified meanwhile is lost.
 */
import { PgConnection } from "@effect/sql-pg"
import { Change, type ChangeEvent, ChangeFeed } from "@gateway-control/domain"
import { Deferred, Effect, Layer, Metric, Option, Queue, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { read } from "./internal/statements.ts"

/** The one channel every process listens on. */
export const CHANGE_CHANNEL = "gateway_control_changes"

/**
 * What a notification carries: the change, which process made it (each ignores its own), and when the sender's
 * clock sent it (epoch milliseconds; absent from a process older than the field, during a rolling restart).
 */
const Notice = Schema.fromJsonString(
  Schema.Struct({ origin: Schema.String, change: Change, sentAt: Schema.optionalKey(Schema.Finite) })
)
const decodeNotice = Schema.decodeUnknownOption(Notice)
const encodeNotice = Schema.encodeSync(Notice)

const RESYNC: ChangeEvent = { _tag: "Resync" }

const listening = Metric.gauge("gateway_change_feed_listening", {
  description: "1 while this process listens for other processes' changes, 0 while its connection is down."
})
const notifications = Metric.counter("gateway_change_feed_notifications_total", {
  description: "Changes heard from other processes through the change feed.",
  incremental: true
})
const lag = Metric.histogram("gateway_change_feed_lag_seconds", {
  description: "Time from another process sending a change (inside its transaction, just before the commit) to " +
    "this process hearing it, by the two hosts' clocks; negative differences (clock skew) count as 0 (seconds).",
  boundaries: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
})
const markListening = Metric.update(listening, 1)
const markDown = Metric.update(listening, 0)
const countNotification = Metric.update(notifications, 1)
const FIRST_RETRY_MS = 100
const LAST_RETRY_MS = 2_000

export interface ListenerOptions {
  readonly url: PgConnection.Config["url"]
  readonly startupParameters?: Readonly<Record<string, string>> | undefined
  /** How the listening connection opens its socket: the host locator's, for a URL with several hosts (PgHosts.ts). */
  readonly stream?: PgConnection.Config["stream"]
}

export const makePgChangeFeed = (options: ListenerOptions) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const origin = crypto.randomUUID()
    const handlers = new Set<(event: ChangeEvent) => void>()
    const dispatch = (event: ChangeEvent) => {
      for (const handler of handlers) handler(event)
    }
    const firstAttempt = yield* Deferred.make<void>()
    let listenedBefore = false

    /** Listens until the connection fails; never succeeds. */
    const listenUntilLost = Effect.scoped(Effect.gen(function*() {
      const connection = yield* PgConnection.make({
        url: options.url,
        applicationName: "gateway-control change feed",
        startupParameters: options.startupParameters,
        stream: options.stream
      })
      const queue = yield* connection.listen(CHANGE_CHANNEL)
      yield* markListening
      if (listenedBefore) {
        dispatch(RESYNC)
        yield* Effect.logInfo("change feed: listening again; caches cleared of what may have changed meanwhile")
      }
      listenedBefore = true
      yield* Deferred.succeed(firstAttempt, undefined)
      return yield* Effect.forever(Effect.flatMap(Queue.take(queue), (notification) => {
        const notice = decodeNotice(notification.payload)
        if (Option.isNone(notice) || notice.value.origin === origin) return Effect.void
        dispatch(notice.value.change)
        const sentAt = notice.value.sentAt
        return sentAt === undefined
          ? countNotification
          : Effect.andThen(countNotification, Metric.update(lag, Math.max(0, Date.now() - sentAt) / 1000))
      }))
    }))

    const listenForever = Effect.gen(function*() {
      let delayMs = FIRST_RETRY_MS
      let lostAt: number | undefined
      while (true) {
        const startedAt = Date.now()
        const failure = yield* Effect.flip(listenUntilLost)
        yield* markDown
        yield* Deferred.succeed(firstAttempt, undefined)
        // A connection that lasted a while starts the backoff over.
        if (Date.now() - startedAt > LAST_RETRY_MS) delayMs = FIRST_RETRY_MS
        if (lostAt === undefined || Date.now() - startedAt > LAST_RETRY_MS) {
          lostAt = Date.now()
          yield* Effect.logWarning(
            "change feed: the listening connection is down; caches fall back to their lifetimes until it is back"
          ).pipe(Effect.annotateLogs({ reason: failure.message }))
        }
        yield* Effect.sleep(delayMs)
        delayMs = Math.min(delayMs * 2, LAST_RETRY_MS)
      }
    })

    yield* Effect.forkScoped(listenForever)
    // Start serving once the feed listens (or has failed once and keeps trying), so that no change made
    // after the start goes unheard.
    yield* Deferred.await(firstAttempt)

    return ChangeFeed.of({
      // Stamped as the statement runs, so the lag a receiver measures starts at the change's end.
      publish: (change) =>
        read(Effect.suspend(() =>
          Effect.asVoid(
            sql`SELECT pg_notify(${CHANGE_CHANNEL}, ${encodeNotice({ origin, change, sentAt: Date.now() })})`
          )
        )),
      subscribe: (handler) =>
        Effect.acquireRelease(
          Effect.sync(() => void handlers.add(handler)),
          () => Effect.sync(() => void handlers.delete(handler))
        )
    })
  })

/** The change feed of processes sharing one PostgreSQL database. */
export const layerPgChangeFeed = (options: ListenerOptions) => Layer.effect(ChangeFeed, makePgChangeFeed(options))
