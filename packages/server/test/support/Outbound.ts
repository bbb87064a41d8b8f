/**
 * The gateway's outbound network in tests, so that no traffic leaves the machine: DNS answered from a
 * table instead of the system resolver, and a socket connector that opens connections only to
 * 127.0.0.0/8 and records every connection the gateway asked for, with the addresses it would have used.
 */
import { HostResolver } from "@gateway-control/domain"
import { Effect } from "effect"
import { lookup as systemLookup, type LookupAddress } from "node:dns"
import { BlockList, isIP, type LookupFunction } from "node:net"
import { buildConnector } from "undici"
import { type ConnectorFactory, pinnedLookup } from "../../src/ProviderConnections.ts"

/**
 * A resolver answering from a table: for each name, its successive answers (the last one repeats), so a
 * test can change a name's answer after the first lookup. An IP literal resolves to itself.
 */
export const tableResolver = (table: Readonly<Record<string, ReadonlyArray<ReadonlyArray<string>>>>) => {
  const lookups = new Map<string, number>()
  const resolver = HostResolver.of({
    resolve: (host) =>
      Effect.sync(() => {
        if (isIP(host) !== 0) return [host]
        const answers = table[host] ?? [[]]
        const seen = lookups.get(host) ?? 0
        lookups.set(host, seen + 1)
        return answers[Math.min(seen, answers.length - 1)]
      })
  })
  return { resolver, lookups: (host: string) => lookups.get(host) ?? 0 }
}

export interface ConnectionAttempt {
  readonly hostname: string
  readonly port: string
  /** The addresses the socket would have connected to: its lookup's answer, or the IP literal. */
  readonly addresses: ReadonlyArray<string>
  /** Whether a socket was opened (only to the 127.0.0.0/8 ones among `addresses`). */
  readonly opened: boolean
}

const loopback = new BlockList()
loopback.addSubnet("127.0.0.0", 8, "ipv4")
const isLoopbackV4 = (address: string) => isIP(address) === 4 && loopback.check(address, "ipv4")

/**
 * A connector that resolves a connection's name the way `net.connect` would (with the lookup the gateway
 * gave it, else the system's), records the attempt, and connects only to the 127.0.0.0/8 answers;
 * anything else fails as refused without a packet being sent.
 */
export const loopbackOnlyConnector = () => {
  const attempts: Array<ConnectionAttempt> = []
  const factory: ConnectorFactory = (options) => {
    const lookup: LookupFunction = ("lookup" in options ? options.lookup : undefined) ?? systemLookup
    return (connection, callback) => {
      const connectTo = (addresses: ReadonlyArray<string>) => {
        const local = addresses.filter(isLoopbackV4)
        attempts.push({ hostname: connection.hostname, port: connection.port, addresses, opened: local.length > 0 })
        if (local.length === 0) {
          const refused: NodeJS.ErrnoException = new Error(
            `Test connector: no connection outside 127.0.0.0/8 (${addresses.join(", ")})`
          )
          refused.code = "ECONNREFUSED"
          return callback(refused, null)
        }
        buildConnector({ ...options, lookup: pinnedLookup(local) })(connection, callback)
      }
      if (isIP(connection.hostname) !== 0) return connectTo([connection.hostname])
      lookup(connection.hostname, { all: true }, (error, answers) => {
        connectTo(error !== null || typeof answers === "string" ? [] : answers.map((a: LookupAddress) => a.address))
      })
    }
  }
  return { factory, attempts }
}
