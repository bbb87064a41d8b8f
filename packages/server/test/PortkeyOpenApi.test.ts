/**
 * Portkey's OpenAPI document as the contract of the admin family (workspaces, workspace users, users), API keys
 * and virtual keys: each operation is sent a request valid by the document (its own examples where it has
 * them), and its answer must validate against the document's response schema. Where the document and our
 * contract differ on purpose, the README's "Portkey compatibility" section says so; those cases are asserted
 * here as the README states them.
 */
import { ScopeNames } from "@gateway-control/domain"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  makeResponseValidator,
  makeSchemaValidator,
  readPortkeyOpenApi,
  requestExamples
} from "./support/PortkeyOpenApi.ts"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const document = readPortkeyOpenApi()

let server: TestServer
let workspaceKey: string

beforeAll(async () => {
  if (document === undefined) return
  server = await startTestServer()
  const created = await jsonOf(
    await server.send("POST", "/v1/api-keys/workspace/service", {
      name: "conformance",
      workspace_id: server.workspaceId,
      scopes: ScopeNames.filter((scope) =>
        /^(virtual_keys|api_keys|workspace_service_api_keys)\./.test(scope) || scope === "completions.write"
      )
    })
  )
  workspaceKey = created.key
})
afterAll(async () => {
  await server?.close()
})

/** Sends the request and answers its status and body, the body validated against the document's schema. */
const conforming = async (
  method: string,
  documentPath: string,
  path: string,
  body?: unknown,
  key?: string
) => {
  const response = await server.send(method.toUpperCase(), path, body, key)
  const answer = await jsonOf(response)
  expect(response.status, JSON.stringify(answer)).toBeLessThan(300)
  expect(validate(documentPath, method, answer), JSON.stringify(answer)).toEqual([])
  return answer
}

let validate: ReturnType<typeof makeResponseValidator>

describe.skipIf(document === undefined)("Portkey's OpenAPI document, for the operations we serve", () => {
  beforeAll(() => {
    validate = makeResponseValidator(document!)
  })

  it("admin workspaces: create, list, get, update, delete", async () => {
    // The document's example also sets `defaults`, which this gateway refuses by name (README).
    const { defaults: _defaults, ...example } = requestExamples(document!, "/admin/workspaces", "post").example as {
      defaults: unknown
    }
    const created = await conforming("post", "/admin/workspaces", "/v1/admin/workspaces", example)
    expect(created).toMatchObject({ name: "My Workspace", description: "My Description", object: "workspace" })
    const refused = await errorOf(await server.send("POST", "/v1/admin/workspaces", { name: "Other", defaults: {} }))
    expect(refused).toMatchObject({ status: 400, param: "defaults" })

    await conforming("get", "/admin/workspaces", "/v1/admin/workspaces?page_size=1&current_page=0")
    await conforming("get", "/admin/workspaces/{workspaceId}", `/v1/admin/workspaces/${created.id}`)
    const { defaults: _d, ...update } = requestExamples(document!, "/admin/workspaces/{workspaceId}", "put")
      .example as { defaults: unknown }
    const updated = await conforming(
      "put",
      "/admin/workspaces/{workspaceId}",
      `/v1/admin/workspaces/${created.id}`,
      update
    )
    expect(updated).toMatchObject({ id: created.id, name: "My Workspace" })
    await conforming("delete", "/admin/workspaces/{workspaceId}", `/v1/admin/workspaces/${created.id}`)
    expect((await server.request(`/v1/admin/workspaces/${created.id}`)).status).toBe(404)
  })

  it("users and workspace users: add several, list, get, update, remove", async () => {
    const users = await Promise.all(
      ["ada", "grace"].map(async (name) =>
        jsonOf(
          await server.send("POST", "/v1/users", {
            email: `${name}@portkey.test`,
            name: `${name} Lovelace`,
            role: "member"
          })
        )
      )
    )
    const example = requestExamples(document!, "/admin/workspaces/{workspaceId}/users", "post").example as {
      users: Array<{ id: string; role: string }>
    }
    const body = { users: example.users.map((user, i) => ({ ...user, id: users[i].id })) }
    const base = `/v1/admin/workspaces/${server.workspaceId}/users`
    await conforming("post", "/admin/workspaces/{workspaceId}/users", base, body)
    const listed = await conforming(
      "get",
      "/admin/workspaces/{workspaceId}/users",
      `${base}?page_size=10&current_page=0`
    )
    expect(listed.data.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining(users.map((u) => u.id)))
    const member = "/admin/workspaces/{workspaceId}/users/{userId}"
    const got = await conforming("get", member, `${base}/${users[0].id}`)
    expect(got).toMatchObject({ object: "workspace-user", first_name: "ada", last_name: "Lovelace", role: "member" })
    await conforming("put", member, `${base}/${users[0].id}`, requestExamples(document!, member, "put").example)
    await conforming("delete", member, `${base}/${users[0].id}`)

    await conforming("get", "/admin/users", "/v1/admin/users?pageSize=10&currentPage=0")
    const user = await conforming("get", "/admin/users/{userId}", `/v1/admin/users/${users[1].id}`)
    expect(user).toMatchObject({ id: users[1].id, workspace_ids: [server.workspaceId] })
    const example2 = requestExamples(document!, "/admin/users/{userId}", "put").example
    expect(await conforming("put", "/admin/users/{userId}", `/v1/admin/users/${users[1].id}`, example2)).toMatchObject(
      { role: "admin" }
    )
    await conforming("delete", "/admin/users/{userId}", `/v1/admin/users/${users[1].id}`)
    expect((await server.request(`/v1/admin/users/${users[1].id}`)).status).toBe(404)
  })

  it("API keys: every create and update example, list, get, rotate, delete", async () => {
    const examples = requestExamples(document!, "/api-keys/{type}/{sub-type}", "post")
    const ids: Array<string> = []
    for (const example of Object.values(examples)) {
      const created = await conforming(
        "post",
        "/api-keys/{type}/{sub-type}",
        "/v1/api-keys/workspace/service",
        example,
        workspaceKey
      )
      ids.push(created.id)
    }
    await conforming("get", "/api-keys", `/v1/api-keys?page_size=10&current_page=0&workspace_id=${server.workspaceId}`)
    for (const id of ids) await conforming("get", "/api-keys/{id}", `/v1/api-keys/${id}`)

    const updates = requestExamples(document!, "/api-keys/{id}", "put")
    for (const [name, example] of Object.entries(updates)) {
      const response = await server.send("PUT", `/v1/api-keys/${ids[0]}`, example)
      if (name === "reset_usage") {
        // No usage is counted against usage_limits here, so there is none to reset: refused by name (README).
        expect(await errorOf(response)).toMatchObject({ status: 400, param: "reset_usage" })
        continue
      }
      const answer = await jsonOf(response)
      expect(response.status, JSON.stringify(answer)).toBe(200)
      expect(validate("/api-keys/{id}", "put", answer)).toEqual([])
    }
    const read = await conforming("get", "/api-keys/{id}", `/v1/api-keys/${ids[0]}`)
    expect(read).toMatchObject({
      rotation_policy: { rotation_period: "monthly", key_transition_period_ms: 3600000 },
      usage_limits: { type: "cost", credit_limit: 100, alert_threshold: 80, periodic_reset: "monthly" },
      alert_emails: ["admin@example.com"]
    })

    const rotation = requestExamples(document!, "/api-keys/{id}/rotate", "post").default
    const rotated = await conforming("post", "/api-keys/{id}/rotate", `/v1/api-keys/${ids[1]}/rotate`, rotation)
    expect(Date.parse(rotated.key_transition_expires_at) - Date.parse(rotated.rotated_at)).toBe(3_600_000)
    await conforming("delete", "/api-keys/{id}", `/v1/api-keys/${ids[2]}`)
  })

  it("virtual keys: create (the generic example), list, get, update, delete", async () => {
    // The example's `workspace_id: ""` names no workspace; a workspace key creates in its own, so it is left out.
    const { workspace_id: _none, ...example } = requestExamples(document!, "/virtual-keys", "post").generic as {
      workspace_id: string
    }
    const created = await conforming("post", "/virtual-keys", "/v1/virtual-keys", example, workspaceKey)
    await conforming("get", "/virtual-keys", "/v1/virtual-keys?current_page=0&page_size=10", undefined, workspaceKey)
    const read = await conforming(
      "get",
      "/virtual-keys/{slug}",
      `/v1/virtual-keys/${created.slug}`,
      undefined,
      workspaceKey
    )
    expect(read).toMatchObject({
      note: "Virtual key description",
      usage_limits: { credit_limit: 10, periodic_reset: "monthly", alert_threshold: 9 },
      ai_provider_name: "openai",
      masked_api_key: expect.any(String)
    })
    await conforming(
      "put",
      "/virtual-keys/{slug}",
      `/v1/virtual-keys/${created.slug}`,
      { name: "Renamed", note: null },
      workspaceKey
    )
    await conforming("delete", "/virtual-keys/{slug}", `/v1/virtual-keys/${created.slug}`, undefined, workspaceKey)
  })

  it("errors: the envelope validates against Portkey's ErrorResponse", async () => {
    const response = await server.request("/v1/admin/workspaces/no-such-workspace")
    expect(response.status).toBe(404)
    expect(makeSchemaValidator(document!, "ErrorResponse")(await jsonOf(response))).toEqual([])
  })
})
