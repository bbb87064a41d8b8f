/**
 * Provider connections on undici. A call to a checked custom host gets an agent of its own whose sockets
 * look its host name up in the list of checked addresses only, so a DNS answer that changes after the
 * check cannot move the connection. The URL keeps its host name, so the Host header, TLS SNI and the
 * certificate check are on the name the caller gave. undici follows no redirects unless told to.
 *
 * undici and the client on it are loaded on the first provider call or MCP session, not at start: many
 * processes never make one, and the modules held ~5 MB of each process's memory.
 */
import { ProviderHttpClients } from "@gateway-control/adapters-http"
import { type FetchLike, McpFetch } from "@gateway-control/adapters-mcp"
import type { PinnedAddresses } from "@gateway-control/domain"
import { Effect, Layer, Scope } from "effect"
import type { LookupAddress } from "node:dns"
import { isIP, type LookupFunction } from "node:net"
import type { Agent, buildConnector, fetch as undiciFetchType } from "undici"

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

/** The connector options of a connection: pinned to the checked addresses, or wherever DNS says. */
const connectOptions = (pinnedAddresses: PinnedAddresses): buildConnector.BuildOptions =>
  pinnedAddresses === undefined ? {} : { lookup: pinnedLookup(pinnedAddresses) }

const loadUndici = Effect.promise(() =>
  Promise.all([import("undici"), import("@effect/platform-node/NodeHttpClient")]).then((
    [undici, NodeHttpClient]
  ) => ({ undici, NodeHttpClient }))
)

/** The connector factory: the given one (tests watch connections), else undici's own. */
type Connector = ConnectorFactory | undefined

/** A client on an agent of its own, released with the current scope, pinned as `pinnedAddresses` says. */
const clientOn = (connector: Connector, pinnedAddresses: PinnedAddresses) =>
  Effect.flatMap(loadUndici, ({ NodeHttpClient, undici }) =>
    Effect.flatMap(
      NodeHttpClient.makeDispatcherOptions({
        connect: (connector ?? undici.buildConnector)(connectOptions(pinnedAddresses))
      }),
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
      const shared = yield* Effect.cached(Scope.provide(clientOn(connector, undefined), yield* Effect.scope))
      return ProviderHttpClients.of({
        clientFor: (pinnedAddresses) => pinnedAddresses === undefined ? shared : clientOn(connector, pinnedAddresses)
      })
    })
  )

/**
 * MCP sessions' fetch: an agent of its own per session, pinned like a provider call to a custom host (a
 * session is a handful of requests to one server; no pool can mix pins), closed with the session.
 */
export const layerMcpFetch = (connector?: ConnectorFactory): Layer.Layer<McpFetch> =>
  Layer.succeed(McpFetch)(McpFetch.of({
    fetchFor: (pinnedAddresses) =>
      Effect.flatMap(loadUndici, ({ undici }) =>
        Effect.map(
          Effect.acquireRelease(
            Effect.sync(() =>
              new undici.Agent({ connect: (connector ?? undici.buildConnector)(connectOptions(pinnedAddresses)) })
            ),
            (agent) => Effect.promise(() => agent.destroy())
          ),
          (agent) => fetchOn(undici.fetch, agent)
        ))
  }))

/**
 * A fetch on one agent. npm's undici and Node's global fetch declare their Request and Response types apart,
 * so the request is passed field by field (the MCP client sends text bodies only) and the answer rewrapped
 * as a global Response around the same body stream.
 */
const fetchOn = (undiciFetch: typeof undiciFetchType, agent: Agent): FetchLike => async (url, init) => {
  if (init?.body !== undefined && init.body !== null && typeof init.body !== "string") {
    throw new TypeError("MCP requests carry text bodies only")
  }
  const answer = await undiciFetch(url instanceof URL ? url.href : url, {
    method: init?.method,
    headers: [...new Headers(init?.headers)],
    body: init?.body,
    signal: init?.signal,
    redirect: init?.redirect,
    dispatcher: agent
  })
  return new Response(answer.body, {
    status: answer.status,
    statusText: answer.statusText,
    headers: [...answer.headers]
  })
}
