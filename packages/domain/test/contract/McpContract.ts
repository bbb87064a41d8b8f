/**
 * The store contract for the MCP registry: integrations and servers.
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { WorkspaceStore } from "../../src/access/AccessStores.ts"
import { McpIntegration, McpIntegrationStore, McpServer, McpServerStore } from "../../src/index.ts"
import { StoreTransaction } from "../../src/shared/StoreTransaction.ts"
import { at, type Harness, uid, workspace } from "./ContractHarness.ts"

export const mcpContract = ({ exit, freshOrganisation, run }: Harness) => {
  it("queries MCP integrations by level, visibility, status and search, paged in creation order", async () => {
    const org = await freshOrganisation()
    const [w1, w2] = [workspace(org.id), workspace(org.id)]
    await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => Effect.forEach([w1, w2], s.insert)))
    const make = (slug: string, fields: Readonly<Record<string, unknown>> = {}) => {
      const now = at()
      return new McpIntegration({
        id: uid(),
        organisation_id: org.id,
        name: `Integration ${slug.toUpperCase()}`,
        slug,
        owner_id: null,
        status: "active",
        url: "https://mcp.example.com",
        description: null,
        workspace_id: null,
        configurations: { a: 1 },
        auth_type: "none",
        transport: "http",
        global_workspace_access: true,
        workspace_ids: [],
        secret_mappings: [{ target_field: "t", secret_reference_id: "s", secret_key: "k", value_format: "string" }],
        created_at: now,
        last_updated_at: now,
        ...fields
      })
    }
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
  })

  it("keeps integration totals exact through creates, archives, edits and rollbacks", async () => {
    const org = await freshOrganisation()
    const w1 = workspace(org.id)
    await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.insert(w1)))
    const make = (slug: string, workspaceId: string | null) =>
      new McpIntegration({
        id: uid(),
        organisation_id: org.id,
        name: slug,
        slug,
        owner_id: null,
        status: "active",
        url: "https://mcp.example.com",
        description: null,
        workspace_id: workspaceId,
        configurations: {},
        auth_type: "none",
        transport: "http",
        global_workspace_access: true,
        workspace_ids: [],
        secret_mappings: [],
        created_at: at(),
        last_updated_at: at()
      })
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
    await run(Effect.flatMap(
      Effect.service(McpIntegrationStore),
      (s) => s.update(new McpIntegration({ ...items[0], status: "archived" }))
    ))
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
  })
}
