import type { GatewayControlClientShape } from "@gateway-control/client"
import type { CreateApiKey } from "@gateway-control/domain"
import { ApiKeys, type OrganisationRole, type WorkspaceRole } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anotherOrganisationsWorkspace } from "./support/Elsewhere.ts"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

// JSON calls go through the typed client: a success must have its declared status and shape, and a refusal's
// `_tag` stands for its status (`ForbiddenError` 403, `NotFoundError` 404, ...). Raw HTTP is left where the test
// reads what only the wire shows (that no secret is in a body), and for input the client's schemas would refuse
// before sending it.

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const post = (path: string, body: unknown, key?: string) => server.send("POST", path, body, key)

const createWorkspace = async (name: string) =>
  (await server.api((client) => client.workspaces.create({ payload: { name } }))).id
const createUser = async (email: string, role: OrganisationRole = "member") =>
  (await server.api((client) => client.users.create({ payload: { email, role } }))).id
const addMember = (workspaceId: string, userId: string, role: WorkspaceRole) => (client: GatewayControlClientShape) =>
  client.users.addMember({ params: { workspaceId }, payload: { user_id: userId, role } })
/** `POST /v1/api-keys/{type}/{subType}`, e.g. `createKey("workspace/service", body)`. */
const createKey = (path: string, payload: typeof CreateApiKey.Type) => {
  const [type = "", subType = ""] = path.split("/")
  return (client: GatewayControlClientShape) => client.apiKeys.create({ params: { type, subType }, payload })
}
type AuditQuery = Parameters<GatewayControlClientShape["auditLogs"]["list"]>[0]["query"]
const auditRecords = async (query: AuditQuery = {}) =>
  (await server.api((client) => client.auditLogs.list({ query: { page_size: 1000, ...query } }))).records

describe("API keys", () => {
  it("an admin key creates an admin key that works at once and reads back masked", async () => {
    const created = await server.api(createKey("organisation/service", {
      name: "ci",
      scopes: ["workspaces.list", "api_keys.list"]
    }))
    expect(created).toMatchObject({ object: "api-key", id: expect.any(String) })
    const plaintext = created.key
    expect(plaintext).toMatch(/^gwc_/)
    await server.api((client) => client.workspaces.list({ query: {} }), plaintext)

    // Raw HTTP: what the body holds, beyond what the schema decodes.
    const read = await jsonOf(await server.request(`/v1/api-keys/${created.id}`))
    expect(read).toMatchObject({ type: "organisation-service", status: "active" })
    // Portkey declares workspace_id a string: an admin key's, which has none, is left out rather than null.
    expect(read).not.toHaveProperty("workspace_id")
    expect(read.masked_key).toBe(`${plaintext.slice(0, 4)}****${plaintext.slice(-4)}`)
    expect(JSON.stringify(read)).not.toContain(plaintext.slice(4, -4))
    expect(read).not.toHaveProperty("digest")
    const listed = await jsonOf(await server.request("/v1/api-keys"))
    expect(listed).toMatchObject({ object: "list", total: expect.any(Number) })
    expect(JSON.stringify(listed)).not.toContain(plaintext)
  })

  it("an admin key creates workspace keys for any workspace", async () => {
    const first = await createWorkspace("Alpha")
    const second = await createWorkspace("Beta")
    for (const workspaceId of [first, second]) {
      const created = await server.api(createKey("workspace/service", {
        name: "svc",
        scopes: ["workspaces.read"],
        workspace_id: workspaceId
      }))
      const read = await server.api((client) => client.apiKeys.get({ params: { id: created.id } }))
      expect(read).toMatchObject({ type: "workspace-service", workspace_id: workspaceId })
      await server.api((client) => client.workspaces.get({ params: { workspaceId } }), created.key)
    }
  })

  it("a manager's workspace-user key creates keys for its workspace and is refused for another", async () => {
    const managed = await createWorkspace("Managed")
    const other = await createWorkspace("Other")
    const manager = await createUser("manager@example.com")
    await server.api(addMember(managed, manager, "manager"))
    const managerKey = await server.api(createKey("workspace/user", {
      name: "manager key",
      scopes: ["workspace_service_api_keys.create", "workspace_user_api_keys.create", "workspaces.read"],
      workspace_id: managed,
      user_id: manager
    }))
    const key = managerKey.key

    const own = await server.api(
      createKey("workspace/service", { name: "made by manager", scopes: ["workspaces.read"] }),
      key
    )
    const read = await server.api((client) => client.apiKeys.get({ params: { id: own.id } }))
    expect(read.workspace_id).toBe(managed)

    const elsewhere = await server.refusal(
      createKey("workspace/service", { name: "x", scopes: ["workspaces.read"], workspace_id: other }),
      key
    )
    // Another workspace is out of the key's sight: not found, like another organisation's.
    expect(elsewhere).toMatchObject({ _tag: "NotFoundError", code: "not_found" })
    const admin = await server.refusal(
      createKey("organisation/service", { name: "x", scopes: ["workspaces.read"] }),
      key
    )
    expect(admin).toMatchObject({ _tag: "ForbiddenError", code: "forbidden" })
  })

  it("a member's key creates no keys", async () => {
    const workspaceId = await createWorkspace("Members only")
    const member = await createUser("member@example.com")
    await server.api(addMember(workspaceId, member, "member"))
    const memberKey = await server.api(createKey("workspace/user", {
      name: "member key",
      scopes: ["workspace_service_api_keys.create", "workspace_user_api_keys.create"],
      workspace_id: workspaceId,
      user_id: member
    }))
    for (const path of ["workspace/service", "workspace/user"]) {
      const refused = await server.refusal(
        createKey(path, { name: "x", scopes: ["workspace_user_api_keys.create"] }),
        memberKey.key
      )
      expect(refused).toMatchObject({ _tag: "ForbiddenError", code: "forbidden" })
      expect(refused.message).toMatch(/manager/)
    }
  })

  it("a key cannot grant a scope it lacks, and the refusal names it", async () => {
    const narrow = await server.api(createKey("organisation/service", {
      name: "narrow",
      scopes: ["organisation_service_api_keys.create", "workspaces.list"]
    }))
    const refused = await server.refusal(
      createKey("organisation/service", { name: "wider", scopes: ["workspaces.list", "audit_logs.list"] }),
      narrow.key
    )
    expect(refused).toMatchObject({ _tag: "ForbiddenError", code: "forbidden" })
    expect(refused.message).toContain("audit_logs.list")
    await server.api(createKey("organisation/service", { name: "subset", scopes: ["workspaces.list"] }), narrow.key)
  })

  it("a revoked key answers 401 from then on", async () => {
    const created = await server.api(
      createKey("organisation/service", { name: "to revoke", scopes: ["workspaces.list"] })
    )
    const listWorkspaces = (client: GatewayControlClientShape) => client.workspaces.list({ query: {} })
    await server.api(listWorkspaces, created.key)
    // Raw HTTP: the exact body.
    const revoked = await server.send("DELETE", `/v1/api-keys/${created.id}`, undefined)
    expect(await jsonOf(revoked)).toMatchObject({ id: created.id, object: "api-key", status: "revoked" })
    const after = await server.refusal(listWorkspaces, created.key)
    expect(after).toMatchObject({ _tag: "Unauthorized", code: "unauthenticated" })
    const read = await server.api((client) => client.apiKeys.get({ params: { id: created.id } }))
    expect(read.status).toBe("revoked")
  })

  // Raw HTTP: bad input, some of which (an empty name) the client's schemas would refuse before sending.
  it.each([
    ["an unknown key type", "team/service", { name: "x", scopes: ["logs.view"] }, "type"],
    ["an unknown scope", "organisation/service", { name: "x", scopes: ["logs.view", "logs.eat"] }, "scopes"],
    ["no scopes", "organisation/service", { name: "x", scopes: [] }, "scopes"],
    ["an empty name", "organisation/service", { name: " ", scopes: ["logs.view"] }, "name"],
    [
      "a past expiry",
      "organisation/service",
      { name: "x", scopes: ["logs.view"], expires_at: "2020-01-01T00:00:00Z" },
      "expires_at"
    ],
    ["a workspace key without workspace_id", "workspace/service", { name: "x", scopes: ["logs.view"] }, "workspace_id"]
  ])("answers %s with 400 naming the field", async (_, path, body, param) => {
    const error = await errorOf(await post(`/v1/api-keys/${path}`, body))
    expect(error).toMatchObject({ status: 400, code: "invalid_request", param })
  })
})

describe("organisations stay apart", () => {
  it("answers 404 for another organisation's resources and never lists them", async () => {
    const other = await server.runtime.runPromise(Effect.gen(function*() {
      const { organisation } = yield* anotherOrganisationsWorkspace({
        organisation: "org-other",
        workspace: "ws-other"
      })
      const issued = yield* (yield* ApiKeys).issue({
        type: "organisation-service",
        name: "their admin",
        description: null,
        organisationId: organisation.id,
        workspaceId: null,
        userId: null,
        scopes: ["workspaces.read"],
        expiresAt: null
      })
      return { keyId: issued.key.id, key: Redacted.value(issued.plaintext) }
    }))
    const refusals = [
      await server.refusal((client) => client.workspaces.get({ params: { workspaceId: "ws-other" } })),
      await server.refusal((client) => client.apiKeys.get({ params: { id: other.keyId } })),
      await server.refusal((client) => client.apiKeys.revoke({ params: { id: other.keyId } })),
      await server.refusal(addMember("ws-other", server.ownerId, "member")),
      await server.refusal(
        (client) => client.workspaces.get({ params: { workspaceId: server.workspaceId } }),
        other.key
      )
    ]
    expect(refusals.map((refusal) => refusal._tag)).toEqual(Array(5).fill("NotFoundError"))
  })
})

describe("users, members and scopes", () => {
  it("creates users, refuses duplicate emails and owners made by non-owners", async () => {
    const created = await server.api((client) =>
      client.users.create({ payload: { email: "Dev@Example.com", name: "Dev", role: "admin" } })
    )
    expect(created).toMatchObject({ object: "user" })
    const duplicate = await server.refusal((client) =>
      client.users.create({ payload: { email: "dev@example.com", role: "member" } })
    )
    expect(duplicate._tag).toBe("ConflictError")
    // Raw HTTP: an email and a role the schema refuses, which the client would not send.
    expect((await errorOf(await post("/v1/users", { email: "not-an-email", role: "member" }))).param).toBe("email")
    expect((await errorOf(await post("/v1/users", { email: "x@example.com", role: "boss" }))).param).toBe("role")

    const users = await server.api((client) => client.users.list({ query: { page_size: 1000 } }))
    const adminUser = users.data.find((u) => u.email === "dev@example.com")!
    const adminsKey = await server.runtime.runPromise(Effect.flatMap(Effect.service(ApiKeys), (keys) =>
      keys.issue({
        type: "organisation-service",
        name: "admin's key",
        description: null,
        organisationId: server.organisationId,
        workspaceId: null,
        userId: adminUser.id,
        scopes: ["organisation_users.create"],
        expiresAt: null
      })))
    const owner = await server.refusal(
      (client) => client.users.create({ payload: { email: "new-owner@example.com", role: "owner" } }),
      Redacted.value(adminsKey.plaintext)
    )
    expect(owner).toMatchObject({ _tag: "ForbiddenError", code: "forbidden" })
  })

  it("adds, changes, lists and removes workspace members", async () => {
    const workspaceId = await createWorkspace("Team")
    const user = await createUser("teammate@example.com")
    await server.api(addMember(workspaceId, user, "member"))
    expect(await server.api(addMember(workspaceId, user, "manager"))).toMatchObject({ role: "manager" })
    const listed = await server.api((client) => client.users.listMembers({ params: { workspaceId }, query: {} }))
    expect(listed.data).toEqual([expect.objectContaining({ user_id: user, role: "manager" })])
    expect((await server.refusal(addMember(workspaceId, "no-such-user", "member")))._tag).toBe("NotFoundError")
    // Raw HTTP: a workspace role outside the schema, which the client would not send.
    const owner = await post(`/v1/workspaces/${workspaceId}/members`, { user_id: user, role: "owner" })
    expect((await errorOf(owner)).param).toBe("role")
    const removeMember = (client: GatewayControlClientShape) =>
      client.users.removeMember({ params: { workspaceId, userId: user } })
    expect(await server.api(removeMember)).toMatchObject({ deleted: true })
    expect((await server.refusal(removeMember))._tag).toBe("NotFoundError")
  })

  it("lists the scope catalogue", async () => {
    const scopes = await server.api((client) => client.scopes.list())
    expect(scopes.object).toBe("list")
    expect(scopes.data).toEqual(
      expect.arrayContaining(["logs.export", "logs.list", "logs.view", "virtual_keys.create", "virtual_keys.update"])
    )
  })

  it("names the calling key and its own scopes beside the catalogue", async () => {
    const admin = await server.api((client) => client.scopes.list())
    expect(admin.key).toMatchObject({ type: "organisation-service", workspace_id: null, user_id: server.ownerId })
    expect(admin.key.scopes).toEqual(admin.data)
    const created = await server.api(createKey("workspace/service", {
      name: "narrow",
      workspace_id: server.workspaceId,
      scopes: ["prompts.read", "prompts.list"]
    }))
    const narrow = await server.api((client) => client.scopes.list(), created.key)
    expect(narrow.data).toEqual(admin.data)
    expect(narrow.key).toMatchObject({
      id: created.id,
      type: "workspace-service",
      organisation_id: server.organisationId,
      workspace_id: server.workspaceId
    })
    expect([...narrow.key.scopes].sort()).toEqual(["prompts.list", "prompts.read"])
  })

  it("refuses unknown scopes on a new key, naming them and where the catalogue is", async () => {
    const refused = await server.refusal(createKey("organisation/service", { name: "x", scopes: ["nope"] }))
    expect(refused).toMatchObject({ _tag: "BadRequest", code: "invalid_request", param: "scopes" })
    expect(refused.message).toBe("Unknown scopes: nope. GET /v1/scopes lists the known ones.")
  })
})

describe("the audit log", () => {
  it("records allowed and denied mutating calls with who, what, where and the outcome", async () => {
    const body = { name: "audited", scopes: ["workspaces.list"], description: "for the audit test" }
    const created = await server.api(createKey("organisation/service", body))
    const denied = await server.refusal(createKey("organisation/service", { name: "x", scopes: ["nope"] }))
    expect(denied._tag).toBe("BadRequest")
    const narrow = await server.api(createKey("organisation/service", { name: "narrow2", scopes: ["workspaces.list"] }))
    const forbidden = await server.refusal(
      (client) => client.workspaces.create({ payload: { name: "not allowed" } }),
      narrow.key
    )
    expect(forbidden._tag).toBe("ForbiddenError")

    const records = await auditRecords({ resource_type: "api_key" })
    const ok = records.find((r) => r.resource_id === created.id)
    expect(ok).toMatchObject({
      action: "create",
      method: "POST",
      uri: "/v1/api-keys/organisation/service",
      response_status_code: 201,
      organisation_id: server.organisationId,
      user_type: "user",
      user_id: server.ownerId,
      client_ip: expect.any(String),
      request_id: expect.any(String)
    })
    // The body as received, plus who created the key.
    expect(ok!.request_body).toEqual({
      ...body,
      created_by_user_id: server.ownerId,
      created_by_api_key_id: ok!.api_key_id
    })
    expect(records.some((r) => r.response_status_code === 400)).toBe(true)
    const refusals = await auditRecords({ response_status_code: 403 })
    expect(refusals.some((r) => r.resource_type === "workspace" && r.api_key_id === narrow.id)).toBe(true)

    // Newest first.
    const all = await auditRecords()
    expect(all.map((r) => r.seq)).toEqual([...all.map((r) => r.seq)].sort((a, b) => b - a))
  })

  it("is for admin keys with audit_logs.list only", async () => {
    const narrow = await server.api(
      createKey("organisation/service", { name: "no audit", scopes: ["workspaces.list"] })
    )
    const refused = await server.refusal((client) => client.auditLogs.list({ query: {} }), narrow.key)
    expect(refused).toMatchObject({ _tag: "ForbiddenError" })
    expect(refused.message).toContain("audit_logs.list")
  })

  it("carries the client's request id", async () => {
    const response = await server.request("/v1/workspaces", {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "trace-me-123" },
      body: JSON.stringify({ name: "Traced" })
    })
    expect(response.status).toBe(201)
    const records = await auditRecords({ resource_type: "workspace" })
    expect(records[0]).toMatchObject({ request_id: "trace-me-123", response_status_code: 201 })
  })
})
