/**
 * SCIM 2.0 groups (`/scim/v2/Groups`), on every store: the request sequences Okta and Microsoft Entra ID send
 * (create, look up by displayName, add and remove members in each's shape, rename, replace, delete), filters
 * and paging, `excludedAttributes=members`, malformed requests answered 400 (or 409 for a taken name) in SCIM's
 * error format with nothing changed, and group membership mapped to roles through the organisation's identity
 * providers' role maps: audited, never making an owner nor demoting one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { availableStores, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const SCIM = "application/scim+json"
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group"
const USER = "urn:ietf:params:scim:schemas:core:2.0:User"
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"

interface Member {
  readonly value: string
  readonly display?: string
}

interface Group {
  readonly id: string
  readonly displayName: string
  readonly externalId?: string
  readonly members?: ReadonlyArray<Member>
}

const patchOf = (...Operations: ReadonlyArray<unknown>) => ({ schemas: [PATCH], Operations })

describe.each(availableStores)("SCIM groups on the %s store", (store) => {
  let server: TestServer
  let token: string

  const scim = (method: string, path: string, body?: unknown) =>
    fetch(`${server.baseUrl}/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": SCIM }) },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body)
    })

  const ok = async <A>(response: Response, status = 200): Promise<A> => {
    const text = await response.text()
    expect(response.status, text).toBe(status)
    expect(response.headers.get("content-type")).toContain(SCIM)
    return JSON.parse(text) as A
  }

  const expectScimError = async (response: Response, status: number, scimType?: string) => {
    const text = await response.text()
    expect(response.status, text).toBe(status)
    const body = JSON.parse(text)
    expect(body.schemas).toEqual([ERROR])
    expect(body.status).toBe(String(status))
    if (scimType !== undefined) expect(body.scimType).toBe(scimType)
    expect(typeof body.detail).toBe("string")
  }

  const newUser = async (userName: string) =>
    ok<{ id: string }>(await scim("POST", "/Users", { schemas: [USER], userName, active: true }), 201)

  const memberIds = (group: Group) => (group.members ?? []).map((m) => m.value).sort()

  const filtered = async (filter: string, extra = "") =>
    ok<{ totalResults: number; itemsPerPage: number; startIndex: number; Resources: Array<Group> }>(
      await scim("GET", `/Groups?filter=${encodeURIComponent(filter)}${extra}`)
    )

  beforeAll(async () => {
    server = await startTestServer({ store })
    token = (await jsonOf(await server.send("POST", "/v1/admin/scim-tokens", { name: "IdP" }))).token
  })
  afterAll(async () => {
    await server?.close()
  })

  it("takes Okta's sequence: create, look up by displayName, add and remove members, rename, delete", async () => {
    const ada = await newUser("ada@okta.example")
    const bob = await newUser("bob@okta.example")
    const created = await ok<Group>(
      await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Okta Engineering", members: [] }),
      201
    )
    expect(created).toMatchObject({
      schemas: [GROUP],
      displayName: "Okta Engineering",
      meta: { resourceType: "Group" }
    })
    expect(memberIds(created)).toEqual([])

    const found = await filtered("displayName eq \"Okta Engineering\"")
    expect(found.totalResults).toBe(1)
    expect(found.Resources[0]!.id).toBe(created.id)

    await ok(
      await scim(
        "PATCH",
        `/Groups/${created.id}`,
        patchOf({
          op: "add",
          path: "members",
          value: [{ value: ada.id, display: "ada@okta.example" }, { value: bob.id }]
        })
      )
    )
    const both = await ok<Group>(await scim("GET", `/Groups/${created.id}`))
    expect(memberIds(both)).toEqual([ada.id, bob.id].sort())
    expect(both.members!.find((m) => m.value === ada.id)!.display).toBe("ada@okta.example")
    // Adding a member again keeps one of them.
    await ok(
      await scim("PATCH", `/Groups/${created.id}`, patchOf({ op: "add", path: "members", value: [{ value: ada.id }] }))
    )
    expect(memberIds(await ok<Group>(await scim("GET", `/Groups/${created.id}`)))).toEqual([ada.id, bob.id].sort())

    // Okta removes by filter, and renames with a replace of the whole resource's values.
    await ok(
      await scim("PATCH", `/Groups/${created.id}`, patchOf({ op: "remove", path: `members[value eq "${bob.id}"]` }))
    )
    const renamed = await ok<Group>(
      await scim(
        "PATCH",
        `/Groups/${created.id}`,
        patchOf({ op: "replace", value: { id: created.id, displayName: "Okta Platform" } })
      )
    )
    expect(renamed.displayName).toBe("Okta Platform")
    expect(memberIds(renamed)).toEqual([ada.id])
    expect(memberIds((await filtered(`members[value eq "${ada.id}"]`)).Resources[0]!)).toEqual([ada.id])

    // PUT replaces name and members.
    const replaced = await ok<Group>(
      await scim("PUT", `/Groups/${created.id}`, {
        schemas: [GROUP],
        displayName: "Okta Platform Team",
        externalId: "okta-00g1",
        members: [{ value: bob.id }]
      })
    )
    expect(replaced).toMatchObject({ displayName: "Okta Platform Team", externalId: "okta-00g1" })
    expect(memberIds(replaced)).toEqual([bob.id])

    expect((await scim("DELETE", `/Groups/${created.id}`)).status).toBe(204)
    await expectScimError(await scim("GET", `/Groups/${created.id}`), 404)
    expect((await filtered("displayName eq \"Okta Platform Team\"")).totalResults).toBe(0)
  })

  it("takes Entra's sequence: Add and Remove members by value, Replace displayName, members left out on request", async () => {
    const cy = await newUser("cy@entra.example")
    const di = await newUser("di@entra.example")
    const created = await ok<Group>(
      await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Entra Sales", externalId: "2f1c-entra" }),
      201
    )
    await ok(
      await scim(
        "PATCH",
        `/Groups/${created.id}`,
        patchOf({ op: "Add", path: "members", value: [{ value: cy.id }, { value: di.id }] })
      )
    )
    await ok(
      await scim(
        "PATCH",
        `/Groups/${created.id}`,
        patchOf({ op: "Remove", path: "members", value: [{ value: cy.id }] })
      )
    )
    await ok(
      await scim(
        "PATCH",
        `/Groups/${created.id}`,
        patchOf({ op: "Replace", path: "displayName", value: "Entra Sales EU" })
      )
    )
    const group = await ok<Group>(await scim("GET", `/Groups/${created.id}`))
    expect(group).toMatchObject({ displayName: "Entra Sales EU", externalId: "2f1c-entra" })
    expect(memberIds(group)).toEqual([di.id])

    // Entra asks for groups without their members.
    const slim = await ok<Group>(await scim("GET", `/Groups/${created.id}?excludedAttributes=members`))
    expect(slim.id).toBe(created.id)
    expect(slim.members).toBeUndefined()
    const listed = await filtered("externalId eq \"2f1c-entra\"", "&excludedAttributes=members")
    expect(listed.totalResults).toBe(1)
    expect(listed.Resources[0]!.members).toBeUndefined()

    // Removing the whole members attribute empties the group.
    await ok(await scim("PATCH", `/Groups/${created.id}`, patchOf({ op: "Remove", path: "members" })))
    expect(memberIds(await ok<Group>(await scim("GET", `/Groups/${created.id}`)))).toEqual([])
  })

  it("filters by displayName (eq, sw, co, or) and pages with startIndex and count", async () => {
    for (const name of ["Paging Alpha", "Paging Beta", "Paging Gamma"]) {
      await ok(await scim("POST", "/Groups", { schemas: [GROUP], displayName: name }), 201)
    }
    const names = (list: { Resources: Array<Group> }) => list.Resources.map((g) => g.displayName).sort()
    expect(names(await filtered("displayName eq \"paging beta\""))).toEqual(["Paging Beta"])
    expect(names(await filtered("displayName sw \"Paging\""))).toEqual(["Paging Alpha", "Paging Beta", "Paging Gamma"])
    expect(names(await filtered("displayName co \"amm\" or displayName eq \"Paging Alpha\""))).toEqual([
      "Paging Alpha",
      "Paging Gamma"
    ])
    const first = await filtered("displayName sw \"Paging\"", "&startIndex=1&count=2")
    expect(first).toMatchObject({ totalResults: 3, startIndex: 1, itemsPerPage: 2 })
    const second = await filtered("displayName sw \"Paging\"", "&startIndex=3&count=2")
    expect(second).toMatchObject({ totalResults: 3, startIndex: 3, itemsPerPage: 1 })
    expect(new Set([...names(first), ...names(second)]).size).toBe(3)
  })

  it("answers malformed requests 400 (a taken name 409) in SCIM's error format, changing nothing", async () => {
    const eve = await newUser("eve@errors.example")
    const group = await ok<Group>(
      await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Kept Group", members: [{ value: eve.id }] }),
      201
    )
    const before = await ok<Group>(await scim("GET", `/Groups/${group.id}`))
    const countBefore = (await ok<{ totalResults: number }>(await scim("GET", "/Groups"))).totalResults

    await expectScimError(
      await scim("GET", `/Groups?filter=${encodeURIComponent("displayName eq")}`),
      400,
      "invalidFilter"
    )
    await expectScimError(
      await scim("GET", `/Groups?filter=${encodeURIComponent("members[value")}`),
      400,
      "invalidFilter"
    )
    await expectScimError(await scim("POST", "/Groups", { schemas: [GROUP] }), 400, "invalidValue")
    await expectScimError(await scim("POST", "/Groups", { schemas: [GROUP], displayName: "   " }), 400, "invalidValue")
    await expectScimError(
      await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Ghosts", members: [{ value: "no-such-user" }] }),
      400,
      "invalidValue"
    )
    await expectScimError(
      await scim("POST", "/Groups", { schemas: [GROUP], displayName: "kept group" }),
      409,
      "uniqueness"
    )
    await expectScimError(await scim("POST", "/Groups", "{not json"), 400, "invalidSyntax")
    await expectScimError(
      await scim("PATCH", `/Groups/${group.id}`, { schemas: [PATCH], Operations: "no" }),
      400,
      "invalidSyntax"
    )
    await expectScimError(await scim("PATCH", `/Groups/${group.id}`, patchOf({ op: "remove" })), 400, "invalidSyntax")
    await expectScimError(
      await scim("PATCH", `/Groups/${group.id}`, patchOf({ op: "remove", path: "members[value eq" })),
      400,
      "invalidSyntax"
    )
    // All or none: a valid rename before an add of a stranger changes nothing.
    await expectScimError(
      await scim(
        "PATCH",
        `/Groups/${group.id}`,
        patchOf(
          { op: "replace", path: "displayName", value: "Renamed" },
          { op: "add", path: "members", value: [{ value: "stranger" }] }
        )
      ),
      400,
      "invalidValue"
    )
    await expectScimError(
      await scim("PUT", `/Groups/${group.id}`, { schemas: [GROUP], displayName: "", members: [] }),
      400,
      "invalidValue"
    )
    await expectScimError(await scim("PATCH", "/Groups/no-such-group", patchOf({ op: "remove", path: "members" })), 404)
    await expectScimError(await scim("DELETE", "/Groups/no-such-group"), 404)

    expect(await ok<Group>(await scim("GET", `/Groups/${group.id}`))).toEqual(before)
    expect((await ok<{ totalResults: number }>(await scim("GET", "/Groups"))).totalResults).toBe(countBefore)
  })

  it("maps membership to roles through the identity providers' role maps: audited, no owner made or unmade", async () => {
    const workspace = await jsonOf(await server.request(`/v1/workspaces/${server.workspaceId}`))
    const provider = await server.send("POST", "/v1/admin/identity-providers", {
      name: "Roles IdP",
      slug: `roles-${store}`,
      issuer: "http://127.0.0.1:9/issuer",
      client_id: "gateway",
      client_secret: "a client secret long enough",
      role_map: {
        "Gateway Admins": { organisation_role: "admin" },
        "Gateway Owners": { organisation_role: "owner" },
        "eng-object-id": { workspaces: { [workspace.slug]: "manager" } }
      }
    })
    expect(provider.status, await provider.clone().text()).toBe(201)
    const roleOf = async (id: string) => (await jsonOf(await server.request(`/v1/admin/users/${id}`))).role
    const workspaceRoleOf = async (id: string) => {
      const response = await server.request(`/v1/admin/workspaces/${server.workspaceId}/users/${id}`)
      return response.status === 404 ? null : (await jsonOf(response)).role
    }

    const fay = await newUser("fay@roles.example")
    expect(await roleOf(fay.id)).toBe("member")
    const admins = await ok<Group>(
      await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Gateway Admins", members: [{ value: fay.id }] }),
      201
    )
    expect(await roleOf(fay.id)).toBe("admin")

    // The map knows the engineering group by the identity provider's id for it (Entra's object id).
    const engineering = await ok<Group>(
      await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Engineering", externalId: "eng-object-id" }),
      201
    )
    expect(await workspaceRoleOf(fay.id)).toBeNull()
    await ok(
      await scim(
        "PATCH",
        `/Groups/${engineering.id}`,
        patchOf({ op: "add", path: "members", value: [{ value: fay.id }] })
      )
    )
    expect(await workspaceRoleOf(fay.id)).toBe("manager")
    await ok(
      await scim("PATCH", `/Groups/${engineering.id}`, patchOf({ op: "remove", path: `members[value eq "${fay.id}"]` }))
    )
    expect(await workspaceRoleOf(fay.id)).toBeNull()

    // Leaving the admins' group makes her a member again; the record says which role changed.
    await ok(await scim("PATCH", `/Groups/${admins.id}`, patchOf({ op: "remove", path: "members" })))
    expect(await roleOf(fay.id)).toBe("member")
    const logs = await jsonOf(await server.request("/v1/audit-logs?resource_type=group&page_size=1000"))
    const changes = logs.records
      .filter((r: { resource_id: string }) => r.resource_id === admins.id)
      .map((r: unknown) => JSON.stringify(r))
    expect(changes.some((r: string) => r.includes("\"from\":\"admin\"") && r.includes("\"to\":\"member\""))).toBe(true)

    // A map's owner is not SCIM's to give; an owner in a group the maps demote stays an owner.
    const owners = await ok<Group>(
      await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Gateway Owners", members: [{ value: fay.id }] }),
      201
    )
    expect(await roleOf(fay.id)).toBe("member")
    const ownerRecords = await jsonOf(await server.request("/v1/audit-logs?resource_type=group&page_size=1000"))
    const created = ownerRecords.records.find((r: { resource_id: string }) => r.resource_id === owners.id)
    expect(JSON.stringify(created)).toContain("\"applied\":false")
    await ok(
      await scim(
        "PATCH",
        `/Groups/${admins.id}`,
        patchOf({ op: "add", path: "members", value: [{ value: server.ownerId }] })
      )
    )
    await ok(await scim("PATCH", `/Groups/${admins.id}`, patchOf({ op: "remove", path: "members" })))
    expect(await roleOf(server.ownerId)).toBe("owner")

    // Deleting a group takes the roles it gave.
    await ok(
      await scim("PATCH", `/Groups/${admins.id}`, patchOf({ op: "add", path: "members", value: [{ value: fay.id }] }))
    )
    expect(await roleOf(fay.id)).toBe("admin")
    // In the owners' group too, she gets the highest role SCIM gives: admin.
    expect(memberIds(await ok<Group>(await scim("GET", `/Groups/${owners.id}`)))).toEqual([fay.id])
    expect((await scim("DELETE", `/Groups/${admins.id}`)).status).toBe(204)
    expect(await roleOf(fay.id)).toBe("member")
  })

  it("a deleted user leaves every group", async () => {
    const gus = await newUser("gus@leaver.example")
    const group = await ok<Group>(
      await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Leavers", members: [{ value: gus.id }] }),
      201
    )
    expect((await scim("DELETE", `/Users/${gus.id}`)).status).toBe(204)
    expect(memberIds(await ok<Group>(await scim("GET", `/Groups/${group.id}`)))).toEqual([])
  })
})
