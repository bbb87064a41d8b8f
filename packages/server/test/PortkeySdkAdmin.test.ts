/**
 * Portkey's Node SDK (`portkey-ai`) at its defaults (only `apiKey` and `baseURL`) against a real server, for the
 * admin family (`admin.workspaces`, `admin.workspaces.users`, `admin.users`), API keys and virtual keys: with the
 * admin key the bootstrap made and with a workspace key. Every answer carries the fields the SDK's types declare,
 * with the JSON types they declare (dates arrive as ISO 8601 strings, as JSON has no dates).
 */
import { ScopeNames } from "@gateway-control/domain"
import { Portkey } from "portkey-ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "./support/TestServer.ts"

let server: TestServer
let admin: Portkey
let workspace: Portkey

const client = (apiKey: string) => new Portkey({ apiKey, baseURL: `${server.baseUrl}/v1` })

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/)
const text = expect.any(String)

/** The status of the SDK's error, or of none. */
const statusOf = (call: Promise<unknown>) => call.then(() => 200, (error: { readonly status?: number }) => error.status)

beforeAll(async () => {
  server = await startTestServer()
  admin = client(server.adminKey)
  const created = await admin.apiKeys.create({
    type: "workspace",
    "sub-type": "service",
    name: "sdk workspace key",
    workspace_id: server.workspaceId,
    scopes: ScopeNames.filter((scope) =>
      /^(workspaces\.(read|list)|workspace_users\.(read|list)|virtual_keys\.|api_keys\.|workspace_service_api_keys\.)/
        .test(scope)
    )
  })
  workspace = client(created.key!)
})
afterAll(async () => {
  await server.close()
})

describe("admin.workspaces", () => {
  it("create, list, retrieve, update, delete with the admin key", async () => {
    const created = await admin.admin.workspaces.create({ name: "Research", description: "The lab" })
    expect(created).toMatchObject({
      id: text,
      slug: "research",
      name: "Research",
      description: "The lab",
      created_at: ISO,
      last_updated_at: ISO,
      object: "workspace"
    })
    const listed = await admin.admin.workspaces.list({ page_size: 50, current_page: 0 })
    expect(listed).toMatchObject({ object: "list", total: expect.any(Number) })
    expect(listed.data!.map((w) => w.id)).toEqual(expect.arrayContaining([server.workspaceId, created.id]))
    expect(await admin.admin.workspaces.retrieve({ workspaceId: created.id })).toMatchObject({
      id: created.id,
      slug: "research",
      name: "Research"
    })
    const updated = await admin.admin.workspaces.update({ workspaceId: created.id, name: "Research & Co" })
    expect(updated).toMatchObject({
      id: created.id,
      name: "Research & Co",
      description: "The lab",
      object: "workspace"
    })
    expect(await admin.admin.workspaces.delete({ workspaceId: created.id })).toMatchObject({
      id: created.id,
      deleted: true
    })
    expect(await statusOf(admin.admin.workspaces.retrieve({ workspaceId: created.id }))).toBe(404)
  })

  it("a workspace key reads and lists its own workspace, and may not create, change or delete one", async () => {
    expect(await workspace.admin.workspaces.retrieve({ workspaceId: server.workspaceId })).toMatchObject({
      id: server.workspaceId,
      slug: "default"
    })
    const listed = await workspace.admin.workspaces.list({})
    expect(listed.data!.map((w) => w.id)).toEqual([server.workspaceId])
    expect(await statusOf(workspace.admin.workspaces.create({ name: "Nope" }))).toBe(403)
    expect(await statusOf(workspace.admin.workspaces.update({ workspaceId: server.workspaceId, name: "x" }))).toBe(403)
    expect(await statusOf(workspace.admin.workspaces.delete({ workspaceId: server.workspaceId }))).toBe(403)
  })

  it("a workspace that holds keys is deleted only with force, which revokes them", async () => {
    const team = await admin.admin.workspaces.create({ name: "Doomed" })
    const key = await admin.apiKeys.create({
      type: "workspace",
      "sub-type": "service",
      name: "doomed key",
      workspace_id: team.id!,
      scopes: ["workspaces.read"]
    })
    expect(await statusOf(admin.admin.workspaces.delete({ workspaceId: team.id }))).toBe(409)
    const forced = await server.request(`/v1/admin/workspaces/${team.id}?force=true`, { method: "DELETE" })
    expect(forced.status).toBe(200)
    expect((await admin.apiKeys.retrieve({ id: key.id })).status).toBe("revoked")
    expect(await statusOf(client(key.key!).admin.workspaces.retrieve({ workspaceId: team.id }))).toBe(401)
  })
})

describe("admin.workspaces.users and admin.users", () => {
  it("add several, list, retrieve, update, delete members; list, retrieve, update, delete users", async () => {
    const [ada, grace] = await Promise.all(
      ["Ada Lovelace", "Grace Hopper"].map(async (name) => {
        const response = await server.send("POST", "/v1/users", {
          email: `${name.split(" ")[0].toLowerCase()}@sdk.test`,
          name,
          role: "member"
        })
        return (await response.json()) as { id: string }
      })
    )
    const added = await admin.admin.workspaces.users.create({
      workspaceId: server.workspaceId,
      users: [{ id: ada.id, role: "member" }, { id: grace.id, role: "admin" }]
    })
    expect(added).toMatchObject({ object: "list", total: 2 })

    const members = await admin.admin.workspaces.users.list({ workspaceId: server.workspaceId, page_size: 50 })
    expect(members).toMatchObject({ object: "list", total: expect.any(Number) })
    const member = {
      object: "workspace-user",
      first_name: "Grace",
      last_name: "Hopper",
      org_role: "member",
      // Portkey's workspace `admin` is a workspace manager here.
      role: "manager",
      created_at: ISO,
      last_updated_at: ISO,
      status: "active",
      workspace_id: server.workspaceId
    }
    expect(members.data).toEqual(expect.arrayContaining([expect.objectContaining(member)]))
    expect(await admin.admin.workspaces.users.retrieve({ workspaceId: server.workspaceId, userId: grace.id }))
      .toMatchObject(member)
    // The workspace key reads members too (workspace_users.read / .list), and may not change them.
    expect(await workspace.admin.workspaces.users.retrieve({ workspaceId: server.workspaceId, userId: grace.id }))
      .toMatchObject(member)
    expect(
      await statusOf(
        workspace.admin.workspaces.users.update({ workspaceId: server.workspaceId, userId: grace.id, role: "member" })
      )
    ).toBe(403)

    expect(
      await admin.admin.workspaces.users.update({ workspaceId: server.workspaceId, userId: grace.id, role: "member" })
    ).toMatchObject({ id: grace.id, role: "member" })
    expect(await admin.admin.workspaces.users.delete({ workspaceId: server.workspaceId, userId: ada.id }))
      .toMatchObject({ user_id: ada.id, deleted: true })

    const users = await admin.admin.users.list({ pageSize: 50, currentPage: 0 })
    expect(users).toMatchObject({ object: "list", total: expect.any(Number) })
    expect(users.data!.map((u) => u.email)).toEqual(expect.arrayContaining(["ada@sdk.test", "grace@sdk.test"]))
    expect(await admin.admin.users.retrieve({ userId: grace.id })).toMatchObject({
      object: "user",
      id: grace.id,
      first_name: "Grace",
      last_name: "Hopper",
      role: "member",
      email: "grace@sdk.test",
      created_at: ISO,
      last_updated_at: ISO,
      workspace_ids: [server.workspaceId]
    })
    expect(await admin.admin.users.update({ userId: grace.id, role: "admin" })).toMatchObject({ role: "admin" })
    expect(await statusOf(workspace.admin.users.list({}))).toBe(403)
    expect(await admin.admin.users.delete({ userId: ada.id })).toMatchObject({ id: ada.id, deleted: true })
    expect(await statusOf(admin.admin.users.retrieve({ userId: ada.id }))).toBe(404)
  })

  it("removing a user revokes their workspace-user keys", async () => {
    const response = await server.send("POST", "/v1/users", { email: "leaving@sdk.test", role: "member" })
    const leaving = (await response.json()) as { id: string }
    await admin.admin.workspaces.users.create({
      workspaceId: server.workspaceId,
      users: [{ id: leaving.id, role: "member" }]
    })
    const key = await admin.apiKeys.create({
      type: "workspace",
      "sub-type": "user",
      name: "leaving's key",
      workspace_id: server.workspaceId,
      user_id: leaving.id,
      scopes: ["workspaces.read"]
    })
    await admin.admin.users.delete({ userId: leaving.id })
    expect(await admin.apiKeys.retrieve({ id: key.id })).toMatchObject({ status: "revoked", user_id: leaving.id })
    expect(await statusOf(client(key.key!).admin.workspaces.list({}))).toBe(401)
  })
})

describe("apiKeys and virtualKeys: the SDK's declared fields", () => {
  it("an API key reads with Portkey's names and types, absent strings left out", async () => {
    const created = await workspace.apiKeys.create({
      type: "workspace",
      "sub-type": "service",
      name: "declared",
      scopes: ["workspaces.read"],
      usage_limits: { credit_limit: 10, periodic_reset: "monthly" }
    })
    expect(created).toMatchObject({ id: text, key: expect.stringMatching(/^gwc_/), object: "api-key" })
    const read = await workspace.apiKeys.retrieve({ id: created.id })
    expect(read).toMatchObject({
      id: created.id,
      key: expect.stringMatching(/^gwc_\*\*\*\*/),
      name: "declared",
      type: "workspace-service",
      organisation_id: server.organisationId,
      workspace_id: server.workspaceId,
      status: "active",
      created_at: ISO,
      last_updated_at: ISO,
      usage_limits: { credit_limit: 10, periodic_reset: "monthly" },
      scopes: ["workspaces.read"],
      object: "api-key"
    })
    // No description and no user: Portkey declares strings, so they are absent rather than null.
    expect(read).not.toHaveProperty("description")
    expect(read).not.toHaveProperty("user_id")
    const listed = await workspace.apiKeys.list({ workspace_id: server.workspaceId })
    expect(listed.data!.find((key) => key.id === created.id)).toMatchObject({ key: read.key })
    expect(await workspace.apiKeys.update({ id: created.id, description: "now described" })).toMatchObject({
      description: "now described"
    })
    expect(await workspace.apiKeys.delete({ id: created.id })).toMatchObject({ id: created.id, status: "revoked" })
  })

  it("a virtual key reads with ai_provider_name, masked_api_key, note and usage_limits", async () => {
    const created = await workspace.virtualKeys.create({
      name: "Declared",
      provider: "openai",
      key: "sk-declared-1234",
      note: "for the SDK test",
      usage_limits: { credit_limit: 5 }
    })
    expect(created).toMatchObject({ id: text, slug: "declared", object: "virtual-key" })
    const read = await workspace.virtualKeys.retrieve({ slug: "declared" })
    expect(read).toMatchObject({
      id: created.id,
      ai_provider_name: "openai",
      masked_api_key: expect.stringMatching(/\*{4}1234$/),
      slug: "declared",
      name: "Declared",
      usage_limits: { credit_limit: 5 },
      status: "active",
      note: "for the SDK test",
      created_at: ISO,
      object: "virtual-key"
    })
    expect((await workspace.virtualKeys.list()).data!.map((key) => key.ai_provider_name)).toContain("openai")
    expect(await workspace.virtualKeys.update({ slug: "declared", note: null })).toMatchObject({
      id: created.id,
      slug: "declared",
      note: null
    })
    expect(await admin.virtualKeys.retrieve({ slug: created.id })).toMatchObject({ id: created.id, note: null })
    expect(await workspace.virtualKeys.delete({ slug: "declared" })).toMatchObject({ id: created.id, deleted: true })
  })
})
