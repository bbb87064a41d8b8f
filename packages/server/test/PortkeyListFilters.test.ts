/**
 * The list filters Portkey documents are acted on, not ignored: users (`role`, `email`), workspace users
 * (`role`, `email`; Portkey's `admin` is our `manager`) and workspaces (`name`, `exact_name`, `status`), through
 * Portkey's Node SDK at its defaults; a value outside the document's is refused by name. A walk of Portkey's
 * document checks that every query parameter of these families' operations is declared by ours (so it is read),
 * except those listed in `NOT_YET_READ`, which the README names as open.
 */
import { Portkey } from "portkey-ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkPortkeyAnswer, readPortkeyOpenApi } from "./support/PortkeyOpenApi.ts"
import { availableStores, errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const ids = (list: { readonly data?: ReadonlyArray<unknown> }) =>
  (list.data ?? []).map((item) => (item as { id: string }).id)

describe.each(availableStores)("Portkey's list filters on %s", (store) => {
  let server: TestServer
  let admin: Portkey
  let ada: string
  let grace: string

  beforeAll(async () => {
    server = await startTestServer({ store })
    admin = new Portkey({ apiKey: server.adminKey, baseURL: `${server.baseUrl}/v1` })
    const user = async (email: string, role: string) =>
      (await jsonOf(await server.send("POST", "/v1/users", { email, role }))).id as string
    ada = await user("ada@filters.test", "admin")
    grace = await user("grace@filters.test", "member")
    await admin.admin.workspaces.users.create({
      workspaceId: server.workspaceId,
      users: [{ id: ada, role: "admin" }, { id: grace, role: "member" }]
    })
  })
  afterAll(() => server.close())

  it("users: role and email", async () => {
    const admins = await admin.admin.users.list({ role: "admin" })
    checkPortkeyAnswer("GET", "/admin/users", admins)
    expect(ids(admins)).toEqual([ada])
    expect(ids(await admin.admin.users.list({ email: "GRACE@filters.test" }))).toEqual([grace])
    expect(ids(await admin.admin.users.list({ role: "owner", email: "grace@filters.test" }))).toEqual([])
    const refused = await errorOf(await server.request("/v1/admin/users?role=superuser"))
    expect(refused).toMatchObject({ status: 400, param: "role" })
  })

  it("workspace users: role (admin is manager) and email", async () => {
    const managers = await admin.admin.workspaces.users.list({ workspaceId: server.workspaceId, role: "admin" })
    checkPortkeyAnswer("GET", "/admin/workspaces/{workspaceId}/users", managers)
    expect(ids(managers)).toContain(ada)
    expect(ids(managers)).not.toContain(grace)
    const members = await admin.admin.workspaces.users.list({
      workspaceId: server.workspaceId,
      role: "member",
      email: "grace@filters.test"
    })
    expect(ids(members)).toEqual([grace])
    expect((members as { total?: number }).total).toBe(1)
  })

  it("prompts: search (name or slug, any case)", async () => {
    for (const name of ["Refund helper", "Shipping helper", "Greeter"]) {
      await jsonOf(
        await server.send("POST", "/v1/prompts", {
          name,
          string: "Hi",
          model: "gpt-4o",
          workspace_id: server.workspaceId
        })
      )
    }
    const found = await admin.prompts.list({ search: "HELPER", workspace_id: server.workspaceId })
    checkPortkeyAnswer("GET", "/prompts", found)
    expect((found.data as Array<{ name: string }>).map((p) => p.name).sort()).toEqual([
      "Refund helper",
      "Shipping helper"
    ])
    const paged = await jsonOf(
      await server.request(`/v1/prompts?search=helper&page_size=1&workspace_id=${server.workspaceId}`)
    )
    expect(paged).toMatchObject({ total: 2, has_more: true })
  })

  it("labels: search (part of the name, any case), built-in labels included", async () => {
    await server.send("POST", "/v1/labels", { name: "prod-eu", workspace_id: server.workspaceId })
    const found = await jsonOf(await server.request(`/v1/labels?search=PROD&workspace_id=${server.workspaceId}`))
    checkPortkeyAnswer("GET", "/labels", found)
    expect(found.data.map((l: { name: string }) => l.name)).toEqual(["production", "prod-eu"])
    expect(found.total).toBe(2)
  })

  it("MCP servers: id (comma-separated)", async () => {
    const integration = await jsonOf(
      await server.send("POST", "/v1/mcp-integrations", {
        name: "Filter integration",
        url: "https://mcp.example.com/mcp",
        auth_type: "none",
        transport: "http"
      })
    )
    const made = await Promise.all(
      ["one", "two", "three"].map(async (name) =>
        jsonOf(
          await server.send("POST", "/v1/mcp-servers", {
            name: `Filter ${name}`,
            mcp_integration_id: integration.id,
            workspace_id: server.workspaceId
          })
        )
      )
    )
    const listed = await admin.mcpServers.list({
      workspace_id: server.workspaceId,
      id: `${made[0].id}, ${made[2].id}`
    })
    checkPortkeyAnswer("GET", "/mcp-servers", listed)
    expect((listed.data ?? []).map((s) => s.id).sort()).toEqual([made[0].id, made[2].id].sort())
    expect(listed.total).toBe(2)
  })

  it("workspaces: name (with case), exact_name and status", async () => {
    await jsonOf(await server.send("POST", "/v1/admin/workspaces", { name: "Filter Alpha" }))
    await jsonOf(await server.send("POST", "/v1/admin/workspaces", { name: "Filter Alphabet" }))
    const names = (list: { readonly data?: ReadonlyArray<unknown> }) =>
      (list.data ?? []).map((w) => (w as { name: string }).name)
    const byName = await admin.admin.workspaces.list({ name: "Alpha" })
    checkPortkeyAnswer("GET", "/admin/workspaces", byName)
    expect(names(byName)).toEqual(["Filter Alpha", "Filter Alphabet"])
    expect(names(await admin.admin.workspaces.list({ name: "alpha" }))).toEqual([])
    expect(names(await admin.admin.workspaces.list({ exact_name: "Filter Alpha" }))).toEqual(["Filter Alpha"])
    expect(names(await admin.admin.workspaces.list({ name: "Alpha", status: "archived" }))).toEqual([])
    expect(names(await admin.admin.workspaces.list({ name: "Alpha", status: "active,archived" }))).toHaveLength(2)
    const refused = await errorOf(await server.request("/v1/admin/workspaces?status=paused"))
    expect(refused).toMatchObject({ status: 400, param: "status" })
  })
})

/** Documented query parameters ours does not read yet (listed in the README as open); each fails here once read. */
const NOT_YET_READ: ReadonlySet<string> = new Set([
  "GET /labels organisation_id",
  "GET /labels/{labelId} organisation_id",
  "GET /labels/{labelId} workspace_id"
])

const document = readPortkeyOpenApi()

describe.skipIf(document === undefined)("Portkey's documented query parameters, against ours", () => {
  it("every query parameter of these families is declared by our operation, or listed as not yet read", async () => {
    const server = await startTestServer()
    try {
      const ours = (await jsonOf(await server.request("/v1/openapi.json", { key: null }))) as {
        paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>
      }
      const shape = (path: string) => path.replace(/\{[^}]+\}/g, "{}")
      const ourParams = new Map<string, ReadonlySet<string>>()
      for (const [path, methods] of Object.entries(ours.paths)) {
        for (const [method, op] of Object.entries(methods)) {
          const names = (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name)
          ourParams.set(`${method.toUpperCase()} ${shape(path.replace(/^\/v1/, ""))}`, new Set(names))
        }
      }
      const family =
        /^\/(admin\/(workspaces|users)(?!\/users\/invites)|collections|configs|api-keys|prompts|labels|mcp-)/
      const missing: Array<string> = []
      const paths = (document!.paths as unknown) as Record<
        string,
        Record<string, { parameters?: Array<{ name: string; in: string }> } | Array<{ name: string; in: string }>>
      >
      for (const [path, methods] of Object.entries(paths)) {
        if (!family.test(path) || path.startsWith("/admin/users/invites")) continue
        const shared = ((methods.parameters ?? []) as Array<{ name: string; in: string }>).filter((p) =>
          p.in === "query"
        )
        for (const [method, op] of Object.entries(methods)) {
          if (!["get", "put", "post", "delete"].includes(method)) continue
          const key = `${method.toUpperCase()} ${shape(path)}`
          const served = ourParams.get(key)
          if (served === undefined) continue // not served: the operation walk lists it (PortkeyOpenApi.test.ts)
          const declared = [
            ...shared,
            ...((op as { parameters?: Array<{ name: string; in: string }> }).parameters ?? []).filter((p) =>
              p.in === "query"
            )
          ]
          for (const { name } of declared) {
            const label = `${method.toUpperCase()} ${path} ${name}`
            if (!served.has(name) && !NOT_YET_READ.has(label)) missing.push(label)
            if (served.has(name) && NOT_YET_READ.has(label)) {
              missing.push(`${label} (read now: drop it from NOT_YET_READ)`)
            }
          }
        }
      }
      expect(missing).toEqual([])
    } finally {
      await server.close()
    }
  })
})
