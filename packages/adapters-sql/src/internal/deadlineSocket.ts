/**
 * A TCP socket to PostgreSQL that gives up on a server that stops answering: once the client has written a
 * message and no byte of the answer came for `deadlineMs`, the socket is destroyed, so the statement waiting
 * on it fails as a lost connection (`StoreError` "unavailable", 503) and the pool retires the connection.
 *
 * Why at the socket: a server-side `statement_timeout` is answered by the server, so a database that hangs
 * (connection open, nothing coming back) never sends it; and interrupting a statement from Effect makes the
 * driver drain the connection and send a cancel request over a second connection, which against a hung
 * server waits its own 5 s on each, while a transaction's ROLLBACK queues behind them. A destroyed socket
 * fails the statement, the ROLLBACK and the cancel at once, and the connection is never reused.
 *
 * Every message a client sends is answered, and every answer ends with `ReadyForQuery` ('Z'), so "a write not
 * yet answered" is: a write since the last chunk that ended with one. Bytes that arrive while an answer is
 * owed are progress and restart the clock; notifications that arrive while nothing is owed (`LISTEN`) do not
 * start it. Under TLS the socket is read and written by the TLS layer, out of this wrapper's sight, so the
 * deadline stands down once the server accepts TLS (the server's own `statement_timeout` still applies).
 */
import { connect, type Socket } from "node:net"

/** `ReadyForQuery`: 'Z', length 5, and the transaction status byte. */
const endsWithReadyForQuery = (chunk: Uint8Array): boolean => {
  const n = chunk.length
  return n >= 6 && chunk[n - 6] === 0x5a && chunk[n - 5] === 0 && chunk[n - 4] === 0 && chunk[n - 3] === 0 &&
    chunk[n - 2] === 5
}

/** The server's one-byte 'S' to an `SSLRequest`: TLS starts on this socket. */
const acceptsTls = (chunk: Uint8Array, answered: boolean): boolean =>
  !answered && chunk.length === 1 && chunk[0] === 0x53

export interface DeadlineSocketOptions {
  readonly host: string
  readonly port: number
  readonly deadlineMs: number
  readonly keepAlive?: boolean
}

/** Opens the socket; for `PgClient`'s `stream` option, which calls it once per connection (and cancel request). */
export const openDeadlineSocket = (options: DeadlineSocketOptions): Socket => {
  const socket = connect({ host: options.host, port: options.port, noDelay: true, keepAlive: options.keepAlive })
  let timer: ReturnType<typeof setTimeout> | undefined
  let answered = false
  let standDown = false
  const expire = () => {
    timer = undefined
    socket.destroy(new Error(`PostgreSQL did not answer within ${options.deadlineMs} ms`))
  }
  const start = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = setTimeout(expire, options.deadlineMs)
  }
  const stop = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  const write = socket.write
  socket.write = function(this: Socket, ...args: Parameters<Socket["write"]>) {
    if (!standDown && timer === undefined) start()
    return Reflect.apply(write, this, args)
  } as Socket["write"]
  socket.on("data", (chunk: Uint8Array) => {
    if (standDown) return
    if (acceptsTls(chunk, answered)) {
      standDown = true
      return stop()
    }
    answered = true
    if (timer === undefined) return
    if (endsWithReadyForQuery(chunk)) stop()
    else start()
  })
  socket.on("close", stop)
  return socket
}

/** Where a URL says to connect by TCP, or undefined for what this socket does not handle (Unix sockets, hosts in the query). */
export const tcpAddressOf = (url: string): { readonly host: string; readonly port: number } | undefined => {
  try {
    const parsed = new URL(url)
    if (parsed.hostname === "" || parsed.searchParams.has("host") || parsed.hostname.includes(",")) return undefined
    const host = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname
    return { host: decodeURIComponent(host), port: parsed.port === "" ? 5432 : Number(parsed.port) }
  } catch {
    return undefined
  }
}
