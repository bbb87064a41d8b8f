/**
 * A `DATABASE_URL` that names several hosts, as libpq reads it (`postgres://h1:5432,h2:5433/db?
 * target_session_attrs=read-write`), and the locator that keeps the gateway's connections on the one that takes
 * writes, through a failover, without a restart.
 *
 * The driver (@effect/sql-pg's own wire client) reads one host. So every connection is opened through the
 * locator's socket factory (`PgClient`'s `stream` option), which connects to the host currently known to
 * match `target_session_attrs`:
 * - at start, each host is tried in the URL's order with a connection of its own that asks
 *   `pg_is_in_recovery()` and `transaction_read_only`; the first that matches is the target;
 * - a monitor asks the target again every second, and at once when a connection to it fails or is closed by
 *   the server. When the target no longer matches (down, or demoted), every host is tried again (every 250 ms
 *   while none matches), and the connections still open to any other host are destroyed, so the pool retires
 *   them and their statements fail as a lost connection (503 `store_unavailable`);
 * - while no host matches, a connection fails at once ("no host takes writes"): writes answer 503 in
 *   milliseconds, not after a connect timeout, and the change feed and the leases retry until one does.
 *
 * `target_session_attrs` accepts `any` (the first host that answers), `read-write` (the default with several
 * hosts: not in recovery, and `transaction_read_only` off) and `primary` (not in recovery). The gateway writes,
 * so `read-only`, `standby` and `prefer-standby` are refused at start.
 */
import { PgConnection } from "@effect/sql-pg"
import { Effect, Queue, Redacted, Result } from "effect"
import type * as Scope from "effect/Scope"
import { ConnectionError, SqlError } from "effect/sql/SqlError"
import { connect, type Socket } from "node:net"
import { Duplex } from "node:stream"
import { openDeadlineSocket } from "./internal/deadlineSocket.ts"

export interface HostPort {
  readonly host: string
  readonly port: number
}

export type SessionAttrs = "any" | "read-write" | "primary"

/** A connection URL as the gateway reads it: its hosts, what a host must be, and the one-host URL the driver reads. */
export interface DatabaseTarget {
  /** The TCP hosts, in the URL's order; empty when the URL names a Unix socket or no host. */
  readonly hosts: ReadonlyArray<HostPort>
  readonly attrs: SessionAttrs
  /** Whether `target_session_attrs` was given. */
  readonly attrsGiven: boolean
  /** The URL with only its first host and no `target_session_attrs`: what the driver parses (user, database, TLS…). */
  readonly driverUrl: string
}

/** Whether connections go through the locator: several hosts, or one that must be checked. */
export const needsLocator = (target: DatabaseTarget): boolean =>
  target.hosts.length > 1 || (target.hosts.length === 1 && target.attrs !== "any")

const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/s

const parseHostPort = (text: string, defaultPort: number): HostPort | string => {
  const bracketed = /^\[([^\]]+)\](?::(\d*))?$/.exec(text)
  const [host, port] = bracketed !== null
    ? [bracketed[1]!, bracketed[2] ?? ""]
    : text.includes(":")
    ? [text.slice(0, text.lastIndexOf(":")), text.slice(text.lastIndexOf(":") + 1)]
    : [text, ""]
  if (host === "") return `an empty host in "${text}"`
  const number = port === "" ? defaultPort : Number(port)
  if (!Number.isInteger(number) || number < 1 || number > 65535) return `an invalid port in "${text}"`
  try {
    return { host: decodeURIComponent(host), port: number }
  } catch {
    return `an invalid host in "${text}"`
  }
}

const ATTRS: Record<string, SessionAttrs | "refused"> = {
  "any": "any",
  "read-write": "read-write",
  "primary": "primary",
  "read-only": "refused",
  "standby": "refused",
  "prefer-standby": "refused"
}

/**
 * Reads a PostgreSQL URL with one or several hosts (`h1:p1,h2:p2` in the authority, or `host=h1,h2&port=p1,p2`
 * in the query, as libpq), and `target_session_attrs`. Fails with the reason, in the operator's terms.
 */
export const parseDatabaseUrl = (url: string): Result.Result<DatabaseTarget, string> => {
  const parts = URL_PARTS.exec(url)
  if (parts === null) return Result.fail("not a postgres:// URL")
  const [, scheme, userInfo = "", authority, rest] = parts as unknown as [
    string,
    string,
    string | undefined,
    string,
    string
  ]
  const queryStart = rest.indexOf("?")
  const query = new URLSearchParams(queryStart < 0 ? "" : rest.slice(queryStart + 1).split("#")[0])
  const given = query.get("target_session_attrs")
  const attrs = given === null ? undefined : ATTRS[given]
  if (attrs === "refused") {
    return Result.fail(
      `target_session_attrs=${given} would connect to a server that takes no writes; the gateway writes: ` +
        `use read-write (or primary, or any)`
    )
  }
  if (given !== null && attrs === undefined) {
    return Result.fail(`target_session_attrs must be read-write, primary or any, not "${given}"`)
  }
  const queryHosts = query.get("host")
  const queryPorts = query.get("port")
  const hostTexts = queryHosts !== null && queryHosts.includes(",")
    ? queryHosts.split(",")
    : authority === ""
    ? []
    : authority.split(",")
  const portTexts = queryPorts !== null && queryPorts.includes(",") ? queryPorts.split(",") : []
  if (portTexts.length > 0 && portTexts.length !== hostTexts.length) {
    return Result.fail(`${hostTexts.length} hosts but ${portTexts.length} ports`)
  }
  const hosts: Array<HostPort> = []
  for (const [i, text] of hostTexts.entries()) {
    const port = portTexts[i] === undefined ? undefined : Number(portTexts[i])
    const parsed = parseHostPort(
      port === undefined ? text : `${text.includes(":") ? `[${text}]` : text}:${port}`,
      queryPorts !== null && portTexts.length === 0 && !text.includes(":") ? Number(queryPorts) : 5432
    )
    if (typeof parsed === "string") return Result.fail(parsed)
    // A Unix socket directory is one host the driver reads itself.
    if (parsed.host.startsWith("/")) {
      return Result.succeed({ hosts: [], attrs: "any", attrsGiven: false, driverUrl: url })
    }
    hosts.push(parsed)
  }
  query.delete("target_session_attrs")
  if (queryHosts !== null && queryHosts.includes(",")) query.delete("host")
  if (queryPorts !== null && queryPorts.includes(",")) query.delete("port")
  const first = hosts[0]
  const firstText = first === undefined
    ? ""
    : `${first.host.includes(":") ? `[${first.host}]` : encodeURIComponent(first.host)}:${first.port}`
  const path = queryStart < 0 ? rest : rest.slice(0, queryStart)
  const search = query.toString()
  return Result.succeed({
    hosts,
    attrs: attrs ?? (hosts.length > 1 ? "read-write" : "any"),
    attrsGiven: given !== null,
    driverUrl: `${scheme}${userInfo}${
      hostTexts.length > 1 || queryHosts?.includes(",") ? firstText : authority
    }${path}${search === "" ? "" : `?${search}`}`
  })
}

export const describeHosts = (hosts: ReadonlyArray<HostPort>): string =>
  hosts.map((h) => `${h.host.includes(":") ? `[${h.host}]` : h.host}:${h.port}`).join(", ")

const connectFailure = (message: string) =>
  new SqlError({ reason: new ConnectionError({ cause: new Error(message), message, operation: "connect" }) })

export interface HostLocatorOptions {
  readonly target: DatabaseTarget
  /** The driver's settings for the checks' own connections (user, password, database, TLS from the URL). */
  readonly connectTimeoutMs: number
  /** How often the target is checked while it matches, in ms. Default 1000. */
  readonly checkIntervalMs?: number | undefined
  /** How often every host is tried while none matches, in ms. Default 250. */
  readonly searchIntervalMs?: number | undefined
}

/** The host connections go to, and how to open one there. */
export interface HostLocator {
  readonly hosts: ReadonlyArray<HostPort>
  /** The host that matched last, or undefined while none does. */
  readonly current: () => HostPort | undefined
  /**
   * Opens sockets to the current host (`PgClient`'s `stream`), with the hung-server deadline when given
   * (internal/deadlineSocket.ts), or ones that fail at once while there is none.
   */
  readonly socketFactory: (deadlineMs: number | undefined) => () => Duplex
}

/** A socket that fails as soon as it is used: a connection while no host matches. */
const failingSocket = (message: string): Duplex => {
  const socket = new Duplex({
    read() {},
    write(_chunk, _encoding, callback) {
      callback()
    }
  })
  setImmediate(() => socket.destroy(new Error(message)))
  return socket
}

type Verdict = "match" | "mismatch" | "unreachable"

/**
 * Finds the host that matches `target_session_attrs`, and keeps following it (see the module's comment). Fails
 * at start when no host matches, naming them. Lives as long as the scope.
 */
export const makeHostLocator = (options: HostLocatorOptions): Effect.Effect<HostLocator, SqlError, Scope.Scope> =>
  Effect.gen(function*() {
    const { target } = options
    const hosts = target.hosts
    const named = describeHosts(hosts)
    const driverUrl = Redacted.make(target.driverUrl)
    const checkIntervalMs = options.checkIntervalMs ?? 1_000
    const searchIntervalMs = options.searchIntervalMs ?? 250
    let current: HostPort | undefined
    const sockets = new Map<Socket, HostPort>()
    const wake = yield* Queue.sliding<void>(1)
    const suspect = () => void Queue.offerUnsafe(wake, undefined)

    /** Asks one host what it is, on a connection of its own. */
    const check = (host: HostPort): Effect.Effect<Verdict> =>
      Effect.scoped(Effect.gen(function*() {
        const connection = yield* PgConnection.make({
          url: driverUrl,
          host: host.host,
          port: host.port,
          connectTimeout: Math.min(options.connectTimeoutMs, 2_000),
          applicationName: "gateway-control host check",
          prepare: false
        })
        if (target.attrs === "any") return "match" as const
        const result = yield* connection.query(
          "SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS read_only",
          [],
          false
        )
        const row = result.rows[0]
        const recovery = row?.recovery === true
        const readOnly = row?.read_only === "on"
        return !recovery && (target.attrs === "primary" || !readOnly) ? "match" as const : "mismatch" as const
      })).pipe(
        // A host that accepts the connection and then never answers is as good as down.
        Effect.timeoutOrElse({
          duration: Math.min(options.connectTimeoutMs, 2_000) + 2_000,
          orElse: () => Effect.succeed("unreachable" as const)
        }),
        Effect.catch(() => Effect.succeed("unreachable" as const))
      )

    /** The first host, in the URL's order, that matches. */
    const search = Effect.gen(function*() {
      for (const host of hosts) {
        if ((yield* check(host)) === "match") return host
      }
      return undefined
    })

    const moveTo = (found: HostPort | undefined) =>
      Effect.gen(function*() {
        const previous = current
        current = found
        for (const [socket, host] of sockets) {
          if (host !== found) {
            socket.destroy(new Error(`PostgreSQL at ${describeHosts([host])} is no longer the target`))
          }
        }
        if (found === undefined) {
          yield* Effect.logWarning(
            `database: no host takes writes among ${named} (target_session_attrs=${target.attrs}); ` +
              "requests that need the store answer 503 until one does"
          )
        } else if (previous !== found) {
          yield* Effect.logInfo(`database: connections go to ${describeHosts([found])}`).pipe(
            Effect.annotateLogs({ hosts: named, target_session_attrs: target.attrs })
          )
        }
      })

    const first = yield* search
    if (first === undefined) {
      return yield* Effect.fail(connectFailure(
        `No host of the database URL takes writes (target_session_attrs=${target.attrs}): tried ${named}`
      ))
    }
    current = first
    yield* Effect.logInfo(`database: connections go to ${describeHosts([first])}`).pipe(
      Effect.annotateLogs({ hosts: named, target_session_attrs: target.attrs })
    )

    const monitor = Effect.gen(function*() {
      while (true) {
        const waitMs = current === undefined ? searchIntervalMs : checkIntervalMs
        yield* Effect.raceFirst(Queue.take(wake), Effect.sleep(waitMs))
        const known = current
        if (known !== undefined && (yield* check(known)) === "match") continue
        const found = yield* search
        if (found !== known) yield* moveTo(found)
      }
    })
    yield* Effect.forkScoped(monitor)

    const socketFactory = (deadlineMs: number | undefined) => (): Duplex => {
      const host = current
      if (host === undefined) {
        suspect()
        return failingSocket(`No host of the database URL takes writes now (tried ${named})`)
      }
      const socket = deadlineMs === undefined
        ? connect({ host: host.host, port: host.port, noDelay: true })
        : openDeadlineSocket({ ...host, deadlineMs })
      sockets.set(socket, host)
      socket.on("error", suspect)
      // The server closing a connection (shutdown, crash, a demotion's restart) is worth asking about at once.
      socket.on("end", suspect)
      socket.on("close", () => void sockets.delete(socket))
      return socket
    }

    return { hosts, current: () => current, socketFactory }
  })
