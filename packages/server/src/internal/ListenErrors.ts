/**
 * Where `serve` listens is the user's to fix: a port another process holds, a port that needs privileges, an
 * address that is not this machine's. Those failures of `listen` become one line that names the address and the
 * variable to change (an `InvalidConfiguration`, printed by the CLI), not a stack trace.
 *
 * The port is also probed before the store opens: otherwise a first start would migrate and bootstrap the store
 * (seconds, and an admin key printed) only to stop at a port that was taken all along.
 */
import { Effect } from "effect"
import type { ServeError } from "effect/http/HttpServerError"
import { createServer } from "node:net"
import { InvalidConfiguration } from "../Settings.ts"

interface Address {
  readonly host: string
  readonly port: number
}

/** The one line for a `listen` failure the user can fix, or undefined for a fault of ours. */
export const listenFailure = (cause: unknown, { host, port }: Address): InvalidConfiguration | undefined => {
  switch ((cause as NodeJS.ErrnoException | undefined)?.code) {
    case "EADDRINUSE":
      return new InvalidConfiguration({
        message: `port ${port} on ${host} is already in use; stop the other process, or set PORT to another port.`,
        setting: "PORT"
      })
    case "EACCES":
      return new InvalidConfiguration({
        message: `no permission to listen on port ${port} on ${host} (ports below 1024 need privileges); ` +
          `set PORT to 1024 or above.`,
        setting: "PORT"
      })
    case "EADDRNOTAVAIL":
      return new InvalidConfiguration({
        message: `${host} is not an address of this machine; set HOST to one of its addresses ` +
          `(127.0.0.1, or 0.0.0.0 for every interface).`,
        setting: "HOST"
      })
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new InvalidConfiguration({
        message: `HOST ${host} does not resolve to an address; set HOST to an address of this machine.`,
        setting: "HOST"
      })
    default:
      return undefined
  }
}

/** The HTTP server's failure to listen, as the one line when it is the user's to fix. */
export const describeServeError = (error: ServeError, address: Address): ServeError | InvalidConfiguration =>
  listenFailure(error.cause, address) ?? error

/**
 * Listens on the address and closes again at once. Fails with the one line when the user can fix what stops it;
 * any other failure is left to the real `listen`, which reports it in full.
 */
export const probeListen = (address: Address): Effect.Effect<void, InvalidConfiguration> =>
  Effect.callback<void, InvalidConfiguration>((resume) => {
    const probe = createServer()
    probe.once("error", (cause) => {
      const failure = listenFailure(cause, address)
      resume(failure === undefined ? Effect.void : Effect.fail(failure))
    })
    probe.listen({ host: address.host, port: address.port, exclusive: true }, () => {
      probe.close(() => resume(Effect.void))
    })
  })
