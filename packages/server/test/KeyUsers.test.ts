/**
 * Whose name a workspace/user key carries: a member of the key's workspace, named by a creator whose role
 * is not below theirs; the key stops working when its user leaves the workspace; every key records who
 * created it. On every store, since membership and creators live in the store.
 */
import { ApiKeys, Organisation, OrganisationStore, User, UserStore } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { testStores } from "./support/Stores.ts"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const MANAGER_SCOPES = [
  "workspace_user_api_keys.create",
  "workspace_service_api_keys.create",
  "api_keys.list",
  "workspaces.read"
]

describe.each(testStores)("whose name a key carries, on the $name store", ({ layer }) => {
  let server: TestServer
  let workspaceId: string
  let manager: string
  let otherManager: string
  let member: string
  let orgAdmin: string
  let outsider: string
  let outsideAdmin: string
  let managerKey: { readonly id: string; readonly key: string }

  const post = (path: string, body: unknown, key?: string) => server.send("POST", path, body, key)
  const idOf = async (response: Response) => (await jsonOf(response)).id as string
  const createUser = (email: string, role: string) => post("/v1/users", { email, role }).then(idOf)
  const addMember = async (workspace: string, userId: string, role: string) => {
    const response = await post(`/v1/workspaces/${workspace}/members`, { user_id: userId, role })
    expect(response.status).toBe(201)
  }
  const removeMember = async (workspace: string, userId: string) => {
    const response = await server.send("DELETE", `/v1/workspaces/${workspace}/members/${userId}`, undefined)
    expect(response.status).toBe(200)
  }
  /** A workspace/user key in `workspaceId`; with the bootstrap admin key unless `key` is given. */
  const userKey = (userId: string | undefined, key?: string, scopes = ["workspaces.read"]) =>
    post("/v1/api-keys/workspace/user", { name: "named", scopes, workspace_id: workspaceId, user_id: userId }, key)
  const created = async (response: Response) => {
    const body = await jsonOf(response)
    expect(response.status, JSON.stringify(body)).toBe(201)
    return { id: body.id as string, key: body.key as string }
  }
  const readKey = async (id: string) => jsonOf(await server.request(`/v1/api-keys/${id}`))
  const keysInWorkspace = async () =>
    (await jsonOf(await server.request(`/v1/api-keys?workspace_id=${workspaceId}&page_size=1000`))).total as number
  const works = async (key: string) => (await server.request(`/v1/workspaces/${workspaceId}`, { key })).status

  beforeAll(async () => {
    server = await startTestServer({ store: layer() })
    workspaceId = await post("/v1/workspaces", { name: "Team" }).then(idOf)
    manager = await createUser("manager@example.com", "member")
    otherManager = await createUser("other-manager@example.com", "member")
    member = await createUser("member@example.com", "member")
    orgAdmin = await createUser("admin@example.com", "admin")
    outsider = await createUser("outsider@example.com", "member")
    outsideAdmin = await createUser("outside-admin@example.com", "admin")
    await addMember(workspaceId, manager, "manager")
    await addMember(workspaceId, otherManager, "manager")
    await addMember(workspaceId, member, "member")
    // The owner and the admin are plain members here: their organisation role still ranks above a manager.
    await addMember(workspaceId, server.ownerId, "member")
    await addMember(workspaceId, orgAdmin, "member")
    managerKey = await created(await userKey(manager, undefined, MANAGER_SCOPES))
  }, 60_000)
  afterAll(() => server?.close())

  describe("a workspace manager's key", () => {
    it.each([
      ["the organisation owner", () => server.ownerId, /organisation owner/],
      ["an organisation admin", () => orgAdmin, /organisation admin/]
    ])("may not name %s, and the refusal creates nothing", async (_, target, role) => {
      const before = await keysInWorkspace()
      const refused = await errorOf(await userKey(target(), managerKey.key))
      expect(refused).toMatchObject({ status: 403, code: "forbidden" })
      expect(refused.message).toMatch(role)
      expect(await keysInWorkspace()).toBe(before)
    })

    it("names itself (also by default), another manager or a member, and those keys work", async () => {
      for (const target of [manager, undefined, otherManager, member]) {
        const key = await created(await userKey(target, managerKey.key))
        expect((await readKey(key.id)).user_id).toBe(target ?? manager)
        expect(await works(key.key)).toBe(200)
      }
    })

    it("cannot get round the rule through a workspace service key it made", async () => {
      const service = await created(
        await post("/v1/api-keys/workspace/service", { name: "svc", scopes: MANAGER_SCOPES }, managerKey.key)
      )
      const refused = await errorOf(await userKey(server.ownerId, service.key))
      expect(refused).toMatchObject({ status: 403, code: "forbidden" })
      await created(await userKey(member, service.key))
    })
  })

  describe("an owner's or admin's key", () => {
    it("names any member of the workspace, whatever their role", async () => {
      for (const target of [server.ownerId, orgAdmin, manager, member]) {
        await created(await userKey(target))
      }
      const adminsKey = await server.runtime.runPromise(Effect.flatMap(Effect.service(ApiKeys), (keys) =>
        keys.issue({
          type: "organisation-service",
          name: "the admin's key",
          description: null,
          organisationId: server.organisationId,
          workspaceId: null,
          userId: orgAdmin,
          scopes: ["workspace_user_api_keys.create", "workspaces.read"],
          expiresAt: null
        })))
      await created(await userKey(server.ownerId, Redacted.value(adminsKey.plaintext)))
    })
  })

  describe("a user who is not a member of the workspace", () => {
    it("is refused with 400 naming user_id, whoever asks and whatever their role, and nothing is created", async () => {
      const before = await keysInWorkspace()
      for (const key of [undefined, managerKey.key]) {
        for (const target of [outsider, outsideAdmin]) {
          const refused = await errorOf(await userKey(target, key))
          expect(refused).toMatchObject({ status: 400, code: "invalid_request", param: "user_id" })
          expect(refused.message).toMatch(/not a member/)
        }
      }
      expect(await keysInWorkspace()).toBe(before)
    })

    it("answers 404 when the user does not exist or belongs to another organisation", async () => {
      const stranger = await server.runtime.runPromise(Effect.gen(function*() {
        const now = new Date().toISOString()
        const organisation = new Organisation({
          id: crypto.randomUUID(),
          name: "Elsewhere",
          created_at: now,
          last_updated_at: now
        })
        yield* (yield* OrganisationStore).insert(organisation)
        const user = new User({
          id: crypto.randomUUID(),
          organisation_id: organisation.id,
          email: "stranger@example.com",
          name: null,
          role: "owner",
          created_at: now,
          last_updated_at: now
        })
        yield* (yield* UserStore).insert(user)
        return user.id
      }))
      for (const userId of ["no-such-user", stranger]) {
        expect(await errorOf(await userKey(userId))).toMatchObject({ status: 404, code: "not_found" })
      }
    })
  })

  describe("a key whose user leaves the workspace", () => {
    it("answers 401 at once, even right after it was used, and works again if the user is added back", async () => {
      const leaver = await createUser("leaver@example.com", "member")
      await addMember(workspaceId, leaver, "manager")
      const key = await created(await userKey(leaver))
      expect(await works(key.key)).toBe(200)
      await removeMember(workspaceId, leaver)
      const refused = await errorOf(await server.request(`/v1/workspaces/${workspaceId}`, { key: key.key }))
      expect(refused).toMatchObject({ status: 401, code: "unauthenticated" })
      expect(refused.message).toMatch(/no longer a member/)
      await addMember(workspaceId, leaver, "member")
      expect(await works(key.key)).toBe(200)
    })

    it("applies to the organisation owner's key too", async () => {
      const elsewhere = await post("/v1/workspaces", { name: "Elsewhere" }).then(idOf)
      await addMember(elsewhere, server.ownerId, "manager")
      const key = await created(
        await post("/v1/api-keys/workspace/user", {
          name: "owner's",
          scopes: ["workspaces.read"],
          workspace_id: elsewhere,
          user_id: server.ownerId
        })
      )
      expect((await server.request(`/v1/workspaces/${elsewhere}`, { key: key.key })).status).toBe(200)
      await removeMember(elsewhere, server.ownerId)
      expect((await server.request(`/v1/workspaces/${elsewhere}`, { key: key.key })).status).toBe(401)
    })

    it("loses manager rights at once when its user is made a plain member", async () => {
      const demoted = await createUser("demoted@example.com", "member")
      await addMember(workspaceId, demoted, "manager")
      const key = await created(await userKey(demoted, undefined, MANAGER_SCOPES))
      await created(await userKey(demoted, key.key))
      await addMember(workspaceId, demoted, "member")
      const refused = await errorOf(await userKey(demoted, key.key))
      expect(refused).toMatchObject({ status: 403, code: "forbidden" })
      expect(refused.message).toMatch(/manager/)
    })
  })

  describe("who created a key", () => {
    it("shows on reads and lists, null for the bootstrap key, and in the create record of the audit log", async () => {
      const all: Array<{ readonly id: string; readonly name: string }> =
        (await jsonOf(await server.request("/v1/api-keys?page_size=1000"))).data
      const bootstrapKey = all.find((k) => k.name === "Bootstrap admin key")
      expect(bootstrapKey).toMatchObject({ created_by_user_id: null, created_by_api_key_id: null })
      expect(await readKey(managerKey.id)).toMatchObject({
        created_by_user_id: server.ownerId,
        created_by_api_key_id: bootstrapKey?.id
      })

      const made = await created(await userKey(member, managerKey.key))
      const creator = { created_by_user_id: manager, created_by_api_key_id: managerKey.id }
      expect(await readKey(made.id)).toMatchObject({ user_id: member, ...creator })
      const listed = await jsonOf(await server.request(`/v1/api-keys?workspace_id=${workspaceId}&page_size=1000`))
      expect(listed.data.find((k: { id: string }) => k.id === made.id)).toMatchObject(creator)

      const records: Array<{ readonly resource_id: string | null }> =
        (await jsonOf(await server.request("/v1/audit-logs?page_size=1000&resource_type=api_key"))).records
      const record = records.find((r) => r.resource_id === made.id)
      expect(record).toMatchObject({
        action: "create",
        user_id: manager,
        api_key_id: managerKey.id,
        request_body: { user_id: member, ...creator }
      })
    })
  })
})
