import { ApiKeys, Organisation, OrganisationStore, Workspace, WorkspaceStore } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const send = (method: string, path: string, body: unknown, key?: string) => server.send(method, path, body, key)
const post = (path: string, body: unknown, key?: string) => send("POST", path, body, key)

const createWorkspace = async (name: string) => (await jsonOf(await post("/v1/workspaces", { name }))).id as string
const createUser = async (email: string, role = "member") =>
  (await jsonOf(await post("/v1/users", { email, role }))).id as string
const addMember = (workspaceId: string, userId: string, role: string) =>
  post(`/v1/workspaces/${workspaceId}/members`, { user_id: userId, role })
const createKey = async (path: string, body: Record<string, unknown>, key?: string) => {
  const response = await post(`/v1/api-keys/${path}`, body, key)
  return { status: response.status, body: await jsonOf(response) }
}
/** The fields of an audit record, as the API lists it, that these tests read. */
interface ListedAuditRecord {
  readonly seq: number
  readonly resource_type: string
  readonly resource_id: string | null
  readonly api_key_id: string | null
  readonly response_status_code: number
  readonly request_body: unknown
}
const auditRecords = async (query = ""): Promise<Array<ListedAuditRecord>> =>
  (await jsonOf(await server.request(`/v1/audit-logs?page_size=1000${query}`))).records

describe("API keys", () => {
  it("an admin key creates an admin key that works at once and reads back masked", async () => {
    const created = await createKey("organisation/service", {
      name: "ci",
      scopes: ["workspaces.list", "api_keys.list"]
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ object: "api-key", id: expect.any(String) })
    const plaintext = created.body.key as string
    expect(plaintext).toMatch(/^gwc_/)
    expect((await server.request("/v1/workspaces", { key: plaintext })).status).toBe(200)

    const read = await jsonOf(await server.request(`/v1/api-keys/${created.body.id}`))
    expect(read).toMatchObject({ type: "organisation-service", status: "active", workspace_id: null })
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
      const created = await createKey("workspace/service", {
        name: "svc",
        scopes: ["workspaces.read"],
        workspace_id: workspaceId
      })
      expect(created.status).toBe(201)
      const read = await jsonOf(await server.request(`/v1/api-keys/${created.body.id}`))
      expect(read).toMatchObject({ type: "workspace-service", workspace_id: workspaceId })
      expect((await server.request(`/v1/workspaces/${workspaceId}`, { key: created.body.key })).status).toBe(200)
    }
  })

  it("a manager's workspace-user key creates keys for its workspace and is refused for another", async () => {
    const managed = await createWorkspace("Managed")
    const other = await createWorkspace("Other")
    const manager = await createUser("manager@example.com")
    expect((await addMember(managed, manager, "manager")).status).toBe(201)
    const managerKey = await createKey("workspace/user", {
      name: "manager key",
      scopes: ["workspace_service_api_keys.create", "workspace_user_api_keys.create", "workspaces.read"],
      workspace_id: managed,
      user_id: manager
    })
    expect(managerKey.status).toBe(201)
    const key = managerKey.body.key as string

    const own = await createKey("workspace/service", { name: "made by manager", scopes: ["workspaces.read"] }, key)
    expect(own.status).toBe(201)
    const read = await jsonOf(await server.request(`/v1/api-keys/${own.body.id}`))
    expect(read.workspace_id).toBe(managed)

    const elsewhere = await errorOf(
      await post("/v1/api-keys/workspace/service", { name: "x", scopes: ["workspaces.read"], workspace_id: other }, key)
    )
    // Another workspace is out of the key's sight: not found, like another organisation's.
    expect(elsewhere).toMatchObject({ status: 404, code: "not_found" })
    const admin = await errorOf(
      await post("/v1/api-keys/organisation/service", { name: "x", scopes: ["workspaces.read"] }, key)
    )
    expect(admin).toMatchObject({ status: 403, code: "forbidden" })
  })

  it("a member's key creates no keys", async () => {
    const workspaceId = await createWorkspace("Members only")
    const member = await createUser("member@example.com")
    await addMember(workspaceId, member, "member")
    const memberKey = await createKey("workspace/user", {
      name: "member key",
      scopes: ["workspace_service_api_keys.create", "workspace_user_api_keys.create"],
      workspace_id: workspaceId,
      user_id: member
    })
    expect(memberKey.status).toBe(201)
    for (const path of ["workspace/service", "workspace/user"]) {
      const refused = await errorOf(
        await post(
          `/v1/api-keys/${path}`,
          { name: "x", scopes: ["workspace_user_api_keys.create"] },
          memberKey.body.key
        )
      )
      expect(refused).toMatchObject({ status: 403, code: "forbidden" })
      expect(refused.message).toMatch(/manager/)
    }
  })

  it("a key cannot grant a scope it lacks, and the refusal names it", async () => {
    const narrow = await createKey("organisation/service", {
      name: "narrow",
      scopes: ["organisation_service_api_keys.create", "workspaces.list"]
    })
    const refused = await errorOf(
      await post(
        "/v1/api-keys/organisation/service",
        { name: "wider", scopes: ["workspaces.list", "audit_logs.list"] },
        narrow.body.key
      )
    )
    expect(refused).toMatchObject({ status: 403, code: "forbidden" })
    expect(refused.message).toContain("audit_logs.list")
    const subset = await createKey(
      "organisation/service",
      { name: "subset", scopes: ["workspaces.list"] },
      narrow.body.key
    )
    expect(subset.status).toBe(201)
  })

  it("a revoked key answers 401 from then on", async () => {
    const created = await createKey("organisation/service", { name: "to revoke", scopes: ["workspaces.list"] })
    expect((await server.request("/v1/workspaces", { key: created.body.key })).status).toBe(200)
    const revoked = await send("DELETE", `/v1/api-keys/${created.body.id}`, undefined)
    expect(await jsonOf(revoked)).toEqual({ id: created.body.id, object: "api-key", status: "revoked" })
    const after = await errorOf(await server.request("/v1/workspaces", { key: created.body.key }))
    expect(after).toMatchObject({ status: 401, code: "unauthenticated" })
    const read = await jsonOf(await server.request(`/v1/api-keys/${created.body.id}`))
    expect(read.status).toBe("revoked")
  })

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
      const now = new Date().toISOString()
      const organisation = new Organisation({ id: "org-other", name: "Other", created_at: now, last_updated_at: now })
      yield* (yield* OrganisationStore).insert(organisation)
      const workspace = new Workspace({
        id: "ws-other",
        organisation_id: organisation.id,
        name: "Theirs",
        slug: "theirs",
        description: null,
        created_at: now,
        last_updated_at: now
      })
      yield* (yield* WorkspaceStore).insert(workspace)
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
    expect((await errorOf(await server.request("/v1/workspaces/ws-other"))).status).toBe(404)
    expect((await errorOf(await server.request(`/v1/api-keys/${other.keyId}`))).status).toBe(404)
    expect((await errorOf(await send("DELETE", `/v1/api-keys/${other.keyId}`, undefined))).status).toBe(404)
    expect((await errorOf(await addMember("ws-other", server.ownerId, "member"))).status).toBe(404)
    expect((await errorOf(await server.request(`/v1/workspaces/${server.workspaceId}`, { key: other.key }))).status)
      .toBe(404)
  })
})

describe("users, members and scopes", () => {
  it("creates users, refuses duplicate emails and owners made by non-owners", async () => {
    const created = await post("/v1/users", { email: "Dev@Example.com", name: "Dev", role: "admin" })
    expect(created.status).toBe(201)
    expect(await jsonOf(created)).toMatchObject({ object: "user" })
    expect((await errorOf(await post("/v1/users", { email: "dev@example.com", role: "member" }))).status).toBe(409)
    expect((await errorOf(await post("/v1/users", { email: "not-an-email", role: "member" }))).param).toBe("email")
    expect((await errorOf(await post("/v1/users", { email: "x@example.com", role: "boss" }))).param).toBe("role")

    const adminUser = (await jsonOf(await server.request("/v1/users?page_size=1000"))).data
      .find((u: { email: string }) => u.email === "dev@example.com")
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
    const owner = await errorOf(
      await post("/v1/users", { email: "new-owner@example.com", role: "owner" }, Redacted.value(adminsKey.plaintext))
    )
    expect(owner).toMatchObject({ status: 403, code: "forbidden" })
  })

  it("adds, changes, lists and removes workspace members", async () => {
    const workspaceId = await createWorkspace("Team")
    const user = await createUser("teammate@example.com")
    expect((await addMember(workspaceId, user, "member")).status).toBe(201)
    expect(await jsonOf(await addMember(workspaceId, user, "manager"))).toMatchObject({ role: "manager" })
    const listed = await jsonOf(await server.request(`/v1/workspaces/${workspaceId}/members`))
    expect(listed.data).toEqual([expect.objectContaining({ user_id: user, role: "manager" })])
    expect((await errorOf(await addMember(workspaceId, "no-such-user", "member"))).status).toBe(404)
    expect((await errorOf(await addMember(workspaceId, user, "owner"))).param).toBe("role")
    const removed = await send("DELETE", `/v1/workspaces/${workspaceId}/members/${user}`, undefined)
    expect(await jsonOf(removed)).toMatchObject({ deleted: true })
    expect((await errorOf(await send("DELETE", `/v1/workspaces/${workspaceId}/members/${user}`, undefined))).status)
      .toBe(404)
  })

  it("lists the scope catalogue", async () => {
    const scopes = await jsonOf(await server.request("/v1/scopes"))
    expect(scopes.object).toBe("list")
    expect(scopes.data).toEqual(
      expect.arrayContaining(["logs.export", "logs.list", "logs.view", "virtual_keys.create", "virtual_keys.update"])
    )
  })

  it("names the calling key and its own scopes beside the catalogue", async () => {
    const admin = await jsonOf(await server.request("/v1/scopes"))
    expect(admin.key).toMatchObject({ type: "organisation-service", workspace_id: null, user_id: server.ownerId })
    expect(admin.key.scopes).toEqual(admin.data)
    const created = await createKey("workspace/service", {
      name: "narrow",
      workspace_id: server.workspaceId,
      scopes: ["prompts.read", "prompts.list"]
    })
    const narrow = await jsonOf(await server.request("/v1/scopes", { key: created.body.key }))
    expect(narrow.data).toEqual(admin.data)
    expect(narrow.key).toMatchObject({
      id: created.body.id,
      type: "workspace-service",
      organisation_id: server.organisationId,
      workspace_id: server.workspaceId
    })
    expect([...narrow.key.scopes].sort()).toEqual(["prompts.list", "prompts.read"])
  })

  it("refuses unknown scopes on a new key, naming them and where the catalogue is", async () => {
    const refused = await errorOf(await post("/v1/api-keys/organisation/service", { name: "x", scopes: ["nope"] }))
    expect(refused).toMatchObject({ status: 400, code: "invalid_request", param: "scopes" })
    expect(refused.message).toBe("Unknown scopes: nope. GET /v1/scopes lists the known ones.")
  })
})

describe("the audit log", () => {
  it("records allowed and denied mutating calls with who, what, where and the outcome", async () => {
    const body = { name: "audited", scopes: ["workspaces.list"], description: "for the audit test" }
    const created = await createKey("organisation/service", body)
    const denied = await errorOf(
      await post("/v1/api-keys/organisation/service", { name: "x", scopes: ["nope"] }, undefined)
    )
    expect(denied.status).toBe(400)
    const narrow = await createKey("organisation/service", { name: "narrow2", scopes: ["workspaces.list"] })
    const forbidden = await post("/v1/workspaces", { name: "not allowed" }, narrow.body.key)
    expect(forbidden.status).toBe(403)

    const records = await auditRecords("&resource_type=api_key")
    const ok = records.find((r) => r.resource_id === created.body.id)
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
    const refusals = await auditRecords("&response_status_code=403")
    expect(refusals.some((r) => r.resource_type === "workspace" && r.api_key_id === narrow.body.id)).toBe(true)

    // Newest first.
    const all = await auditRecords()
    expect(all.map((r) => r.seq)).toEqual([...all.map((r) => r.seq)].sort((a, b) => b - a))
  })

  it("is for admin keys with audit_logs.list only", async () => {
    const narrow = await createKey("organisation/service", { name: "no audit", scopes: ["workspaces.list"] })
    const refused = await errorOf(await server.request("/v1/audit-logs", { key: narrow.body.key }))
    expect(refused).toMatchObject({ status: 403 })
    expect(refused.message).toContain("audit_logs.list")
  })

  it("carries the client's request id", async () => {
    const response = await server.request("/v1/workspaces", {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "trace-me-123" },
      body: JSON.stringify({ name: "Traced" })
    })
    expect(response.status).toBe(201)
    const records = await auditRecords("&resource_type=workspace")
    expect(records[0]).toMatchObject({ request_id: "trace-me-123", response_status_code: 201 })
  })
})
