import { ApiKeys, McpIntegration, McpIntegrationStore, SERVER_CACHE_TTL_MS } from "@gateway-control/domain"
import { Effect, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeMovableClock } from "./support/MovableClock.ts"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

let server: TestServer
let otherWorkspace: string
let workspaceKey: string
let userKey: string
let otherWorkspaceKey: string

const send = (method: string, path: string, body: unknown, key?: string) => server.send(method, path, body, key)

const integration = (overrides: Record<string, unknown> = {}) => ({
  name: "Linear",
  url: "https://mcp.linear.app/sse",
  auth_type: "oauth_auto",
  transport: "sse",
  ...overrides
})

const workspaceScopes = [
  "workspace_mcp_integrations.create",
  "workspace_mcp_integrations.read",
  "workspace_mcp_integrations.list",
  "mcp_servers.create",
  "mcp_servers.read",
  "mcp_servers.list"
]

const issue = (type: "workspace-service" | "workspace-user", workspaceId: string, userId: string | null) =>
  server.runtime.runPromise(Effect.flatMap(Effect.service(ApiKeys), (keys) =>
    keys.issue({
      type,
      name: type,
      description: null,
      organisationId: server.organisationId,
      workspaceId,
      userId,
      scopes: workspaceScopes as any,
      expiresAt: null
    }))).then((issued) => Redacted.value(issued.plaintext))

beforeAll(async () => {
  server = await startTestServer()
  otherWorkspace = (await jsonOf(await send("POST", "/v1/workspaces", { name: "Other team" }))).id
  workspaceKey = await issue("workspace-service", server.workspaceId, null)
  userKey = await issue("workspace-user", server.workspaceId, server.ownerId)
  otherWorkspaceKey = await issue("workspace-service", otherWorkspace, null)
})
afterAll(() => server.close())

const list = (query: string, key?: string) => server.request(`/v1/mcp-integrations?${query}`, { key })
const orgQuery = () => `organisation_id=${server.organisationId}`

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
      workspaceKey
    )
    expect(scoped.status).toBe(201)

    const listed = await jsonOf(await list(`${orgQuery()}&search=org-wide`))
    expect(listed.data[0]).toMatchObject({
      slug: "org-wide",
      workspace_id: null,
      status: "active",
      owner_id: server.ownerId,
      configurations: { region: "eu" },
      workspaces_count: 2,
      secret_mappings: []
    })
    const team = (await jsonOf(await list(`${orgQuery()}&search=team-tool`))).data[0]
    expect(team).toMatchObject({ workspace_id: server.workspaceId, workspaces_count: 1 })
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
      await send("POST", "/v1/mcp-integrations", integration({ slug: "own-level" }), workspaceKey)
    )
    const read = await jsonOf(await server.request(`/v1/mcp-integrations/${own.id}`))
    expect(read.workspace_id).toBe(server.workspaceId)
    const denied = await errorOf(
      await send(
        "POST",
        "/v1/mcp-integrations",
        integration({ slug: "nope", workspace_id: otherWorkspace }),
        workspaceKey
      )
    )
    // Another workspace is out of the key's sight: not found, as another organisation's would be.
    expect(denied.status).toBe(404)
  })

  it("lists by type: workspace, organisation, all", async () => {
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
    const found = await jsonOf(await list(`${orgQuery()}&search=PAGED-ITEM 3`))
    expect(found.data.map((i: { slug: string }) => i.slug)).toEqual(["paged-item-3"])
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
    const restricted = await jsonOf(
      await send(
        "POST",
        "/v1/mcp-integrations",
        integration({
          name: "Restricted",
          slug: "restricted",
          global_workspace_access: false,
          workspace_ids: [otherWorkspace]
        })
      )
    )
    await send("POST", "/v1/mcp-integrations", integration({ name: "Theirs", slug: "theirs" }), otherWorkspaceKey)
    const mine = await jsonOf(await list("page_size=1000", workspaceKey))
    const slugs = mine.data.map((i: { slug: string }) => i.slug)
    expect(slugs).toContain("team-tool")
    expect(slugs).toContain("org-wide")
    expect(slugs).not.toContain("restricted")
    expect(slugs).not.toContain("theirs")
    const theirs = (await jsonOf(await list("page_size=1000", otherWorkspaceKey))).data.map((i: { slug: string }) =>
      i.slug
    )
    expect(theirs).toContain("restricted")
    expect((await jsonOf(await list(`${orgQuery()}&search=restricted`))).data[0].workspaces_count).toBe(1)
    // What the key cannot see answers 404, by id or by slug.
    expect((await errorOf(await list(`workspace_id=${otherWorkspace}`, workspaceKey))).status).toBe(404)
    expect((await errorOf(await server.request(`/v1/mcp-integrations/${restricted.id}`, { key: workspaceKey }))).status)
      .toBe(404)
    expect((await errorOf(await server.request("/v1/mcp-integrations/restricted", { key: workspaceKey }))).status)
      .toBe(404)
    expect(
      (await errorOf(await send("PUT", `/v1/mcp-integrations/${restricted.id}`, { name: "X" }, workspaceKey))).status
    )
      .toBe(404)
  })

  it("lets only owners and admins update or archive an organisation-level integration, as only they create one", async () => {
    const org = await jsonOf(await send("POST", "/v1/mcp-integrations", integration({ slug: "admins-only" })))
    const member = await jsonOf(
      await send("POST", "/v1/users", { email: `member-${org.id}@example.com`, role: "member" })
    )
    const memberAdminKey = await server.runtime.runPromise(
      Effect.flatMap(Effect.service(ApiKeys), (keys) =>
        keys.issue({
          type: "organisation-service",
          name: "member's admin key",
          description: null,
          organisationId: server.organisationId,
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
    const byWorkspaceKey = await send("PUT", `/v1/mcp-integrations/${org.id}`, { name: "Renamed" }, workspaceKey)
    expect((await errorOf(byWorkspaceKey)).status).toBe(403)
    expect((await jsonOf(await server.request(`/v1/mcp-integrations/${org.id}`))).name).toBe("Linear")
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

describe("MCP servers", () => {
  let serverId: string
  // The integration and server these tests read, made here rather than taken from the tests above.
  beforeAll(async () => {
    const made = await send("POST", "/v1/mcp-integrations", integration({ name: "For servers", slug: "for-servers" }))
    expect(made.status).toBe(201)
    const created = await send("POST", "/v1/mcp-servers", {
      name: "Linear for us",
      mcp_integration_id: "for-servers",
      workspace_id: server.workspaceId,
      slug: "linear-us",
      description: "The team's Linear"
    })
    expect(created.status).toBe(201)
    serverId = (await jsonOf(created)).id
  })

  it("gets a server by UUID and by slug, with the integration's details for service keys only", async () => {
    const byId = await jsonOf(await server.request(`/v1/mcp-servers/${serverId}`))
    expect(byId).toMatchObject({
      id: serverId,
      slug: "linear-us",
      name: "Linear for us",
      status: "active",
      workspace_id: server.workspaceId,
      mcp_integration_details: {
        slug: "for-servers",
        url: "https://mcp.linear.app/sse",
        transport: "sse",
        auth_type: "oauth_auto"
      }
    })
    expect(byId.mcp_integration_id).toBe(byId.mcp_integration_details.id)
    const bySlug = await jsonOf(await server.request(`/v1/mcp-servers/linear-us`, { key: workspaceKey }))
    expect(bySlug.id).toBe(serverId)
    expect(bySlug).toHaveProperty("mcp_integration_details")
    const forUser = await jsonOf(await server.request(`/v1/mcp-servers/linear-us`, { key: userKey }))
    expect(forUser.id).toBe(serverId)
    expect(forUser).not.toHaveProperty("mcp_integration_details")
    const adminBySlug = await jsonOf(
      await server.request(`/v1/mcp-servers/linear-us?workspace_id=${server.workspaceId}`)
    )
    expect(adminBySlug.id).toBe(serverId)
  })

  it("shows an integration change at once, and one made by another process within the cache's lifetime", async () => {
    // A server of its own, on a clock the test moves: the cache's lifetime passes without waiting it out.
    const time = makeMovableClock()
    const own = await startTestServer({ clock: time.clock })
    try {
      const created = await jsonOf(await own.send("POST", "/v1/mcp-integrations", integration({ name: "Cached" })))
      const made = await jsonOf(
        await own.send("POST", "/v1/mcp-servers", {
          name: "Cached server",
          mcp_integration_id: created.id,
          workspace_id: own.workspaceId
        })
      )
      const urlOf = async () =>
        (await jsonOf(await own.request(`/v1/mcp-servers/${made.id}`))).mcp_integration_details.url
      expect(await urlOf()).toBe("https://mcp.linear.app/sse")
      await own.send("PUT", `/v1/mcp-integrations/${created.id}`, { url: "https://mcp.example.com/v2" })
      expect(await urlOf()).toBe("https://mcp.example.com/v2")
      // Another process changes the shared store; this one sees it when its cache entry lapses.
      await own.runtime.runPromise(Effect.gen(function*() {
        const store = yield* McpIntegrationStore
        const current = Option.getOrThrow(yield* store.get(created.id))
        yield* store.update(new McpIntegration({ ...current, url: "https://mcp.example.com/v3" }))
      }))
      expect(await urlOf()).toBe("https://mcp.example.com/v2")
      time.advance(SERVER_CACHE_TTL_MS)
      expect(await urlOf()).toBe("https://mcp.example.com/v3")
    } finally {
      await own.close()
    }
  })

  it("answers 404 for unknown servers and for another workspace's, by id or by slug", async () => {
    expect((await errorOf(await server.request("/v1/mcp-servers/no-such-server"))).status).toBe(404)
    expect((await errorOf(await server.request(`/v1/mcp-servers/${serverId}`, { key: otherWorkspaceKey }))).status)
      .toBe(404)
    const bySlug = await server.request(`/v1/mcp-servers/linear-us?workspace_id=${server.workspaceId}`, {
      key: otherWorkspaceKey
    })
    expect((await errorOf(bySlug)).status).toBe(404)
  })

  it("refuses an integration the workspace may not use, naming it", async () => {
    const closed = integration({
      name: "Closed to us",
      slug: "closed-to-us",
      global_workspace_access: false,
      workspace_ids: [otherWorkspace]
    })
    expect((await send("POST", "/v1/mcp-integrations", closed)).status).toBe(201)
    const error = await errorOf(
      await send("POST", "/v1/mcp-servers", { name: "Nope", mcp_integration_id: "closed-to-us" }, workspaceKey)
    )
    expect(error).toMatchObject({ status: 400, param: "mcp_integration_id" })
    expect(error.message).toContain("closed-to-us")
    expect(
      (await errorOf(
        await send(
          "POST",
          "/v1/mcp-servers",
          { name: "ab", mcp_integration_id: "for-servers", slug: "ab" },
          workspaceKey
        )
      )).param
    ).toBe("slug")
    expect(
      (await errorOf(
        await send(
          "POST",
          "/v1/mcp-servers",
          { name: "x".repeat(256), mcp_integration_id: "for-servers" },
          workspaceKey
        )
      )).param
    ).toBe("name")
  })

  it("lists servers of a workspace, with search", async () => {
    const listed = await jsonOf(await server.request("/v1/mcp-servers?search=LINEAR", { key: workspaceKey }))
    expect(listed).toMatchObject({ total: 1, has_more: false })
    expect((await jsonOf(await server.request("/v1/mcp-servers", { key: otherWorkspaceKey }))).total).toBe(0)
  })
})

describe("the audit log", () => {
  it("records the creates of integrations and servers, and refusals", async () => {
    const made = await jsonOf(
      await send("POST", "/v1/mcp-integrations", integration({ name: "Audited", slug: "audited" }))
    )
    await send("POST", "/v1/mcp-servers", {
      name: "Audited server",
      mcp_integration_id: made.id,
      workspace_id: server.workspaceId
    })
    await send(
      "POST",
      "/v1/mcp-integrations",
      integration({ slug: "refused", workspace_id: otherWorkspace }),
      workspaceKey
    )
    const records = (await jsonOf(await server.request("/v1/audit-logs?page_size=1000"))).records as Array<
      Record<string, any>
    >
    const created = records.filter((r) => r.action === "create" && r.response_status_code === 201)
    expect(created.some((r) => r.resource_type === "mcp_integration")).toBe(true)
    expect(created.some((r) => r.resource_type === "mcp_server")).toBe(true)
    expect(records.some((r) => r.resource_type === "mcp_integration" && r.response_status_code === 404)).toBe(true)
  })
})
