/**
 * The stores the audit log's HTTP tests run on, each with a way to make its audit log refuse writes:
 * PGlite really refuses (a constraint no row meets); the memory store cannot fail, so its audit appends
 * are made to die while the switch is on.
 */
import { layerMemory } from "@gateway-control/adapters-memory"
import { Audit, AuditLogStore, type AuditRecord, type StorePorts } from "@gateway-control/domain"
import { Context, Effect, Layer, Option } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { randomUUID } from "node:crypto"
import { pgliteFromSnapshot } from "../../../adapters-sql/test/support/Stores.ts"
import { jsonOf, startTestServer, type TestServer } from "./TestServer.ts"

export interface AuditTestStore {
  readonly name: string
  readonly start: () => Promise<{
    readonly server: TestServer
    /** Makes every audit write fail (true) or work again (false). */
    readonly auditDown: (down: boolean) => Promise<void>
  }>
}

/** The memory store, whose audit appends die while `auditDown(true)` holds: it cannot fail otherwise. */
export const memoryWithAuditSwitch = () => {
  let down = false
  const store: Layer.Layer<StorePorts> = Layer.flatMap(layerMemory, (context) => {
    const audit = Context.get(context, AuditLogStore)
    return Layer.succeedContext(Context.add(
      context,
      AuditLogStore,
      AuditLogStore.of({
        ...audit,
        append: (build) => down ? Effect.die(new Error("the audit store refuses writes")) : audit.append(build)
      })
    ))
  })
  return {
    store,
    auditDown: (value: boolean) => {
      down = value
    }
  }
}

const memory: AuditTestStore = {
  name: "memory",
  start: async () => {
    const { auditDown, store } = memoryWithAuditSwitch()
    const server = await startTestServer({ store })
    return { server, auditDown: async (value) => auditDown(value) }
  }
}

const pglite: AuditTestStore = {
  name: "PGlite",
  start: async () => {
    const server = await startTestServer({ store: pgliteFromSnapshot() })
    const sql = async (statement: string) => {
      const client = await server.runtime.runPromise(Effect.serviceOption(SqlClient.SqlClient))
      await server.runtime.runPromise(Effect.orDie(Option.getOrThrow(client).unsafe(statement)))
    }
    return {
      server,
      auditDown: (down) =>
        sql(
          down
            ? "ALTER TABLE audit_logs ADD CONSTRAINT audit_refuses_writes CHECK (false) NOT VALID"
            : "ALTER TABLE audit_logs DROP CONSTRAINT audit_refuses_writes"
        )
    }
  }
}

export const AUDIT_TEST_STORES: ReadonlyArray<AuditTestStore> = [memory, pglite]

/** A request id for one call, to find its record by. */
export const requestId = () => randomUUID()

/** A JSON request with a known request id; `key` null sends none. */
export const sendTraced = (
  server: TestServer,
  method: string,
  path: string,
  body: string | undefined,
  options: { readonly key?: string | null; readonly id: string }
) =>
  server.request(path, {
    method,
    key: options.key,
    headers: { "content-type": "application/json", "x-request-id": options.id },
    body
  })

/** The organisation's audit record of a request, as the API lists it; undefined when there is none. */
export const recordOf = async (server: TestServer, id: string): Promise<Record<string, any> | undefined> => {
  const listed = await jsonOf(await server.request("/v1/audit-logs?page_size=1000"))
  return (listed.records as Array<Record<string, any>>).find((r) => r.request_id === id)
}

/** The records of calls with no known key: the operator's view (`gateway-control audit unauthenticated`). */
export const unauthenticatedRecords = (server: TestServer): Promise<ReadonlyArray<AuditRecord>> =>
  server.runtime.runPromise(
    Effect.flatMap(Effect.service(Audit), (audit) => audit.listUnauthenticated({ limit: 1000, offset: 0 }))
  ).then((page) => page.items)

/** A key of the test organisation with `scopes` only. */
export const narrowKey = (server: TestServer, scopes: ReadonlyArray<string>) =>
  server.api((client) =>
    client.apiKeys.create({
      params: { type: "organisation", subType: "service" },
      payload: { name: "narrow", scopes }
    })
  )
