/**
 * Whose name a workspace/user key carries: a member of the key's workspace, named by a creator whose role
 * is not below theirs; the key stops working when its user leaves the workspace; every key records who
 * created it. On every store, since membership and creators live in the store.
 */
import type { GatewayControlClientShape } from "@gateway-control/client"
import { ApiKeys, type OrganisationRole, User, UserStore, type WorkspaceRole } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anotherOrganisation } from "./support/Elsewhere.ts"
import { testStores } from "./support/Stores.ts"
import { startTestServer, type TestServer } from "./support/TestServer.ts"

// Every call goes through the typed client: a success must have its declared status and shape, and a refusal's
// `_tag` stands for its status (`BadRequest` 400, `Unauthorized` 401, `ForbiddenError` 403, `NotFoundError` 404).

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

  const createWorkspace = async (name: string) =>
    (await server.api((client) => client.workspaces.create({ payload: { name } }))).id
  const createUser = async (email: string, role: OrganisationRole) =>
    (await server.api((client) => client.users.create({ payload: { email, role } }))).id
  const addMember = (workspace: string, userId: string, role: WorkspaceRole) =>
    server.api((client) =>
      client.users.addMember({ params: { workspaceId: workspace }, payload: { user_id: userId, role } })
    )
  const removeMember = (workspace: string, userId: string) =>
    server.api((client) => client.users.removeMember({ params: { workspaceId: workspace, userId } }))
  /** Creates a workspace/user key in `workspace` (`workspaceId` by default); its user is the caller's when absent. */
  const userKeyCall =
    (userId: string | undefined, scopes = ["workspaces.read"], workspace?: string) =>
    (client: GatewayControlClientShape) =>
      client.apiKeys.create({
        params: { type: "workspace", subType: "user" },
        payload: {
          name: "named",
          scopes,
          workspace_id: workspace ?? workspaceId,
          ...(userId === undefined ? {} : { user_id: userId })
        }
      })
  /** A workspace/user key that must be created, with the bootstrap admin key unless `key` is given. */
  const userKey = (userId: string | undefined, key?: string, scopes?: Array<string>) =>
    server.api(userKeyCall(userId, scopes), key)
  const readKey = (id: string) => server.api((client) => client.apiKeys.get({ params: { id } }))
  const keysInWorkspace = async () =>
    (await server.api((client) => client.apiKeys.list({ query: { workspace_id: workspaceId, page_size: 1000 } })))
      .total
  /** Reads a workspace with `key`, which must be let in. */
  const readWorkspace = (key: string, workspace = workspaceId) =>
    server.api((client) => client.workspaces.get({ params: { workspaceId: workspace } }), key)

  beforeAll(async () => {
    server = await startTestServer({ store: layer() })
    workspaceId = await createWorkspace("Team")
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
    managerKey = await userKey(manager, undefined, MANAGER_SCOPES)
  }, 60_000)
  afterAll(() => server?.close())

  describe("a workspace manager's key", () => {
    it.each([
      ["the organisation owner", () => server.ownerId, /organisation owner/],
      ["an organisation admin", () => orgAdmin, /organisation admin/]
    ])("may not name %s, and the refusal creates nothing", async (_, target, role) => {
      const before = await keysInWorkspace()
      const refused = await server.refusal(userKeyCall(target()), managerKey.key)
      expect(refused).toMatchObject({ _tag: "ForbiddenError", code: "forbidden" })
      expect(refused.message).toMatch(role)
      expect(await keysInWorkspace()).toBe(before)
    })

    it("names itself (also by default), another manager or a member, and those keys work", async () => {
      for (const target of [manager, undefined, otherManager, member]) {
        const key = await userKey(target, managerKey.key)
        expect((await readKey(key.id)).user_id).toBe(target ?? manager)
        await readWorkspace(key.key)
      }
    })

    it("cannot get round the rule through a workspace service key it made", async () => {
      const service = await server.api(
        (client) =>
          client.apiKeys.create({
            params: { type: "workspace", subType: "service" },
            payload: { name: "svc", scopes: MANAGER_SCOPES }
          }),
        managerKey.key
      )
      const refused = await server.refusal(userKeyCall(server.ownerId), service.key)
      expect(refused).toMatchObject({ _tag: "ForbiddenError", code: "forbidden" })
      await userKey(member, service.key)
    })
  })

  describe("an owner's or admin's key", () => {
    it("names any member of the workspace, whatever their role", async () => {
      for (const target of [server.ownerId, orgAdmin, manager, member]) {
        await userKey(target)
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
      await userKey(server.ownerId, Redacted.value(adminsKey.plaintext))
    })
  })

  describe("a user who is not a member of the workspace", () => {
    it("is refused with 400 naming user_id, whoever asks and whatever their role, and nothing is created", async () => {
      const before = await keysInWorkspace()
      for (const key of [undefined, managerKey.key]) {
        for (const target of [outsider, outsideAdmin]) {
          const refused = await server.refusal(userKeyCall(target), key)
          expect(refused).toMatchObject({ _tag: "BadRequest", code: "invalid_request", param: "user_id" })
          expect(refused.message).toMatch(/not a member/)
        }
      }
      expect(await keysInWorkspace()).toBe(before)
    })

    it("answers 404 when the user does not exist or belongs to another organisation", async () => {
      const stranger = await server.runtime.runPromise(Effect.gen(function*() {
        const { now, organisation } = yield* anotherOrganisation()
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
        expect(await server.refusal(userKeyCall(userId))).toMatchObject({ _tag: "NotFoundError", code: "not_found" })
      }
    })
  })

  describe("a key whose user leaves the workspace", () => {
    it("answers 401 at once, even right after it was used, and works again if the user is added back", async () => {
      const leaver = await createUser("leaver@example.com", "member")
      await addMember(workspaceId, leaver, "manager")
      const key = await userKey(leaver)
      await readWorkspace(key.key)
      await removeMember(workspaceId, leaver)
      const refused = await server.refusal(
        (client) => client.workspaces.get({ params: { workspaceId } }),
        key.key
      )
      expect(refused).toMatchObject({ _tag: "Unauthorized", code: "unauthenticated" })
      expect(refused.message).toMatch(/no longer a member/)
      await addMember(workspaceId, leaver, "member")
      await readWorkspace(key.key)
    })

    it("applies to the organisation owner's key too", async () => {
      const elsewhere = await createWorkspace("Elsewhere")
      await addMember(elsewhere, server.ownerId, "manager")
      const key = await server.api(userKeyCall(server.ownerId, ["workspaces.read"], elsewhere))
      await readWorkspace(key.key, elsewhere)
      await removeMember(elsewhere, server.ownerId)
      const refused = await server.refusal(
        (client) => client.workspaces.get({ params: { workspaceId: elsewhere } }),
        key.key
      )
      expect(refused._tag).toBe("Unauthorized")
    })

    it("loses manager rights at once when its user is made a plain member", async () => {
      const demoted = await createUser("demoted@example.com", "member")
      await addMember(workspaceId, demoted, "manager")
      const key = await userKey(demoted, undefined, MANAGER_SCOPES)
      await userKey(demoted, key.key)
      await addMember(workspaceId, demoted, "member")
      const refused = await server.refusal(userKeyCall(demoted), key.key)
      expect(refused).toMatchObject({ _tag: "ForbiddenError", code: "forbidden" })
      expect(refused.message).toMatch(/manager/)
    })
  })

  describe("who created a key", () => {
    it("shows on reads and lists, null for the bootstrap key, and in the create record of the audit log", async () => {
      const all = (await server.api((client) => client.apiKeys.list({ query: { page_size: 1000 } }))).data
      const bootstrapKey = all.find((k) => k.name === "Bootstrap admin key")
      expect(bootstrapKey).toMatchObject({ created_by_user_id: null, created_by_api_key_id: null })
      expect(await readKey(managerKey.id)).toMatchObject({
        created_by_user_id: server.ownerId,
        created_by_api_key_id: bootstrapKey?.id
      })

      const made = await userKey(member, managerKey.key)
      const creator = { created_by_user_id: manager, created_by_api_key_id: managerKey.id }
      expect(await readKey(made.id)).toMatchObject({ user_id: member, ...creator })
      const listed = await server.api((client) =>
        client.apiKeys.list({ query: { workspace_id: workspaceId, page_size: 1000 } })
      )
      expect(listed.data.find((k) => k.id === made.id)).toMatchObject(creator)

      const records = (await server.api((client) =>
        client.auditLogs.list({ query: { page_size: 1000, resource_type: "api_key" } })
      )).records
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
