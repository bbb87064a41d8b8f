/**
 * The bounds of every key write, on every store (users, roles, keys and workspaces live in the store):
 * - a key never outlives the key that creates, rotates or changes it, nor extends its own lifetime;
 * - a key creates, rotates, changes or revokes only keys acting as someone it may act as, admin keys included;
 *   an organisation admin's admin key exists (an owner names the admin) and never acts as more than an admin;
 * - a list naming a workspace the key cannot reach (another organisation's, or none) answers 404.
 */
import { ApiKeys, type Scope } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anotherOrganisationsWorkspace } from "./support/Elsewhere.ts"
import { testStores } from "./support/Stores.ts"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const HOUR_MS = 3_600_000

/** Everything a key needs to manage keys of every kind, and to make users. */
const KEY_MANAGER_SCOPES: Array<Scope> = [
  "organisation_service_api_keys.create",
  "organisation_service_api_keys.rotate",
  "workspace_service_api_keys.create",
  "workspace_service_api_keys.rotate",
  "workspace_user_api_keys.create",
  "workspace_user_api_keys.rotate",
  "api_keys.list",
  "api_keys.update",
  "api_keys.delete",
  "organisation_users.create",
  "workspaces.read"
]

describe.each(testStores)("key bounds, on the $name store", ({ layer }) => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({ store: layer() })
  }, 60_000)
  afterAll(() => server?.close())

  /** Creates a key with `key` (the bootstrap owner's by default); the response. */
  const create = (path: string, body: Record<string, unknown>, key?: string) =>
    server.send("POST", `/v1/api-keys/${path}`, { name: "k", scopes: ["workspaces.read"], ...body }, key)
  /** A key that must be created: its id and plaintext. */
  const created = async (path: string, body: Record<string, unknown>, key?: string) => {
    const response = await create(path, body, key)
    expect(response.status, await response.clone().text()).toBe(201)
    return (await response.json()) as { id: string; key: string }
  }
  const read = async (id: string) =>
    (await jsonOf(await server.request(`/v1/api-keys/${id}`))) as { expires_at: string | null; user_id: string | null }
  const keyCount = async () => (await jsonOf(await server.request("/v1/api-keys?page_size=1"))).total as number
  const createUser = async (email: string, role: string) => {
    const response = await server.send("POST", "/v1/users", { email, role })
    expect(response.status).toBe(201)
    return ((await response.json()) as { id: string }).id
  }

  describe("a key's lifetime (finding 7)", () => {
    const inAnHour = () => new Date(Date.now() + HOUR_MS).toISOString()

    it("a key expiring in an hour cannot clear or push back its own expiry; it may bring it forward", async () => {
      const expiresAt = inAnHour()
      const own = await created("organisation/service", { scopes: KEY_MANAGER_SCOPES, expires_at: expiresAt })
      for (const later of [null, new Date(Date.now() + 2 * HOUR_MS).toISOString()]) {
        const refused = await server.send("PUT", `/v1/api-keys/${own.id}`, { expires_at: later }, own.key)
        expect(refused.status).toBe(403)
        expect((await errorOf(refused)).message).toMatch(/may not outlive it/)
      }
      expect((await read(own.id)).expires_at).toBe(expiresAt)
      const sooner = new Date(Date.now() + HOUR_MS / 2).toISOString()
      expect((await server.send("PUT", `/v1/api-keys/${own.id}`, { expires_at: sooner }, own.key)).status).toBe(200)
      expect((await read(own.id)).expires_at).toBe(sooner)
    })

    it("a key expiring in an hour mints keys expiring no later: by default at its own expiry, later or never refused", async () => {
      const expiresAt = inAnHour()
      const minter = await created("organisation/service", { scopes: KEY_MANAGER_SCOPES, expires_at: expiresAt })
      const before = await keyCount()
      for (const path of ["organisation/service", "workspace/service"]) {
        const refused = await create(path, {
          workspace_id: path === "workspace/service" ? server.workspaceId : undefined,
          expires_at: new Date(Date.now() + 2 * HOUR_MS).toISOString()
        }, minter.key)
        expect(refused.status).toBe(403)
        expect(await errorOf(refused)).toMatchObject({ code: "forbidden" })
      }
      expect(await keyCount()).toBe(before)
      const byDefault = await created("workspace/service", { workspace_id: server.workspaceId }, minter.key)
      expect((await read(byDefault.id)).expires_at).toBe(expiresAt)
    })

    it("a key expiring in an hour neither rotates nor changes a key that lives longer", async () => {
      const minter = await created("organisation/service", { scopes: KEY_MANAGER_SCOPES, expires_at: inAnHour() })
      const lasting = await created("workspace/service", { workspace_id: server.workspaceId })
      const rotate = await server.send("POST", `/v1/api-keys/${lasting.id}/rotate`, {}, minter.key)
      expect(rotate.status).toBe(403)
      const rename = await server.send("PUT", `/v1/api-keys/${lasting.id}`, { name: "renamed" }, minter.key)
      expect(rename.status).toBe(403)
      // Revoking gives nothing a lifetime: allowed.
      expect((await server.request(`/v1/api-keys/${lasting.id}`, { method: "DELETE", key: minter.key })).status).toBe(
        200
      )
    })
  })

  describe("whom an admin key acts as (finding 8)", () => {
    let orgAdmin: string
    let member: string

    beforeAll(async () => {
      orgAdmin = await createUser("org-admin@example.com", "admin")
      member = await createUser("plain-member@example.com", "member")
    })

    it("an owner creates an admin key acting as an organisation admin, and it acts as no more than that", async () => {
      // As the spec's role table allows an organisation admin an admin key: the owner names the admin.
      const adminsKey = await created("organisation/service", { scopes: KEY_MANAGER_SCOPES, user_id: orgAdmin })
      expect((await read(adminsKey.id)).user_id).toBe(orgAdmin)
      // Only owners make owners: this key is an admin's.
      const owner = await server.send(
        "POST",
        "/v1/users",
        { email: "new-owner@example.com", role: "owner" },
        adminsKey.key
      )
      expect(owner.status).toBe(403)
      // The admin's own admin keys act as the admin, by default or by name; never as the owner.
      const own = await created("organisation/service", {}, adminsKey.key)
      expect((await read(own.id)).user_id).toBe(orgAdmin)
      const named = await created("organisation/service", { user_id: orgAdmin }, adminsKey.key)
      expect((await read(named.id)).user_id).toBe(orgAdmin)
      const before = await keyCount()
      const asOwner = await create("organisation/service", { user_id: server.ownerId }, adminsKey.key)
      expect(asOwner.status).toBe(403)
      expect((await errorOf(asOwner)).message).toMatch(/organisation owner/)
      expect(await keyCount()).toBe(before)
    })

    it("an admin key acts only as an organisation owner or admin: a member is refused with 400 naming user_id", async () => {
      const refused = await create("organisation/service", { user_id: member })
      expect(refused.status).toBe(400)
      expect(await errorOf(refused)).toMatchObject({ code: "invalid_request", param: "user_id" })
      const workspaceService = await create("workspace/service", { workspace_id: server.workspaceId, user_id: member })
      expect(workspaceService.status).toBe(400)
    })

    it("an admin's admin key may not rotate, change or revoke an owner's admin key", async () => {
      const ownersKey = await created("organisation/service", { scopes: ["workspaces.read"] })
      expect((await read(ownersKey.id)).user_id).toBe(server.ownerId)
      // The admin's key made the way it could be before the role table's path existed: issued directly.
      const issued = await server.runtime.runPromise(Effect.flatMap(Effect.service(ApiKeys), (keys) =>
        keys.issue({
          type: "organisation-service",
          name: "an admin's key",
          description: null,
          organisationId: server.organisationId,
          workspaceId: null,
          userId: orgAdmin,
          scopes: KEY_MANAGER_SCOPES,
          expiresAt: null
        })))
      const key = Redacted.value(issued.plaintext)
      const calls = [
        server.send("POST", `/v1/api-keys/${ownersKey.id}/rotate`, {}, key),
        server.send("PUT", `/v1/api-keys/${ownersKey.id}`, { scopes: ["workspaces.read"] }, key),
        server.request(`/v1/api-keys/${ownersKey.id}`, { method: "DELETE", key })
      ]
      for (const response of await Promise.all(calls)) {
        expect(response.status).toBe(403)
        expect((await errorOf(response)).message).toMatch(/may not act as user/)
      }
      const after = await server.request(`/v1/api-keys/${ownersKey.id}`)
      expect(await jsonOf(after)).toMatchObject({ status: "active", rotated_at: null })
      // Its own key it manages.
      expect((await server.send("POST", `/v1/api-keys/${issued.key.id}/rotate`, {}, key)).status).toBe(200)
    })
  })

  describe("lists naming a workspace the key cannot reach (finding 9)", () => {
    it("answer 404 for another organisation's workspace and for one that does not exist", async () => {
      const theirs = await server.runtime.runPromise(
        Effect.map(anotherOrganisationsWorkspace(), ({ workspace }) => workspace.id)
      )
      const lists = [
        "/v1/api-keys",
        "/v1/virtual-keys",
        "/v1/configs",
        "/v1/prompts",
        "/v1/prompts/partials",
        "/v1/labels",
        "/v1/mcp-servers",
        "/v0.1/servers"
      ]
      for (const workspace of [theirs, "no-such-workspace"]) {
        for (const list of lists) {
          const response = await server.request(`${list}?workspace_id=${workspace}`)
          expect(response.status, `${list} ${workspace}`).toBe(404)
          expect(await errorOf(response)).toMatchObject({ code: "not_found" })
        }
      }
      // The caller's own workspace still lists.
      expect((await server.request(`/v1/api-keys?workspace_id=${server.workspaceId}`)).status).toBe(200)
    })
  })
})
