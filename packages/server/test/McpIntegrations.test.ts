import { ApiKeys } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { integration, useMcpServer } from "./support/McpServer.ts"
import { errorOf, jsonOf } from "./support/TestServer.ts"

const mcp = useMcpServer()
const { list, orgQuery, send } = mcp

describe("MCP integrations", () => {
  it("creates organisation-level and workspace-level integrations", async () => {
    const org = await send(
      "POST",
      "/v1/mcp-integrations",
      integration({ name: "Org Wide", slug: "org-wide", configurations: { region: "eu" } })
    )
    expect(org.status).toBe(201)
    expect(await jsonOf(org)).toMatchObject({ id: expect.any(String), slug: "org-wide" })
    const scoped = await send(
      "POST",
      "/v1/mcp-integrations",
      integration({ name: "Team Tool", slug: "team-tool" }),
      mcp.workspaceKey
    )
    expect(scoped.status).toBe(201)

    const listed = await jsonOf(await list(`${orgQuery()}&search=org-wide`))
    expect(listed.data[0]).toMatchObject({
      slug: "org-wide",
      workspace_id: null,
      status: "active",
      owner_id: mcp.server.ownerId,
      configurations: { region: "eu" },
      workspaces_count: 2,
      secret_mappings: []
    })
    const team = (await jsonOf(await list(`${orgQuery()}&search=team-tool`))).data[0]
    expect(team).toMatchObject({ workspace_id: mcp.server.workspaceId, workspaces_count: 1 })
  })

  it("refuses bad input naming the field, and duplicate slugs with 409", async () => {
    for (
      const [body, param] of [
        [integration({ url: "ftp://x" }), "url"],
        [integration({ url: "not a url" }), "url"],
        [integration({ auth_type: "magic" }), "auth_type"],
        [integration({ transport: "carrier-pigeon" }), "transport"],
        [integration({ slug: "bad slug" }), "slug"],
        [integration({ workspace_ids: ["no-such-workspace"], global_workspace_access: false }), "workspace_ids[0]"]
      ] as const
    ) {
      expect(await errorOf(await send("POST", "/v1/mcp-integrations", body))).toMatchObject({ status: 400, param })
    }
    await send("POST", "/v1/mcp-integrations", integration({ slug: "taken" }))
    expect((await errorOf(await send("POST", "/v1/mcp-integrations", integration({ slug: "taken" })))).status).toBe(409)
  })

  it("keeps workspace keys to workspace-level integrations in their own workspace", async () => {
    const own = await jsonOf(
      await send("POST", "/v1/mcp-integrations", integration({ slug: "own-level" }), mcp.workspaceKey)
    )
    const read = await jsonOf(await mcp.server.request(`/v1/mcp-integrations/${own.id}`))
    expect(read.workspace_id).toBe(mcp.server.workspaceId)
    const denied = await errorOf(
      await send(
        "POST",
        "/v1/mcp-integrations",
        integration({ slug: "nope", workspace_id: mcp.otherWorkspace }),
        mcp.workspaceKey
      )
    )
    // Another workspace is out of the key's sight: not found, as another organisation's would be.
    expect(denied.status).toBe(404)
  })

  it("lists by type: workspace, organisation, all", async () => {
    expect((await send("POST", "/v1/mcp-integrations", integration({ slug: "by-type-org" }))).status).toBe(201)
    expect(
      (await send("POST", "/v1/mcp-integrations", integration({ slug: "by-type-workspace" }), mcp.workspaceKey)).status
    ).toBe(201)
    const all = await jsonOf(await list(`${orgQuery()}&type=all&page_size=1000`))
    const workspaceLevel = await jsonOf(await list(`${orgQuery()}&type=workspace&page_size=1000`))
    const organisationLevel = await jsonOf(await list(`${orgQuery()}&type=organisation&page_size=1000`))
    expect(workspaceLevel.data.every((i: { workspace_id: string | null }) => i.workspace_id !== null)).toBe(true)
    expect(organisationLevel.data.every((i: { workspace_id: string | null }) => i.workspace_id === null)).toBe(true)
    expect(workspaceLevel.total + organisationLevel.total).toBe(all.total)
    expect(workspaceLevel.total).toBeGreaterThan(0)
    expect(organisationLevel.total).toBeGreaterThan(0)
  })

  it("pages by the store with exact totals, in creation order, without overlap", async () => {
    const prefix = "paged-item"
    for (let i = 0; i < 7; i++) {
      expect(
        (await send("POST", "/v1/mcp-integrations", integration({ name: `${prefix} ${i}`, slug: `${prefix}-${i}` })))
          .status
      ).toBe(201)
    }
    const pages = []
    for (let page = 0; page < 4; page++) {
      pages.push(await jsonOf(await list(`${orgQuery()}&search=${prefix}&page_size=3&current_page=${page}`)))
    }
    expect(pages.map((p) => p.total)).toEqual([7, 7, 7, 7])
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false, false])
    expect(pages.map((p) => p.data.length)).toEqual([3, 3, 1, 0])
    expect(pages.flatMap((p) => p.data.map((i: { slug: string }) => i.slug))).toEqual(
      Array.from({ length: 7 }, (_, i) => `${prefix}-${i}`)
    )
  })

  it("searches name and slug case-insensitively", async () => {
    const made = await send("POST", "/v1/mcp-integrations", integration({ name: "Case Probe", slug: "case-probe" }))
    expect(made.status).toBe(201)
    const byName = await jsonOf(await list(`${orgQuery()}&search=CASE PROBE`))
    expect(byName.data.map((i: { slug: string }) => i.slug)).toEqual(["case-probe"])
    const bySlug = await jsonOf(await list(`${orgQuery()}&search=CASE-PROBE`))
    expect(bySlug.data.map((i: { slug: string }) => i.slug)).toEqual(["case-probe"])
  })

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
    expect((await send("POST", "/v1/mcp-integrations", integration({ slug: "bounds-probe" }))).status).toBe(201)
    expect((await list(`${orgQuery()}&page_size=1`)).status).toBe(200)
    expect((await list(`${orgQuery()}&page_size=1000&current_page=0`)).status).toBe(200)
    const far = await jsonOf(await list(`${orgQuery()}&current_page=100000`))
    expect(far.data).toEqual([])
    expect(far.total).toBeGreaterThan(0)
  })

  it("needs organisation_id with an admin key, and hides another organisation's", async () => {
    expect(await errorOf(await list(""))).toMatchObject({ status: 400, param: "organisation_id" })
    expect((await errorOf(await list("organisation_id=someone-else"))).status).toBe(404)
    const created = await send("POST", "/v1/mcp-integrations", { ...integration(), organisation_id: "someone-else" })
    expect((await errorOf(created)).status).toBe(404)
  })

  it("shows a workspace key its own and the organisation-level ones open to it, nothing else", async () => {
    expect((await send("POST", "/v1/mcp-integrations", integration({ slug: "open-to-all" }))).status).toBe(201)
    expect(
      (await send("POST", "/v1/mcp-integrations", integration({ slug: "ours" }), mcp.workspaceKey)).status
    ).toBe(201)
    const restricted = await jsonOf(
      await send(
        "POST",
        "/v1/mcp-integrations",
        integration({
          name: "Restricted",
          slug: "restricted",
          global_workspace_access: false,
          workspace_ids: [mcp.otherWorkspace]
        })
      )
    )
    await send("POST", "/v1/mcp-integrations", integration({ name: "Theirs", slug: "theirs" }), mcp.otherWorkspaceKey)
    const mine = await jsonOf(await list("page_size=1000", mcp.workspaceKey))
    const slugs = mine.data.map((i: { slug: string }) => i.slug)
    expect(slugs).toContain("ours")
    expect(slugs).toContain("open-to-all")
    expect(slugs).not.toContain("restricted")
    expect(slugs).not.toContain("theirs")
    const theirs = (await jsonOf(await list("page_size=1000", mcp.otherWorkspaceKey))).data.map((i: { slug: string }) =>
      i.slug
    )
    expect(theirs).toContain("restricted")
    expect((await jsonOf(await list(`${orgQuery()}&search=restricted`))).data[0].workspaces_count).toBe(1)
    // What the key cannot see answers 404, by id or by slug.
    expect((await errorOf(await list(`workspace_id=${mcp.otherWorkspace}`, mcp.workspaceKey))).status).toBe(404)
    expect(
      (await errorOf(await mcp.server.request(`/v1/mcp-integrations/${restricted.id}`, { key: mcp.workspaceKey })))
        .status
    )
      .toBe(404)
    expect(
      (await errorOf(await mcp.server.request("/v1/mcp-integrations/restricted", { key: mcp.workspaceKey }))).status
    )
      .toBe(404)
    expect(
      (await errorOf(await send("PUT", `/v1/mcp-integrations/${restricted.id}`, { name: "X" }, mcp.workspaceKey)))
        .status
    )
      .toBe(404)
  })

  it("lets only owners and admins update or archive an organisation-level integration, as only they create one", async () => {
    const org = await jsonOf(await send("POST", "/v1/mcp-integrations", integration({ slug: "admins-only" })))
    const member = await jsonOf(
      await send("POST", "/v1/users", { email: `member-${org.id}@example.com`, role: "member" })
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
    const created = await send("POST", "/v1/mcp-integrations", integration({ slug: "by-member" }), memberAdminKey)
    expect((await errorOf(created)).status).toBe(403)
    const updated = await send("PUT", `/v1/mcp-integrations/${org.id}`, { name: "Renamed" }, memberAdminKey)
    expect((await errorOf(updated)).status).toBe(403)
    const archived = await send("DELETE", `/v1/mcp-integrations/${org.id}`, undefined, memberAdminKey)
    expect((await errorOf(archived)).status).toBe(403)
    // A workspace key sees an organisation-level integration open to it, and may not change it.
    const byWorkspaceKey = await send("PUT", `/v1/mcp-integrations/${org.id}`, { name: "Renamed" }, mcp.workspaceKey)
    expect((await errorOf(byWorkspaceKey)).status).toBe(403)
    expect((await jsonOf(await mcp.server.request(`/v1/mcp-integrations/${org.id}`))).name).toBe("Linear")
  })

  it("archives on DELETE: hidden from lists unless status=archived", async () => {
    const created = await jsonOf(
      await send("POST", "/v1/mcp-integrations", integration({ name: "Old", slug: "old-one" }))
    )
    const archived = await jsonOf(await send("DELETE", `/v1/mcp-integrations/${created.id}`, undefined))
    expect(archived.status).toBe("archived")
    expect((await jsonOf(await list(`${orgQuery()}&search=old-one`))).data).toEqual([])
    expect((await jsonOf(await list(`${orgQuery()}&search=old-one&status=archived`))).data).toHaveLength(1)
    const updated = await jsonOf(
      await send("PUT", `/v1/mcp-integrations/${created.id}`, { description: "kept for the record" })
    )
    expect(updated).toMatchObject({ description: "kept for the record", status: "archived" })
  })
})
