/**
 * The store contract for the MCP registry: integrations and servers.
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { WorkspaceStore } from "../../src/access/AccessStores.ts"
import { McpIntegration, McpIntegrationStore, McpServer, McpServerStore } from "../../src/index.ts"
import { StoreTransaction } from "../../src/shared/StoreTransaction.ts"
import { at, type Harness, mcpIntegration, uid, workspace } from "./ContractHarness.ts"

export const mcpContract = ({ exit, freshOrganisation, run }: Harness) => {
  it("queries MCP integrations by level, visibility, status and search, paged in creation order", async () => {
    const org = await freshOrganisation()
    const [w1, w2] = [workspace(org.id), workspace(org.id)]
    await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => Effect.forEach([w1, w2], s.insert)))
    const make = (slug: string, fields: Partial<McpIntegration> = {}) =>
      mcpIntegration(org.id, slug, {
        name: `Integration ${slug.toUpperCase()}`,
        configurations: { a: 1 },
        secret_mappings: [{ target_field: "t", secret_reference_id: "s", secret_key: "k", value_format: "string" }],
        ...fields
      })
    const all = [
      make("global"),
      make("only-w2", { global_workspace_access: false, workspace_ids: [w2.id] }),
      make("w1-own", { workspace_id: w1.id, global_workspace_access: false }),
      make("w2-own", { workspace_id: w2.id, global_workspace_access: false }),
      // A slug has no '%' (shared/Rules.ts): the name carries the LIKE wildcards the search must escape.
      make("archived_50", { status: "archived", name: "Integration ARCHIVED_50%" })
    ]
    await run(Effect.flatMap(Effect.service(McpIntegrationStore), (s) => Effect.forEach(all, s.insert)))
    type Query = Parameters<McpIntegrationStore["Service"]["list"]>[0]
    const query = (q: { readonly [K in keyof Query]?: Query[K] }, limit = 10, offset = 0) =>
      run(
        Effect.flatMap(Effect.service(McpIntegrationStore), (s) =>
          s.list({ organisationId: org.id, usableBy: null, level: "all", status: "active", search: null, ...q }, {
            limit,
            offset
          }))
      )
    const slugs = (page: { items: ReadonlyArray<McpIntegration> }) => page.items.map((i) => i.slug)
    expect(slugs(await query({}))).toEqual(["global", "only-w2", "w1-own", "w2-own"])
    expect(slugs(await query({ usableBy: w1.id }))).toEqual(["global", "w1-own"])
    expect(slugs(await query({ usableBy: w2.id }))).toEqual(["global", "only-w2", "w2-own"])
    expect(slugs(await query({ level: "organisation" }))).toEqual(["global", "only-w2"])
    expect(slugs(await query({ level: "workspace", usableBy: w2.id }))).toEqual(["w2-own"])
    expect(slugs(await query({ status: "archived" }))).toEqual(["archived_50"])
    expect(slugs(await query({ search: "W2" }))).toEqual(["only-w2", "w2-own"])
    expect(slugs(await query({ search: "_50%", status: "archived" }))).toEqual(["archived_50"])
    expect(slugs(await query({ search: "%" }))).toEqual([])
    const second = await query({}, 2, 2)
    expect([slugs(second), second.total]).toEqual([["w1-own", "w2-own"], 4])
    const past = await query({}, 2, 10)
    expect([slugs(past), past.total]).toEqual([[], 4])
    const read = await run(
      Effect.flatMap(Effect.service(McpIntegrationStore), (s) => s.findBySlug(org.id, "only-w2"))
    )
    expect(Option.getOrThrow(read)).toEqual(all[1])
    const duplicate = await exit(Effect.flatMap(Effect.service(McpIntegrationStore), (s) => s.insert(make("global"))))
    expect(JSON.stringify(duplicate)).toContain("Conflict")

    const mcpServer = new McpServer({
      id: uid(),
      organisation_id: org.id,
      workspace_id: w1.id,
      slug: "srv",
      name: "Server One",
      status: "active",
      description: null,
      mcp_integration_id: all[0].id,
      created_at: at()
    })
    await run(Effect.flatMap(Effect.service(McpServerStore), (s) => s.insert(mcpServer)))
    const again = await exit(
      Effect.flatMap(Effect.service(McpServerStore), (s) => s.insert(new McpServer({ ...mcpServer, id: uid() })))
    )
    expect(JSON.stringify(again)).toContain("Conflict")
    const found = await run(Effect.flatMap(Effect.service(McpServerStore), (s) => s.findBySlug(w1.id, "srv")))
    expect(Option.getOrThrow(found)).toEqual(mcpServer)
    const listed = await run(
      Effect.flatMap(Effect.service(McpServerStore), (s) => s.list(org.id, w1.id, "one", { limit: 5, offset: 0 }))
    )
    expect(listed.items.map((x) => x.id)).toEqual([mcpServer.id])

    const renamed = new McpServer({ ...mcpServer, name: "Server Renamed", description: "now described" })
    expect(await run(Effect.flatMap(Effect.service(McpServerStore), (s) => s.update(renamed)))).toBe(true)
    const reread = await run(Effect.flatMap(Effect.service(McpServerStore), (s) => s.get(mcpServer.id)))
    expect(Option.getOrThrow(reread)).toEqual(renamed)
    expect(await run(Effect.flatMap(Effect.service(McpServerStore), (s) => s.delete(mcpServer.id)))).toBe(true)
    expect(await run(Effect.flatMap(Effect.service(McpServerStore), (s) => s.delete(mcpServer.id)))).toBe(false)
    expect(Option.isNone(await run(Effect.flatMap(Effect.service(McpServerStore), (s) => s.get(mcpServer.id)))))
      .toBe(true)
    expect(
      await run(Effect.flatMap(Effect.service(McpServerStore), (s) => s.update(new McpServer({ ...renamed }))))
    ).toBe(false)
  })

  it("lists only the servers named by id, within the scope and search, paged", async () => {
    const org = await freshOrganisation()
    const [w1, w2] = [workspace(org.id), workspace(org.id)]
    await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => Effect.forEach([w1, w2], s.insert)))
    const integration = mcpIntegration(org.id, "shared-ids")
    await run(Effect.flatMap(Effect.service(McpIntegrationStore), (s) => s.insert(integration)))
    const server = (workspaceId: string, slug: string) =>
      new McpServer({
        id: uid(),
        organisation_id: org.id,
        workspace_id: workspaceId,
        slug,
        name: `Server ${slug}`,
        status: "active",
        description: null,
        mcp_integration_id: integration.id,
        created_at: at()
      })
    const [a, b, c, d] = [
      server(w1.id, "srv-a"),
      server(w1.id, "srv-b"),
      server(w1.id, "srv-c"),
      server(w2.id, "srv-d")
    ]
    await run(Effect.flatMap(Effect.service(McpServerStore), (s) => Effect.forEach([a, b, c, d], s.insert)))
    const list = (
      workspaceId: string | null,
      ids: ReadonlyArray<string>,
      search: string | null = null,
      limit = 10,
      offset = 0
    ) =>
      run(
        Effect.flatMap(
          Effect.service(McpServerStore),
          (s) => s.list(org.id, workspaceId, search, { limit, offset }, ids)
        )
      )
    const named = (
      page: { readonly items: ReadonlyArray<McpServer>; readonly total: number }
    ) => [page.items.map((x) => x.slug), page.total]
    expect(named(await list(null, [c.id, a.id, d.id]))).toEqual([["srv-a", "srv-c", "srv-d"], 3])
    expect(named(await list(w1.id, [c.id, a.id, d.id]))).toEqual([["srv-a", "srv-c"], 2])
    expect(named(await list(null, [a.id, b.id, d.id], "SERVER SRV-B"))).toEqual([["srv-b"], 1])
    expect(named(await list(null, [a.id, b.id, d.id], null, 1, 1))).toEqual([["srv-b"], 3])
    expect(named(await list(null, [uid()]))).toEqual([[], 0])
    expect(named(await list(null, []))).toEqual([[], 0])
  })

  it("keeps integration totals exact through creates, archives, edits and rollbacks", async () => {
    const org = await freshOrganisation()
    const w1 = workspace(org.id)
    await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.insert(w1)))
    const make = (slug: string, workspaceId: string | null) =>
      mcpIntegration(org.id, slug, { workspace_id: workspaceId })
    const totals = () =>
      run(Effect.gen(function*() {
        const store = yield* McpIntegrationStore
        const total = (level: "all" | "workspace" | "organisation", status: "active" | "archived") =>
          Effect.map(
            store.list({ organisationId: org.id, usableBy: null, level, status, search: null }, {
              limit: 1,
              offset: 0
            }),
            (page) => page.total
          )
        return [
          yield* total("all", "active"),
          yield* total("organisation", "active"),
          yield* total("workspace", "active"),
          yield* total("all", "archived")
        ]
      }))
    const items = [make("a", null), make("b", null), make("c", w1.id)]
    await run(Effect.flatMap(Effect.service(McpIntegrationStore), (s) => Effect.forEach(items, s.insert)))
    expect(await totals()).toEqual([3, 2, 1, 0])
    const setStatus = (id: string, status: McpIntegration["status"], failures = 0) =>
      run(Effect.flatMap(
        Effect.service(McpIntegrationStore),
        (s) =>
          s.setStatus(id, { status, status_message: null, status_changed_at: at(), consecutive_failures: failures })
      ))
    expect(await setStatus(items[0].id, "archived")).toBe(true)
    expect(await totals()).toEqual([2, 1, 1, 1])
    // An unhealthy integration is still in use: listed, and counted, with the active ones.
    expect(await setStatus(items[2].id, "unhealthy")).toBe(true)
    expect(await totals()).toEqual([2, 1, 1, 1])
    // A write that moves no integration between totals (a failure count), then one that does.
    expect(await setStatus(items[2].id, "unhealthy", 5)).toBe(true)
    expect(await totals()).toEqual([2, 1, 1, 1])
    expect(await setStatus(items[1].id, "active", 2)).toBe(true)
    expect(await totals()).toEqual([2, 1, 1, 1])
    await run(Effect.flatMap(
      Effect.service(McpIntegrationStore),
      (s) => s.update(new McpIntegration({ ...items[1], description: "edited" }))
    ))
    expect(await totals()).toEqual([2, 1, 1, 1])
    await exit(Effect.gen(function*() {
      const transaction = yield* StoreTransaction
      const store = yield* McpIntegrationStore
      yield* transaction.withTransaction(Effect.andThen(store.insert(make("lost", null)), Effect.fail("boom")))
    }))
    expect(await totals()).toEqual([2, 1, 1, 1])
    expect(await setStatus(items[2].id, "archived")).toBe(true)
    expect(await totals()).toEqual([1, 1, 0, 2])
  })

  it("writes status and health apart from the definition, never reviving an archived integration", async () => {
    const org = await freshOrganisation()
    const made = mcpIntegration(org.id, "health")
    const other = mcpIntegration(org.id, "health-other")
    const store = Effect.service(McpIntegrationStore)
    await run(Effect.flatMap(store, (s) => Effect.forEach([made, other], s.insert)))
    const read = () => run(Effect.flatMap(store, (s) => s.get(made.id))).then(Option.getOrThrow)
    const change = {
      status: "unhealthy" as const,
      status_message: "connection refused",
      status_changed_at: at(),
      consecutive_failures: 3
    }
    expect(await run(Effect.flatMap(store, (s) => s.setStatus(made.id, change)))).toBe(true)
    expect(await read()).toMatchObject(change)
    // An edit made from a read taken before the check keeps the check's status.
    await run(Effect.flatMap(store, (s) => s.update(new McpIntegration({ ...made, name: "renamed" }))))
    expect(await read()).toMatchObject({ ...change, name: "renamed" })
    const inUse = await run(Effect.flatMap(store, (s) => s.listInUse(null, 100_000)))
    expect(inUse.map((i) => i.id)).toEqual(expect.arrayContaining([made.id, other.id]))
    const archived = {
      status: "archived" as const,
      status_message: null,
      status_changed_at: at(),
      consecutive_failures: 0
    }
    expect(await run(Effect.flatMap(store, (s) => s.setStatus(made.id, archived)))).toBe(true)
    expect(await run(Effect.flatMap(store, (s) => s.setStatus(made.id, change)))).toBe(false)
    expect(await read()).toMatchObject(archived)
    // Several at once (a health round's page): the archived one is passed over, and only the written are answered.
    const failing = { ...change, status: "active" as const, status_message: null, consecutive_failures: 1 }
    const written = await run(
      Effect.flatMap(
        store,
        (s) => s.setStatuses([{ id: made.id, change }, { id: other.id, change: failing }, { id: "gone", change }])
      )
    )
    expect([...written]).toEqual([other.id])
    expect(await read()).toMatchObject(archived)
    expect(Option.getOrThrow(await run(Effect.flatMap(store, (s) => s.get(other.id))))).toMatchObject(failing)
    expect([...await run(Effect.flatMap(store, (s) => s.setStatuses([])))]).toEqual([])
    const after = await run(Effect.flatMap(store, (s) => s.listInUse(null, 100_000)))
    expect(after.map((i) => i.id)).not.toContain(made.id)
    // Pages by id: each integration in use once, whichever order the store's collation gives ids.
    const ids = after.map((i) => i.id)
    const first = await run(Effect.flatMap(store, (s) => s.listInUse(null, 1)))
    const rest = await run(Effect.flatMap(store, (s) => s.listInUse(first[0].id, 100_000)))
    expect([...first, ...rest].map((i) => i.id)).toEqual(ids)
  })
}
