import type { GatewayControlClientShape } from "@gateway-control/client"
import { ApiKeys } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { createIntegration, integration, useMcpServer } from "./support/McpServer.ts"
import { errorOf } from "./support/TestServer.ts"

// JSON calls go through the typed client: a success must have its declared status and shape, and a refusal's
// `_tag` stands for its status (`ConflictError` 409, `NotFoundError` 404, ...). Raw HTTP is left for input the
// client's schemas would refuse before sending it.
const mcp = useMcpServer()
const { api, refusal, listIntegrations, list, orgQuery, send } = mcp

describe("MCP integrations", () => {
  it("creates organisation-level and workspace-level integrations", async () => {
    const org = await api(
      createIntegration(integration({ name: "Org Wide", slug: "org-wide", configurations: { region: "eu" } }))
    )
    expect(org).toMatchObject({ id: expect.any(String), slug: "org-wide" })
    await api(createIntegration(integration({ name: "Team Tool", slug: "team-tool" })), mcp.workspaceKey)

    const listed = await api(listIntegrations({ search: "org-wide" }))
    expect(listed.data[0]).toMatchObject({
      slug: "org-wide",
      workspace_id: null,
      status: "active",
      owner_id: mcp.server.ownerId,
      configurations: { region: "eu" },
      workspaces_count: 2,
      secret_mappings: []
    })
    const team = (await api(listIntegrations({ search: "team-tool" }))).data[0]
    expect(team).toMatchObject({ workspace_id: mcp.server.workspaceId, workspaces_count: 1 })
  })

  it("refuses bad input naming the field, and duplicate slugs with 409", async () => {
    // Raw HTTP: some of this input (an unknown auth_type or transport) the client's schemas would not send.
    for (
      const [body, param] of [
        [integration({ url: "ftp://x" }), "url"],
        [integration({ url: "not a url" }), "url"],
        [{ ...integration(), auth_type: "magic" }, "auth_type"],
        [{ ...integration(), transport: "carrier-pigeon" }, "transport"],
        [integration({ slug: "bad slug" }), "slug"],
        [integration({ workspace_ids: ["no-such-workspace"], global_workspace_access: false }), "workspace_ids[0]"]
      ] as const
    ) {
      expect(await errorOf(await send("POST", "/v1/mcp-integrations", body))).toMatchObject({ status: 400, param })
    }
    await api(createIntegration(integration({ slug: "taken" })))
    expect((await refusal(createIntegration(integration({ slug: "taken" }))))._tag).toBe("ConflictError")
  })

  it("keeps workspace keys to workspace-level integrations in their own workspace", async () => {
    const own = await api(createIntegration(integration({ slug: "own-level" })), mcp.workspaceKey)
    const read = await api((client) => client.mcpRegistry.getIntegration({ params: { id: own.id } }))
    expect(read.workspace_id).toBe(mcp.server.workspaceId)
    const denied = await refusal(
      createIntegration(integration({ slug: "nope", workspace_id: mcp.otherWorkspace })),
      mcp.workspaceKey
    )
    // Another workspace is out of the key's sight: not found, as another organisation's would be.
    expect(denied._tag).toBe("NotFoundError")
  })

  it("lists by type: workspace, organisation, all", async () => {
    await api(createIntegration(integration({ slug: "by-type-org" })))
    await api(createIntegration(integration({ slug: "by-type-workspace" })), mcp.workspaceKey)
    const all = await api(listIntegrations({ type: "all", page_size: 1000 }))
    const workspaceLevel = await api(listIntegrations({ type: "workspace", page_size: 1000 }))
    const organisationLevel = await api(listIntegrations({ type: "organisation", page_size: 1000 }))
    expect(workspaceLevel.data.every((i) => i.workspace_id !== null)).toBe(true)
    expect(organisationLevel.data.every((i) => i.workspace_id === null)).toBe(true)
    expect(workspaceLevel.total + organisationLevel.total).toBe(all.total)
    expect(workspaceLevel.total).toBeGreaterThan(0)
    expect(organisationLevel.total).toBeGreaterThan(0)
  })

  it("pages by the store with exact totals, in creation order, without overlap", async () => {
    const prefix = "paged-item"
    for (let i = 0; i < 7; i++) {
      await api(createIntegration(integration({ name: `${prefix} ${i}`, slug: `${prefix}-${i}` })))
    }
    const pages = []
    for (let page = 0; page < 4; page++) {
      pages.push(await api(listIntegrations({ search: prefix, page_size: 3, current_page: page })))
    }
    expect(pages.map((p) => p.total)).toEqual([7, 7, 7, 7])
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false, false])
    expect(pages.map((p) => p.data.length)).toEqual([3, 3, 1, 0])
    expect(pages.flatMap((p) => p.data.map((i) => i.slug))).toEqual(
      Array.from({ length: 7 }, (_, i) => `${prefix}-${i}`)
    )
  })

  it("searches name and slug case-insensitively", async () => {
    await api(createIntegration(integration({ name: "Case Probe", slug: "case-probe" })))
    const byName = await api(listIntegrations({ search: "CASE PROBE" }))
    expect(byName.data.map((i) => i.slug)).toEqual(["case-probe"])
    const bySlug = await api(listIntegrations({ search: "CASE-PROBE" }))
    expect(bySlug.data.map((i) => i.slug)).toEqual(["case-probe"])
  })

  // Raw HTTP: query values the client's schemas would not send.
  it.each([
    ["page_size=0", "page_size"],
    ["page_size=1001", "page_size"],
    ["page_size=ten", "page_size"],
    ["current_page=-1", "current_page"],
    ["current_page=1.5", "current_page"],
    ["type=everything", "type"]
  ])("refuses %s naming the parameter", async (query, param) => {
    expect(await errorOf(await list(`${orgQuery()}&${query}`))).toMatchObject({
      status: 400,
      code: "invalid_request",
      param
    })
  })

  it("accepts the bounds of page_size and current_page", async () => {
    await api(createIntegration(integration({ slug: "bounds-probe" })))
    await api(listIntegrations({ page_size: 1 }))
    await api(listIntegrations({ page_size: 1000, current_page: 0 }))
    const far = await api(listIntegrations({ current_page: 100000 }))
    expect(far.data).toEqual([])
    expect(far.total).toBeGreaterThan(0)
  })

  it("needs organisation_id with an admin key, and hides another organisation's", async () => {
    const unnamed = await refusal((client) => client.mcpRegistry.listIntegrations({ query: {} }))
    expect(unnamed).toMatchObject({ _tag: "BadRequest", param: "organisation_id" })
    expect((await refusal(listIntegrations({ organisation_id: "someone-else" })))._tag).toBe("NotFoundError")
    const created = await refusal(createIntegration({ ...integration(), organisation_id: "someone-else" }))
    expect(created._tag).toBe("NotFoundError")
  })

  it("shows a workspace key its own and the organisation-level ones open to it, nothing else", async () => {
    await api(createIntegration(integration({ slug: "open-to-all" })))
    await api(createIntegration(integration({ slug: "ours" })), mcp.workspaceKey)
    const restricted = await api(createIntegration(integration({
      name: "Restricted",
      slug: "restricted",
      global_workspace_access: false,
      workspace_ids: [mcp.otherWorkspace]
    })))
    await api(createIntegration(integration({ name: "Theirs", slug: "theirs" })), mcp.otherWorkspaceKey)
    const slugsFor = async (key: string) =>
      (await api((client) => client.mcpRegistry.listIntegrations({ query: { page_size: 1000 } }), key)).data.map((i) =>
        i.slug
      )
    const slugs = await slugsFor(mcp.workspaceKey)
    expect(slugs).toContain("ours")
    expect(slugs).toContain("open-to-all")
    expect(slugs).not.toContain("restricted")
    expect(slugs).not.toContain("theirs")
    expect(await slugsFor(mcp.otherWorkspaceKey)).toContain("restricted")
    expect((await api(listIntegrations({ search: "restricted" }))).data[0].workspaces_count).toBe(1)
    // What the key cannot see answers 404, by id or by slug.
    const hidden = [
      await refusal(
        (client) => client.mcpRegistry.listIntegrations({ query: { workspace_id: mcp.otherWorkspace } }),
        mcp.workspaceKey
      ),
      await refusal((client) => client.mcpRegistry.getIntegration({ params: { id: restricted.id } }), mcp.workspaceKey),
      await refusal((client) => client.mcpRegistry.getIntegration({ params: { id: "restricted" } }), mcp.workspaceKey),
      await refusal(
        (client) => client.mcpRegistry.updateIntegration({ params: { id: restricted.id }, payload: { name: "X" } }),
        mcp.workspaceKey
      )
    ]
    expect(hidden.map((refused) => refused._tag)).toEqual(Array(4).fill("NotFoundError"))
  })

  it("lets only owners and admins update or archive an organisation-level integration, as only they create one", async () => {
    const org = await api(createIntegration(integration({ slug: "admins-only" })))
    const member = await api((client) =>
      client.users.create({ payload: { email: `member-${org.id}@example.com`, role: "member" } })
    )
    const memberAdminKey = await mcp.server.runtime.runPromise(
      Effect.flatMap(Effect.service(ApiKeys), (keys) =>
        keys.issue({
          type: "organisation-service",
          name: "member's admin key",
          description: null,
          organisationId: mcp.server.organisationId,
          workspaceId: null,
          userId: member.id,
          scopes: ["organisation_mcp_integrations.create", "organisation_mcp_integrations.read"],
          expiresAt: null
        }))
    ).then((issued) => Redacted.value(issued.plaintext))
    const rename = (client: GatewayControlClientShape) =>
      client.mcpRegistry.updateIntegration({ params: { id: org.id }, payload: { name: "Renamed" } })
    const refusals = [
      await refusal(createIntegration(integration({ slug: "by-member" })), memberAdminKey),
      await refusal(rename, memberAdminKey),
      await refusal((client) => client.mcpRegistry.archiveIntegration({ params: { id: org.id } }), memberAdminKey),
      // A workspace key sees an organisation-level integration open to it, and may not change it.
      await refusal(rename, mcp.workspaceKey)
    ]
    expect(refusals.map((refused) => refused._tag)).toEqual(Array(4).fill("ForbiddenError"))
    expect((await api((client) => client.mcpRegistry.getIntegration({ params: { id: org.id } }))).name).toBe("Linear")
  })

  it("archives on DELETE: hidden from lists unless status=archived", async () => {
    const created = await api(createIntegration(integration({ name: "Old", slug: "old-one" })))
    const archived = await api((client) => client.mcpRegistry.archiveIntegration({ params: { id: created.id } }))
    expect(archived.status).toBe("archived")
    expect((await api(listIntegrations({ search: "old-one" }))).data).toEqual([])
    expect((await api(listIntegrations({ search: "old-one", status: "archived" }))).data).toHaveLength(1)
    const updated = await api((client) =>
      client.mcpRegistry.updateIntegration({
        params: { id: created.id },
        payload: { description: "kept for the record" }
      })
    )
    expect(updated).toMatchObject({ description: "kept for the record", status: "archived" })
  })
})
