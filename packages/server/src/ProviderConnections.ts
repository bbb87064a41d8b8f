/**
 * Provider connections on undici. A call to a checked custom host gets an agent of its own whose sockets
 * look its host name up in the list of checked addresses only, so a DNS answer that changes after the
 * check cannot move the connection. The URL keeps its host name, so the Host header, TLS SNI and the
 * certificate check are on the name the caller gave. undici follows no redirects unless told to.
 *
 * undici and the client on it are loaded on the first provider call, not at start: most processes never
 * make one, and the modules held ~5 MB of each process's memory.
 */
import { ProviderHttpClients } from "@gateway-control/adapters-http"
import { Effect, Layer, Scope } from "effect"
import type { LookupAddress } from "node:dns"
import { isIP, type LookupFunction } from "node:net"
import type { buildConnector } from "undici"

/** Makes the function that opens a connection's socket; undici's own, unless a test watches it. */
export type ConnectorFactory = (options: buildConnector.BuildOptions) => buildConnector.connector

/** A `lookup` for `net.connect`/`tls.connect` that answers with the given addresses, whatever the name. */
export const pinnedLookup = (addresses: ReadonlyArray<string>): LookupFunction => (hostname, options, callback) => {
  const all: Array<LookupAddress> = addresses
    .map((address) => ({ address, family: isIP(address) }))
    .filter((entry) => options.family === undefined || options.family === 0 || entry.family === options.family)
  if (all.length === 0) {
    const error: NodeJS.ErrnoException = new Error(`No checked address of ${hostname} has the family asked for`)
    error.code = "ENOTFOUND"
    return callback(error, "", 0)
  }
  if (options.all === true) return callback(null, all)
  callback(null, all[0].address, all[0].family)
}

const loadUndici = Effect.promise(() =>
  Promise.all([import("undici"), import("@effect/platform-node/NodeHttpClient")]).then((
    [undici, NodeHttpClient]
  ) => ({ buildConnector: undici.buildConnector, NodeHttpClient }))
)

/** A client on an agent of its own, released with the current scope, connecting through `connect`. */
const clientOn = (connect: (undici: typeof buildConnector) => buildConnector.connector) =>
  Effect.flatMap(loadUndici, ({ buildConnector, NodeHttpClient }) =>
    Effect.flatMap(
      NodeHttpClient.makeDispatcherOptions({ connect: connect(buildConnector) }),
      (dispatcher) => Effect.provideService(NodeHttpClient.makeUndici, NodeHttpClient.Dispatcher, dispatcher)
    ))

/**
 * One shared agent for provider base URLs and trusted hosts; an agent per call for pinned ones (a fine-tuning
 * listing is rare enough that the lost keep-alive does not matter, and no pool can mix pins).
 */
export const layerProviderHttpClients = (connector?: ConnectorFactory): Layer.Layer<ProviderHttpClients> =>
  Layer.effect(
    ProviderHttpClients,
    Effect.gen(function*() {
      // Made on the first call, and kept until the layer is released (not the first call's scope).
      const shared = yield* Effect.cached(
        Scope.provide(clientOn((undici) => (connector ?? undici)({})), yield* Effect.scope)
      )
      return ProviderHttpClients.of({
        clientFor: (pinnedAddresses) =>
          pinnedAddresses === undefined
            ? shared
            : clientOn((undici) => (connector ?? undici)({ lookup: pinnedLookup(pinnedAddresses) }))
      })
    })
  )
