/**
 * What the domain gives its edges so that none of them holds the audit log's writer or the store's units of
 * work (UseCaseBoundary.test.ts): `AuditedUseCase.refused` records a call refused before any use case ran,
 * `AuditLogs` lists records, `Readiness` probes the store and says when it is degraded (StoreOutage). Here with no HTTP, over the memory store.
 */
import { layerMemory } from "@gateway-control/adapters-memory"
import {
  ApiKeys,
  Audit,
  AuditedUseCase,
  AuditLogs,
  AuditLogStore,
  Bootstrap,
  type Principal,
  Readiness,
  RequestContext,
  StoreOutage,
  type StorePorts,
  StoreTransaction,
  StoreUnavailable
} from "@gateway-control/domain"
import { Context, Effect, Exit, Layer, ManagedRuntime, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { layerDomain } from "../src/App.ts"

/** The memory store, with its audit appends and its ping under the test's control. */
const controlledStore = (control: { auditDown: boolean; ping: Effect.Effect<void, StoreUnavailable> }) =>
  Layer.flatMap(layerMemory, (context): Layer.Layer<StorePorts> => {
    const audit = Context.get(context, AuditLogStore)
    const transaction = Context.get(context, StoreTransaction)
    return Layer.succeedContext(
      Context.add(
        Context.add(
          context,
          AuditLogStore,
          AuditLogStore.of({
            ...audit,
            append: (build) =>
              control.auditDown ? Effect.die(new Error("the audit store refuses")) : audit.append(build)
          })
        ),
        StoreTransaction,
        StoreTransaction.of({ ...transaction, ping: Effect.suspend(() => control.ping) })
      )
    )
  })

const open = async () => {
  const control = { auditDown: false, ping: Effect.void as Effect.Effect<void, StoreUnavailable> }
  const runtime = ManagedRuntime.make(layerDomain(controlledStore(control)))
  const boot = await runtime.runPromise(
    Bootstrap.use((b) => b.run({ organisationName: "Edges", ownerEmail: "o@e.test" }))
  )
  const admin: Principal = await runtime.runPromise(ApiKeys.use((k) => k.authenticate(boot.api_key)))
  return { runtime, control, admin }
}

const overHttp = Effect.provideService(RequestContext, {
  channel: "http",
  requestId: "req-refused-1",
  method: "POST",
  uri: "/v1/workspaces?api_key=secret-in-query",
  clientIp: "203.0.113.9",
  operator: null
})

describe("AuditedUseCase.refused", () => {
  it("records a refusal with the use case's action and the origin RequestContext gives", async () => {
    const { admin, runtime } = await open()
    try {
      await runtime.runPromise(
        AuditedUseCase.use((useCases) =>
          useCases.refused({
            useCase: "workspaces.create",
            actor: admin,
            workspaceId: admin.workspaceId,
            status: 400,
            body: { name: 42 }
          })
        ).pipe(overHttp)
      )
      const page = await runtime.runPromise(AuditLogs.use((logs) => logs.list(admin, {}, { limit: 10, offset: 0 })))
      const record = page.items.find((r) => r.request_id === "req-refused-1")
      expect(record).toMatchObject({
        action: "create",
        resource_type: "workspace",
        resource_id: null,
        method: "POST",
        response_status_code: 400,
        client_ip: "203.0.113.9",
        organisation_id: admin.organisationId,
        api_key_id: admin.keyId,
        request_body: { name: 42 }
      })
      // The query's credential is redacted like any other record's.
      expect(record?.uri).not.toContain("secret-in-query")
    } finally {
      await runtime.dispose()
    }
  })

  it("records an unknown caller's refusal under no organisation, named by a use case entry of its own", async () => {
    const { runtime } = await open()
    try {
      await runtime.runPromise(
        AuditedUseCase.use((useCases) =>
          useCases.refused({
            useCase: { action: "create", resourceType: "widget" },
            actor: { organisationId: null, keyId: null, userId: null },
            workspaceId: null,
            status: 401,
            body: null
          })
        )
      )
      const page = await runtime.runPromise(Audit.use((audit) => audit.listUnauthenticated({ limit: 10, offset: 0 })))
      // No edge provided a context: the record says the call was made in process, with an id of its own.
      expect(page.items[0]).toMatchObject({
        action: "create",
        resource_type: "widget",
        method: "EMBEDDED",
        uri: "embedded:widget.create",
        user_type: "unauthenticated",
        response_status_code: 401
      })
      expect(page.items[0]?.request_id).not.toBe("")
    } finally {
      await runtime.dispose()
    }
  })

  it("fails closed: a refusal whose record cannot be written is a defect, not a silent refusal", async () => {
    const { admin, control, runtime } = await open()
    try {
      control.auditDown = true
      const exit = await runtime.runPromiseExit(
        AuditedUseCase.use((useCases) =>
          useCases.refused({ useCase: "labels.create", actor: admin, workspaceId: null, status: 400, body: null })
        ).pipe(overHttp)
      )
      expect(Exit.isFailure(exit) && exit.cause.reasons.some((r) => r._tag === "Die")).toBe(true)
    } finally {
      await runtime.dispose()
    }
  })
})

describe("AuditLogs", () => {
  it("lists what Audit lists, under the same access rule", async () => {
    const { admin, runtime } = await open()
    try {
      const page = { limit: 50, offset: 0 }
      const [viaLogs, viaAudit] = await runtime.runPromise(Effect.all([
        AuditLogs.use((logs) => logs.list(admin, {}, page)),
        Audit.use((audit) => audit.list(admin, {}, page))
      ]))
      expect(viaLogs.items.length).toBeGreaterThan(0)
      expect(viaLogs).toEqual(viaAudit)
      const narrow: Principal = { ...admin, scopes: new Set() }
      const refused = await runtime.runPromiseExit(AuditLogs.use((logs) => logs.list(narrow, {}, page)))
      expect(refused).toMatchObject({ _tag: "Failure" })
    } finally {
      await runtime.dispose()
    }
  })
})

describe("Readiness", () => {
  it(
    "is ok while the store answers; degraded, steadily and without asking the store, from a failed or hung probe until the outage's probe finds it back",
    async () => {
      const { control, runtime } = await open()
      const resyncs: Array<string> = []
      // A subscriber, as the caches are: told to resync once the outage ends.
      const subscribed = await runtime.runPromise(Effect.andThen(
        Scope.make(),
        (scope) =>
          Effect.as(
            Scope.provide(StoreOutage.use((o) => o.onRecovery((event) => void resyncs.push(event._tag))), scope),
            scope
          )
      ))
      const check = () => runtime.runPromise(Readiness.use((r) => r.check))
      try {
        expect(await check()).toEqual({ status: "ok" })
        let pings = 0
        control.ping = Effect.suspend(() => {
          pings++
          return Effect.fail(new StoreUnavailable({ message: "connection refused to 10.0.0.1" }))
        })
        const degraded = await check()
        expect(degraded).toMatchObject({ status: "degraded", reason: "store_unavailable", since: expect.any(String) })
        expect(JSON.stringify(degraded)).not.toContain("10.0.0.1")
        // The same answer on the next probes: the outage's state, not a ping each.
        const pingsAfterFirst = pings
        expect(await check()).toEqual(degraded)
        expect(await check()).toEqual(degraded)
        expect(pings - pingsAfterFirst).toBeLessThanOrEqual(2)
        expect(resyncs).toEqual([])
        control.ping = Effect.void
        const started = Date.now()
        while ((await check()).status !== "ok") {
          expect(Date.now() - started).toBeLessThan(5_000)
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        expect(resyncs).toEqual(["Resync"])
        // A hung store is an outage too, found within the probe's timeout.
        control.ping = Effect.never
        const hungAt = Date.now()
        expect(await check()).toMatchObject({ status: "degraded" })
        expect(Date.now() - hungAt).toBeLessThan(5_000)
      } finally {
        await runtime.runPromise(Scope.close(subscribed, Exit.void))
        await runtime.dispose()
      }
    },
    15_000
  )
})
