/**
 * Connection-pool metrics under OpenTelemetry's semantic-convention names for database clients, as Prometheus
 * spells them, each with the pool's name (`db_client_connection_pool_name`):
 * - `db_client_connection_count` by `db_client_connection_state` (`used`: checked out by a statement or a
 *   transaction; `idle`: open and waiting in the pool);
 * - `db_client_connection_max`: the most the pool opens;
 * - `db_client_connection_pending_requests`: statements and transactions waiting for a connection;
 * - `db_client_connection_wait_time_seconds`: how long each waited for one.
 *
 * The pools give no statistics of their own (`@effect/sql-pg`'s keeps its `effect/Pool` private), so this
 * wraps what a client is made of: its acquirers (checkouts and waits) and, on PostgreSQL, the socket factory
 * its connections open through (connections open).
 */
import { type Context, Effect, Metric, type Scope } from "effect"
import type { Duplex } from "node:stream"

// Each series is a metric of its own, its attributes given at its making (see the domain's
// OperationalMetrics.ts for why not `Metric.withAttributes`): a checkout is on every statement's path.
type Attributes = Record<string, string>
const gauge = (name: string, description: string) => (attributes: Attributes) =>
  Metric.gauge(name, { description, attributes })
const connectionCount = gauge(
  "db_client_connection_count",
  "Connections of the pool, by state: used (checked out) or idle (open, waiting in the pool)."
)
const connectionMax = gauge("db_client_connection_max", "The most connections the pool opens.")
const pendingRequests = gauge(
  "db_client_connection_pending_requests",
  "Statements and transactions waiting for a connection of the pool."
)
const waitTime = (attributes: Attributes) =>
  Metric.histogram("db_client_connection_wait_time_seconds", {
    description: "Time a statement or transaction waited for a connection of the pool (seconds).",
    boundaries: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    attributes
  })

export interface PoolMetrics {
  /** `acquire`, counted as a checkout: its wait observed, the connection used until the scope closes. */
  readonly checkout: <A, E, R>(acquire: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R | Scope.Scope>
  /** A pool's `use`, counted as `checkout` is: the connection used while `f` runs. */
  readonly borrow: <C, E2>(
    use: <A, E, R>(f: (connection: C) => Effect.Effect<A, E, R>) => Effect.Effect<A, E | E2, R>
  ) => <A, E, R>(f: (connection: C) => Effect.Effect<A, E, R>) => Effect.Effect<A, E | E2, R>
  /** A socket factory whose sockets count as the pool's open connections, until each closes. */
  readonly countSockets: <S extends Duplex>(open: () => S) => () => S
  /** For a pool whose connections stay open as long as it lives (PGlite's one session). */
  readonly setOpen: (open: number) => void
}

/**
 * The metrics of one pool; `context` names the metric registry (the fiber's that builds the client). Until
 * connections are counted (`countSockets`, `setOpen`), only the used ones are reported.
 */
export const makePoolMetrics = (poolName: string, max: number, context: Context.Context<never>): PoolMetrics => {
  const attributes = { db_client_connection_pool_name: poolName }
  const usedSeries = connectionCount({ ...attributes, db_client_connection_state: "used" })
  const idleSeries = connectionCount({ ...attributes, db_client_connection_state: "idle" })
  const pendingSeries = pendingRequests(attributes)
  const waitSeries = waitTime(attributes)
  let used = 0
  let pending = 0
  let open: number | undefined
  const report = () => {
    usedSeries.updateUnsafe(used, context)
    // Between a socket's close and the pool noticing, a checkout may outlive its connection.
    if (open !== undefined) idleSeries.updateUnsafe(Math.max(0, open - used), context)
  }
  const waiting = (delta: number) => pendingSeries.updateUnsafe(pending += delta, context)
  const gotOne = (startedAt: number) => {
    waitSeries.updateUnsafe((performance.now() - startedAt) / 1000, context)
    used += 1
    report()
  }
  const gaveBack = Effect.sync(() => {
    used -= 1
    report()
  })
  connectionMax(attributes).updateUnsafe(max, context)
  report()
  waiting(0)

  return {
    checkout: (acquire) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.suspend(() => {
          const startedAt = performance.now()
          waiting(1)
          return Effect.flatMap(
            Effect.ensuring(restore(acquire), Effect.sync(() => waiting(-1))),
            (connection) => {
              gotOne(startedAt)
              return Effect.as(Effect.addFinalizer(() => gaveBack), connection)
            }
          )
        })
      ),
    borrow: (use) => (f) =>
      Effect.suspend(() => {
        const startedAt = performance.now()
        let got = false
        waiting(1)
        return Effect.ensuring(
          use((connection) => {
            got = true
            waiting(-1)
            gotOne(startedAt)
            return Effect.ensuring(f(connection), gaveBack)
          }),
          Effect.sync(() => {
            if (!got) waiting(-1)
          })
        )
      }),
    countSockets: (openSocket) => () => {
      const socket = openSocket()
      open = (open ?? 0) + 1
      report()
      socket.once("close", () => {
        open = (open ?? 1) - 1
        report()
      })
      return socket
    },
    setOpen: (count) => {
      open = count
      report()
    }
  }
}
