/**
 * The store contract for live MCP integrations: capabilities, the registry API's keyset listing, and the
 * leases that elect one health checker.
 */
import { Effect } from "effect"
import { expect, it } from "vitest"
import { WorkspaceStore } from "../../src/access/AccessStores.ts"
import {
  type DirectoryQuery,
  LeaseStore,
  McpCapability,
  McpCapabilityStore,
  McpIntegrationStore,
  McpServer,
  McpServerStore
} from "../../src/index.ts"
import { StoreTransaction } from "../../src/shared/StoreTransaction.ts"
import { at, type Harness, mcpIntegration, uid, workspace } from "./ContractHarness.ts"

const capability = (integrationId: string, type: McpCapability["type"], name: string, enabled = true) =>
  new McpCapability({
    integration_id: integrationId,
    type,
    name,
    description: `does ${name}`,
    enabled,
    input_schema: type === "tool" ? { type: "object", properties: { q: { type: "string" } } } : null,
    synced_at: at()
  })

export const mcpConnectivityContract = ({ exit, freshOrganisation, run }: Harness) => {
  it("stores capabilities: replaced whole, listed by type and name with filters and pages, toggled", async () => {
    const org = await freshOrganisation()
    const integration = mcpIntegration(org.id, "caps")
    await run(Effect.flatMap(Effect.service(McpIntegrationStore), (s) => s.insert(integration)))
    const store = Effect.service(McpCapabilityStore)
    const first = [
      capability(integration.id, "tool", "search"),
      capability(integration.id, "tool", "Zeta"),
      capability(integration.id, "prompt", "summarise"),
      capability(integration.id, "resource", "file:///a.txt"),
      capability(integration.id, "resource_template", "file:///{path}")
    ]
    await run(Effect.flatMap(store, (s) => s.replace(integration.id, first)))
    const all = await run(Effect.flatMap(store, (s) => s.all(integration.id)))
    // By type, then name by code point ('Z' before 's').
    expect(all.map((c) => `${c.type}:${c.name}`)).toEqual([
      "prompt:summarise",
      "resource:file:///a.txt",
      "resource_template:file:///{path}",
      "tool:Zeta",
      "tool:search"
    ])
    expect(all.find((c) => c.name === "search")).toEqual(first[0])
    type Query = Parameters<McpCapabilityStore["Service"]["list"]>[0]
    const list = (q: Partial<Query>, limit = 10, offset = 0) =>
      run(
        Effect.flatMap(store, (s) =>
          s.list({ integrationId: integration.id, type: null, search: null, ...q }, { limit, offset }))
      )
    const tools = await list({ type: "tool" })
    expect([tools.items.map((c) => c.name), tools.total]).toEqual([["Zeta", "search"], 2])
    expect((await list({ search: "SUMMAR" })).items.map((c) => c.name)).toEqual(["summarise"])
    expect((await list({ search: "does zeta" })).items.map((c) => c.name)).toEqual(["Zeta"])
    const second = await list({}, 2, 2)
    expect([second.items.map((c) => c.name), second.total]).toEqual([["file:///{path}", "Zeta"], 5])
    expect((await list({}, 2, 10)).items).toEqual([])

    await run(
      Effect.flatMap(store, (s) =>
        s.setEnabled(integration.id, [{ type: "tool", name: "search", enabled: false }, {
          type: "prompt",
          name: "summarise",
          enabled: false
        }]))
    )
    const toggled = await run(Effect.flatMap(store, (s) => s.all(integration.id)))
    expect(toggled.filter((c) => !c.enabled).map((c) => c.name)).toEqual(["summarise", "search"])

    // A replacement drops what it does not name; in a unit of work that fails, nothing changes.
    await run(Effect.flatMap(store, (s) => s.replace(integration.id, [first[1]])))
    expect((await run(Effect.flatMap(store, (s) => s.all(integration.id)))).map((c) => c.name)).toEqual(["Zeta"])
    await exit(Effect.gen(function*() {
      const transaction = yield* StoreTransaction
      const s = yield* McpCapabilityStore
      yield* transaction.withTransaction(Effect.andThen(s.replace(integration.id, first), Effect.fail("boom")))
    }))
    expect((await run(Effect.flatMap(store, (s) => s.all(integration.id)))).map((c) => c.name)).toEqual(["Zeta"])
    await run(Effect.flatMap(store, (s) => s.replace(integration.id, [])))
    expect(await run(Effect.flatMap(store, (s) => s.all(integration.id)))).toEqual([])
  })

  it("lists the registry's servers by workspace and slug after a position, usable ones only", async () => {
    const org = await freshOrganisation()
    const [w1, w2] = [workspace(org.id), workspace(org.id)]
    await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => Effect.forEach([w1, w2], s.insert)))
    const open = mcpIntegration(org.id, "open")
    const onlyW2 = mcpIntegration(org.id, "only-w2", { global_workspace_access: false, workspace_ids: [w2.id] })
    const archived = mcpIntegration(org.id, "gone", { status: "archived" })
    await run(
      Effect.flatMap(Effect.service(McpIntegrationStore), (s) => Effect.forEach([open, onlyW2, archived], s.insert))
    )
    const server = (workspaceId: string, slug: string, integrationId: string, name = `Server ${slug}`) =>
      new McpServer({
        id: uid(),
        organisation_id: org.id,
        workspace_id: workspaceId,
        slug,
        name,
        status: "active",
        description: null,
        mcp_integration_id: integrationId,
        created_at: at()
      })
    const servers = [
      server(w1.id, "b-one", open.id),
      server(w1.id, "A-two", open.id, "Linear"),
      server(w1.id, "c-three", onlyW2.id), // w1 may no longer use it: not listed
      server(w1.id, "d-gone", archived.id),
      server(w2.id, "e-w2", onlyW2.id)
    ]
    await run(Effect.flatMap(Effect.service(McpServerStore), (s) => Effect.forEach(servers, s.insert)))
    const entries = (q: Partial<DirectoryQuery>) =>
      run(Effect.flatMap(Effect.service(McpServerStore), (s) =>
        s.directory({
          organisationId: org.id,
          workspaceId: w1.id,
          after: null,
          search: null,
          updatedSince: null,
          includeArchived: false,
          limit: 10,
          ...q
        })))
    const directory = (q: Partial<DirectoryQuery>) => entries(q).then((found) => found.map((e) => e.server.slug))
    expect(await directory({})).toEqual(["A-two", "b-one"])
    expect(await directory({ includeArchived: true })).toEqual(["A-two", "b-one", "d-gone"])
    expect(await directory({ after: { workspaceId: w1.id, slug: "A-two" } })).toEqual(["b-one"])
    expect(await directory({ limit: 1 })).toEqual(["A-two"])
    expect(await directory({ search: "LINEAR" })).toEqual(["A-two"])
    const [w1First, w2First] = w1.id < w2.id ? [["A-two", "b-one"], ["e-w2"]] : [["e-w2"], ["A-two", "b-one"]]
    expect(await directory({ workspaceId: null })).toEqual([...w1First, ...w2First])
    const [first] = await entries({})
    expect(first.integration).toEqual(open)
    expect(first.server).toEqual(servers[1])
    // Changed since: created after, or their integration changed after.
    const since = servers[4].created_at
    expect(await directory({ updatedSince: since })).toEqual([])
    await run(
      Effect.flatMap(Effect.service(McpIntegrationStore), (s) =>
        s.setStatus(open.id, {
          status: "unhealthy",
          status_message: "down",
          status_changed_at: at(),
          consecutive_failures: 3
        }))
    )
    expect(await directory({ updatedSince: since })).toEqual(["A-two", "b-one"])
  })

  it("gives a lease to one holder at a time, until it is released or expires", async () => {
    const name = `lease-${uid()}`
    const leases = Effect.service(LeaseStore)
    const acquire = (holder: string, ttlMs = 60_000) =>
      run(Effect.flatMap(leases, (s) => s.acquire(name, holder, ttlMs)))
    expect(await acquire("a")).toBe(true)
    expect(await acquire("b")).toBe(false)
    expect(await acquire("a")).toBe(true)
    await run(Effect.flatMap(leases, (s) => s.release(name, "b")))
    expect(await acquire("b")).toBe(false)
    await run(Effect.flatMap(leases, (s) => s.release(name, "a")))
    expect(await acquire("b", 1)).toBe(true)
    // b's lease lasts 1 ms: a takes it once it has expired.
    const deadline = Date.now() + 5_000
    let taken = await acquire("a")
    while (!taken && Date.now() < deadline) taken = await acquire("a")
    expect(taken).toBe(true)
    expect(await acquire("b")).toBe(false)
  })
}
