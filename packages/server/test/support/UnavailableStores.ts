/**
 * Stores that can be made unavailable while a server runs on them: the memory store with its ports switched to
 * fail as a store that cannot answer does (`StoreError`, reason "unavailable"), and PostgreSQL behind a TCP
 * proxy on loopback that can be cut (connections reset, new ones refused) or made to hang (connections accepted,
 * nothing forwarded), without touching the shared PostgreSQL server.
 */
import { layerMemory } from "@gateway-control/adapters-memory"
import {
  ApiKeyStore,
  AuditLogStore,
  ConfigStore,
  IdempotencyStore,
  IntegrationStore,
  LabelStore,
  LeaseStore,
  McpCapabilityStore,
  McpIntegrationStore,
  McpServerStore,
  OrganisationStore,
  PartialStore,
  PromptStore,
  ProviderStore,
  StoreError,
  type StorePorts,
  StoreTransaction,
  StoreUnavailable,
  UserStore,
  WorkspaceMemberStore,
  WorkspaceStore
} from "@gateway-control/domain"
import { Context, Effect, Layer } from "effect"
import { createServer, type Server, Socket } from "node:net"
import { postgresInFreshSchema } from "../../../adapters-sql/test/support/Stores.ts"

/** Which ports fail: every one, the entity stores but not the audit log, or the audit log alone. */
export type Outage = "none" | "all" | "entities" | "audit"

/**
 * `service` with every operation failing as an unavailable store while `failing()` answers true. Each member
 * of a port is an operation answering an Effect, or an Effect (`Effect.Effect<_, _ | StoreError>`), so one that
 * fails with `StoreError` keeps the port's own type.
 */
const switchable = <S extends object>(service: S, failing: () => boolean): S => {
  const fail = (name: string) => Effect.fail(StoreError.unavailable(`the test cut the store (${name})`))
  const entries = Object.entries(service).map(([name, member]) => {
    if (typeof member === "function") {
      return [name, (...args: Array<unknown>) => Effect.suspend(() => failing() ? fail(name) : member(...args))]
    }
    return [name, Effect.isEffect(member) ? Effect.suspend(() => failing() ? fail(name) : member) : member]
  })
  return Object.fromEntries(entries) as S
}

type Switch = (context: Context.Context<StorePorts>) => Context.Context<StorePorts>

/** Replaces the port `key` of a context by its switchable form. */
const switched =
  <I extends StorePorts, S extends object>(key: Context.Key<I, S>, failing: () => boolean): Switch => (context) =>
    Context.add(context, key, switchable(Context.get(context, key), failing))

/** The store's ping (readiness, the outage's probe) failing while `failing()` answers true. */
const switchedPing = (failing: () => boolean): Switch => (context) => {
  const transaction = Context.get(context, StoreTransaction)
  return Context.add(context, StoreTransaction, {
    ...transaction,
    ping: Effect.suspend(() =>
      failing() ? Effect.fail(new StoreUnavailable({ message: "the test cut the store (ping)" })) : transaction.ping
    )
  })
}

/** The memory store, its ports failing as `outage()` says at the time of each call; its ping too for "all". */
export const switchableMemory = (outage: () => Outage): Layer.Layer<StorePorts> => {
  const entities = () => outage() === "all" || outage() === "entities"
  const audit = () => outage() === "all" || outage() === "audit"
  const switches: ReadonlyArray<Switch> = [
    switched(OrganisationStore, entities),
    switched(WorkspaceStore, entities),
    switched(UserStore, entities),
    switched(WorkspaceMemberStore, entities),
    switched(ApiKeyStore, entities),
    switched(PromptStore, entities),
    switched(PartialStore, entities),
    switched(LabelStore, entities),
    switched(McpIntegrationStore, entities),
    switched(McpServerStore, entities),
    switched(McpCapabilityStore, entities),
    switched(IntegrationStore, entities),
    switched(ProviderStore, entities),
    switched(ConfigStore, entities),
    switched(LeaseStore, entities),
    switched(IdempotencyStore, entities),
    switched(AuditLogStore, audit),
    switchedPing(() => outage() === "all")
  ]
  return Layer.flatMap(
    layerMemory,
    (context) => Layer.succeedContext(switches.reduce((acc, apply) => apply(acc), context))
  )
}

export interface StoreProxy {
  /** The database URL through the proxy. */
  readonly url: string
  /** Forwards again, on the same port. */
  readonly restore: () => Promise<void>
  /** Resets every open connection and refuses new ones: a database that is down. */
  readonly cut: () => Promise<void>
  /** Accepts connections and forwards nothing: a database that hangs. */
  readonly hang: () => void
  readonly close: () => Promise<void>
}

/** A TCP proxy on loopback in front of the PostgreSQL server `url` names. */
export const startStoreProxy = async (url: string): Promise<StoreProxy> => {
  const target = new URL(url)
  const targetPort = Number(target.port === "" ? 5432 : target.port)
  const sockets = new Set<Socket>()
  let hanging = false
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    socket.on("error", () => socket.destroy())
  }
  const onConnection = (client: Socket) => {
    track(client)
    if (hanging) return
    const upstream = new Socket()
    track(upstream)
    upstream.connect(targetPort, target.hostname)
    client.pipe(upstream)
    upstream.pipe(client)
  }
  let server: Server = createServer(onConnection)
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => {
        const address = server.address()
        resolve(typeof address === "object" && address !== null ? address.port : port)
      })
    })
  const port = await listen(0)
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.resetAndDestroy()
      sockets.clear()
      if (!server.listening) return resolve()
      server.close(() => resolve())
    })
  const proxied = new URL(url)
  proxied.hostname = "127.0.0.1"
  proxied.port = String(port)
  return {
    url: proxied.toString(),
    restore: async () => {
      // Connections left hanging are reset, as a database that came back would have lost them.
      if (hanging) { for (const socket of sockets) socket.resetAndDestroy() }
      hanging = false
      if (server.listening) return
      server = createServer(onConnection)
      await listen(port)
    },
    cut: stop,
    hang: () => {
      hanging = true
      for (const socket of sockets) socket.unpipe()
    },
    close: stop
  }
}

/**
 * PostgreSQL in a schema of its own, reached through `proxy`; the schema is created and dropped over a direct
 * connection, so the test's cuts never stand in the way of its cleanup.
 */
export const postgresBehind = (
  proxy: StoreProxy,
  url: string,
  timeouts: { readonly statementTimeoutMs?: number; readonly connectTimeoutMs?: number } = {}
) => postgresInFreshSchema(url, proxy.url, timeouts)
