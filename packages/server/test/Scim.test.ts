/**
 * SCIM 2.0 conformance: the request sequences identity providers (Okta, Microsoft Entra ID) send to
 * `/scim/v2`, with a SCIM token an admin created at `/v1/admin/scim-tokens`. Malformed filters and patches answer
 * 400 in SCIM's error format and change nothing; deprovisioning revokes the user's workspace-user key and ends
 * their sessions at once, and keeps them from signing in while inactive.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const SCIM = "application/scim+json"
const USER = "urn:ietf:params:scim:schemas:core:2.0:User"
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"

let server: TestServer
let token: string
let tokenId: string

const scim = (method: string, path: string, body?: unknown, bearer = token) =>
  fetch(`${server.baseUrl}/scim/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { "content-type": SCIM }) },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body)
  })

const expectScimError = async (response: Response, status: number, scimType?: string) => {
  expect(response.status).toBe(status)
  expect(response.headers.get("content-type")).toContain(SCIM)
  const body = await jsonOf(response)
  expect(body.schemas).toEqual([ERROR])
  expect(body.status).toBe(String(status))
  if (scimType !== undefined) expect(body.scimType).toBe(scimType)
  expect(typeof body.detail).toBe("string")
  return body
}

const newUser = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER],
  userName,
  name: { givenName: "Grace", familyName: "Hopper" },
  emails: [{ primary: true, value: userName, type: "work" }],
  externalId: `ext-${userName}`,
  active: true,
  ...extra
})

beforeAll(async () => {
  server = await startTestServer()
  const created = await server.send("POST", "/v1/admin/scim-tokens", { name: "Okta" })
  expect(created.status).toBe(201)
  const body = await jsonOf(created)
  token = body.token
  tokenId = body.id
  expect(token).toMatch(/^gwscim_/)
  expect(body.masked_token).not.toContain(token.slice(8, -4))
})
afterAll(async () => {
  await server?.close()
})

describe("SCIM tokens", () => {
  it("lists tokens without their secrets; a missing or unknown bearer answers 401 in SCIM's format", async () => {
    const listed = await jsonOf(await server.request("/v1/admin/scim-tokens"))
    expect(listed.data.map((t: { id: string }) => t.id)).toContain(tokenId)
    expect(JSON.stringify(listed)).not.toContain(token)
    await expectScimError(await scim("GET", "/Users", undefined, ""), 401)
    await expectScimError(await scim("GET", "/Users", undefined, `${token}x`), 401)
    await expectScimError(await scim("GET", "/Users", undefined, server.adminKey), 401)
  })

  it("a revoked token is refused at once", async () => {
    const other = await jsonOf(await server.send("POST", "/v1/admin/scim-tokens", { name: "Entra" }))
    expect((await scim("GET", "/ServiceProviderConfig", undefined, other.token)).status).toBe(200)
    const revoked = await server.request(`/v1/admin/scim-tokens/${other.id}`, { method: "DELETE" })
    expect((await jsonOf(revoked)).status).toBe("revoked")
    await expectScimError(await scim("GET", "/Users", undefined, other.token), 401)
  })
})

describe("SCIM service provider", () => {
  it("describes itself: ServiceProviderConfig, ResourceTypes, Schemas", async () => {
    const config = await scim("GET", "/ServiceProviderConfig")
    expect(config.headers.get("content-type")).toContain(SCIM)
    expect((await jsonOf(config)).patch).toEqual({ supported: true })
    const types = await jsonOf(await scim("GET", "/ResourceTypes"))
    expect(types.Resources.map((t: { id: string }) => t.id)).toContain("User")
    const schemas = await jsonOf(await scim("GET", "/Schemas"))
    expect(schemas.Resources.map((s: { id: string }) => s.id)).toContain(USER)
  })

  it("creates, finds by userName, pages, patches active, replaces and deletes a user", async () => {
    const created = await scim("POST", "/Users", newUser("Grace.Hopper@example.com"))
    expect(created.status).toBe(201)
    expect(created.headers.get("content-type")).toContain(SCIM)
    const user = await jsonOf(created)
    expect(user).toMatchObject({
      schemas: [USER],
      userName: "grace.hopper@example.com",
      externalId: "ext-Grace.Hopper@example.com",
      name: { formatted: "Grace Hopper", givenName: "Grace", familyName: "Hopper" },
      active: true,
      meta: { resourceType: "User" }
    })
    // The user is one of the organisation's users.
    const viaApi = await jsonOf(await server.request(`/v1/admin/users/${user.id}`))
    expect(JSON.stringify(viaApi)).toContain("grace.hopper@example.com")

    // A second create of the same userName: 409 uniqueness.
    await expectScimError(await scim("POST", "/Users", newUser("grace.hopper@example.com")), 409, "uniqueness")

    // An identity provider looks the user up by userName before creating them.
    const found = await jsonOf(
      await scim("GET", `/Users?filter=${encodeURIComponent("userName eq \"grace.hopper@example.com\"")}`)
    )
    expect(found.schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:ListResponse"])
    expect(found.totalResults).toBe(1)
    expect(found.Resources[0].id).toBe(user.id)
    const none = await jsonOf(
      await scim("GET", `/Users?filter=${encodeURIComponent("userName eq \"nobody@example.com\"")}`)
    )
    expect(none).toMatchObject({ totalResults: 0, Resources: [] })

    // Okta's deactivation: PATCH replace active.
    const patched = await scim("PATCH", `/Users/${user.id}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { active: false } }]
    })
    expect(patched.status).toBe(200)
    expect((await jsonOf(patched)).active).toBe(false)
    expect((await jsonOf(await scim("GET", `/Users/${user.id}`))).active).toBe(false)
    // Entra's: "Replace" with a path and the string "True".
    const back = await scim("PATCH", `/Users/${user.id}`, {
      schemas: [PATCH],
      Operations: [{ op: "Replace", path: "active", value: "True" }]
    })
    expect((await jsonOf(back)).active).toBe(true)

    // PUT replaces the name.
    const replaced = await scim(
      "PUT",
      `/Users/${user.id}`,
      newUser("grace.hopper@example.com", {
        name: { formatted: "Rear Admiral Grace Hopper" }
      })
    )
    expect((await jsonOf(replaced)).name.formatted).toBe("Rear Admiral Grace Hopper")

    expect((await scim("DELETE", `/Users/${user.id}`)).status).toBe(204)
    await expectScimError(await scim("GET", `/Users/${user.id}`), 404)
    expect((await server.request(`/v1/admin/users/${user.id}`)).status).toBe(404)
  })

  it("filters with co, sw, and, or, and pages with startIndex and count", async () => {
    for (const name of ["ann", "anna", "bob", "bea"]) {
      expect((await scim("POST", "/Users", newUser(`${name}@paging.example`))).status).toBe(201)
    }
    const query = async (filter: string, paging = "") =>
      jsonOf(await scim("GET", `/Users?filter=${encodeURIComponent(filter)}${paging}`))
    const names = (list: { Resources: Array<{ userName: string }> }) => list.Resources.map((r) => r.userName).sort()
    expect(names(await query("userName sw \"ann\""))).toEqual(["ann@paging.example", "anna@paging.example"])
    expect(names(await query("userName co \"b\" and userName co \"paging\""))).toEqual([
      "bea@paging.example",
      "bob@paging.example"
    ])
    expect(names(await query("userName eq \"ann@paging.example\" or userName eq \"bob@paging.example\""))).toEqual([
      "ann@paging.example",
      "bob@paging.example"
    ])
    const first = await query("userName co \"@paging.example\"", "&startIndex=1&count=3")
    expect(first).toMatchObject({ totalResults: 4, startIndex: 1, itemsPerPage: 3 })
    const second = await query("userName co \"@paging.example\"", "&startIndex=4&count=3")
    expect(second).toMatchObject({ totalResults: 4, startIndex: 4, itemsPerPage: 1 })
    expect(new Set([...names(first), ...names(second)]).size).toBe(4)
  })

  it("answers malformed filters and patches 400 in SCIM's format, changing nothing", async () => {
    const user = await jsonOf(await scim("POST", "/Users", newUser("kept@example.com")))
    await expectScimError(await scim("GET", `/Users?filter=${encodeURIComponent("userName eq")}`), 400, "invalidFilter")
    await expectScimError(
      await scim("GET", `/Users?filter=${encodeURIComponent("userName zz \"x\"")}`),
      400,
      "invalidFilter"
    )
    await expectScimError(await scim("PATCH", `/Users/${user.id}`, { schemas: [PATCH], Operations: "no" }), 400)
    await expectScimError(
      await scim("PATCH", `/Users/${user.id}`, { schemas: [PATCH], Operations: [{ op: "explode", path: "active" }] }),
      400
    )
    await expectScimError(
      await scim("PATCH", `/Users/${user.id}`, {
        schemas: [PATCH],
        Operations: [{ op: "replace", path: "name.givenName", value: "Changed" }, { op: "remove" }]
      }),
      400
    )
    await expectScimError(await scim("PATCH", `/Users/${user.id}`, "{not json"), 400, "invalidSyntax")
    await expectScimError(await scim("POST", "/Users", { schemas: [USER] }), 400)
    const after = await jsonOf(await scim("GET", `/Users/${user.id}`))
    expect(after).toEqual(user)
  })

  it("deactivating an admin revokes the organisation key bound to them; a service key stays", async () => {
    const user = await jsonOf(await scim("POST", "/Users", newUser("admin-leaver@example.com")))
    expect((await server.send("PUT", `/v1/admin/users/${user.id}`, { role: "admin" })).status).toBe(200)
    const bound = await jsonOf(
      await server.send("POST", "/v1/api-keys/organisation/service", {
        name: "bound to the leaver",
        user_id: user.id,
        scopes: ["workspaces.list"]
      })
    )
    const service = await jsonOf(
      await server.send("POST", "/v1/api-keys/workspace/service", {
        name: "made for the team",
        workspace_id: server.workspaceId,
        scopes: ["workspaces.list"]
      })
    )
    expect((await server.request("/v1/workspaces", { key: bound.key })).status).toBe(200)
    // The user still exists once inactive: their key is refused because it is revoked.
    const deactivated = await scim("PATCH", `/Users/${user.id}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", path: "active", value: false }]
    })
    expect(deactivated.status).toBe(200)
    expect((await server.request("/v1/workspaces", { key: bound.key })).status).toBe(401)
    expect((await jsonOf(await server.request(`/v1/api-keys/${bound.id}`))).status).toBe("revoked")
    expect((await server.request("/v1/workspaces", { key: service.key })).status).toBe(200)
  })

  it("never changes or removes an owner: 403, nothing changed", async () => {
    const owner = await jsonOf(await scim("GET", `/Users/${server.ownerId}`))
    expect(owner.active).toBe(true)
    await expectScimError(
      await scim("PATCH", `/Users/${server.ownerId}`, {
        schemas: [PATCH],
        Operations: [{ op: "replace", path: "active", value: false }]
      }),
      403
    )
    await expectScimError(await scim("DELETE", `/Users/${server.ownerId}`), 403)
    expect(await jsonOf(await scim("GET", `/Users/${server.ownerId}`))).toEqual(owner)
    expect((await server.request("/v1/workspaces")).status).toBe(200)
  })

  it("deprovisioning ends the user's sessions; inactive, they cannot sign in; reactivation revives none", async () => {
    const password = "a long enough password for sam"
    const user = await jsonOf(await scim("POST", "/Users", newUser("signed-in-leaver@example.com")))
    expect((await server.send("PUT", "/v1/auth/password", { user_id: user.id, password })).status).toBe(200)
    const signIn = () =>
      server.request("/v1/auth/password", {
        method: "POST",
        key: null,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "signed-in-leaver@example.com", password })
      })
    const signedIn = await signIn()
    expect(signedIn.status).toBe(200)
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!
    const me = async () => (await server.request("/v1/me", { key: null, headers: { cookie } })).status
    expect(await me()).toBe(200)
    const active = (value: boolean) =>
      scim("PATCH", `/Users/${user.id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "active", value }] })
    expect((await active(false)).status).toBe(200)
    expect(await me()).toBe(401)
    const refused = await signIn()
    expect(refused.status).toBe(401)
    expect(refused.headers.get("set-cookie")).toBeNull()
    expect((await active(true)).status).toBe(200)
    expect(await me()).toBe(401)
    expect((await signIn()).status).toBe(200)
  })

  it("deprovisioning revokes the user's workspace-user key at once; reactivation does not revive it", async () => {
    const user = await jsonOf(await scim("POST", "/Users", newUser("leaver@example.com")))
    expect(
      (await server.send("POST", `/v1/workspaces/${server.workspaceId}/members`, { user_id: user.id, role: "member" }))
        .status
    ).toBe(201)
    const key = await jsonOf(
      await server.send("POST", "/v1/api-keys/workspace/user", {
        name: "leaver's key",
        workspace_id: server.workspaceId,
        user_id: user.id,
        scopes: ["prompts.list"]
      })
    )
    expect(key.key).toBeDefined()
    expect((await server.request("/v1/prompts", { key: key.key })).status).toBe(200)
    await scim("PATCH", `/Users/${user.id}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", path: "active", value: false }]
    })
    expect((await server.request("/v1/prompts", { key: key.key })).status).toBe(401)
    await scim("PATCH", `/Users/${user.id}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", path: "active", value: true }]
    })
    expect((await server.request("/v1/prompts", { key: key.key })).status).toBe(401)
    // Every change is recorded under the SCIM token.
    const logs = await jsonOf(await server.request("/v1/audit-logs?resource_type=user&page_size=1000"))
    const mine = logs.records.filter((r: { resource_id: string }) => r.resource_id === user.id)
    expect(mine.length).toBe(3)
    expect(JSON.stringify(mine)).toContain(tokenId)
  })
})
