/**
 * Every mutating call that reaches the service leaves an audit record, whatever its body, its key or its
 * outcome; when no record can be written, the call fails closed.
 */
import { isUseCaseName } from "@gateway-control/domain"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ServedApi } from "../../adapters-http/src/Api.ts"
import { MUTATING_METHODS, useCaseOfEndpoint } from "../../adapters-http/src/internal/auditedEndpoints.ts"
import {
  AUDIT_TEST_STORES,
  narrowKey,
  recordOf,
  requestId,
  sendTraced,
  unauthenticatedRecords
} from "./support/AuditStores.ts"
import { errorOf, jsonOf, type TestServer } from "./support/TestServer.ts"

/** `{"a":{"a":…1…}}`, written out as text: no JSON encoder needs to recurse that deep. */
const deepJson = (depth: number) => `${`{"a":`.repeat(depth)}1${"}".repeat(depth)}`

describe.each(AUDIT_TEST_STORES)("the audit log over the $name store", (store) => {
  let server: TestServer
  let auditDown: (down: boolean) => Promise<void>
  let listOnly: { id: string; key: string }

  beforeAll(async () => {
    ;({ server, auditDown } = await store.start())
    listOnly = await narrowKey(server, ["workspaces.list"])
  }, 60_000)
  afterAll(() => server?.close())

  // The input rules (InputRules.ts) refuse such requests with 400 before any handler runs; the refusal is
  // recorded all the same, with what the store cannot hold written in a form it can.
  describe("records requests the input rules refuse, with bodies the store cannot hold", () => {
    it("records a create whose body holds U+0000 and an unpaired surrogate, escaped and flagged", async () => {
      const id = requestId()
      const body = `{"name":"a\\u0000b","description":"half \\ud83d of a pair"}`
      const response = await sendTraced(server, "POST", "/v1/workspaces", body, { key: listOnly.key, id })
      expect(response.status).toBe(400)
      expect(await recordOf(server, id)).toMatchObject({
        response_status_code: 400,
        api_key_id: listOnly.id,
        sanitized: true,
        request_body: { name: "a\\u0000b", description: "half \\ud83d of a pair" }
      })
    })

    it("records a create by a key allowed to make it, holding U+0000, and creates nothing", async () => {
      const id = requestId()
      const workspaceCount = async () => (await server.api((client) => client.workspaces.list({ query: {} }))).total
      const before = await workspaceCount()
      const response = await sendTraced(server, "POST", "/v1/workspaces", `{"name":"nul\\u0000name"}`, { id })
      expect(response.status).toBe(400)
      expect(await recordOf(server, id)).toMatchObject({
        response_status_code: 400,
        action: "create",
        sanitized: true,
        request_body: { name: "nul\\u0000name" }
      })
      expect(await workspaceCount()).toBe(before)
    })

    it("records U+0000 in a path parameter", async () => {
      const id = requestId()
      const response = await sendTraced(server, "DELETE", "/v1/api-keys/no%00such", undefined, { id })
      expect(response.status).toBe(400)
      expect(await recordOf(server, id)).toMatchObject({
        response_status_code: 400,
        action: "revoke",
        resource_type: "api_key"
      })
    })

    it("records a 10,000-deep body cut to the nesting limit", async () => {
      const id = requestId()
      const body = `{"name":"deep","url":"https://mcp.example/sse","auth_type":"none","transport":"sse",` +
        `"configurations":${deepJson(10_000)}}`
      const response = await sendTraced(server, "POST", "/v1/mcp-integrations", body, { key: listOnly.key, id })
      expect(response.status).toBe(400)
      const record = await recordOf(server, id)
      expect(record).toMatchObject({ resource_type: "mcp_integration", response_status_code: 400, sanitized: true })
      expect(JSON.stringify(record!.request_body)).toContain("[truncated: nested deeper than 32 levels]")
    })
  })

  describe("records calls refused before any handler runs", () => {
    it("a mutating call with an unknown or missing key: 401, filed under no organisation", async () => {
      const unknown = requestId()
      const missing = requestId()
      const body = JSON.stringify({ name: "intruder" })
      const key = `gwc_${"x".repeat(43)}`
      expect((await sendTraced(server, "POST", "/v1/workspaces", body, { key, id: unknown })).status).toBe(401)
      expect((await sendTraced(server, "PUT", "/v1/prompts/p1", body, { key: null, id: missing })).status).toBe(401)
      const records = await unauthenticatedRecords(server)
      expect(records.find((r) => r.request_id === unknown)).toMatchObject({
        organisation_id: null,
        user_type: "unauthenticated",
        api_key_id: null,
        action: "create",
        resource_type: "workspace",
        method: "POST",
        uri: "/v1/workspaces",
        response_status_code: 401,
        // Nobody vouches for the caller: its body is not read.
        request_body: null
      })
      expect(records.find((r) => r.request_id === missing)).toMatchObject({ action: "update", resource_type: "prompt" })
      // Not the organisation's: an unknown key proves nothing about whom the caller was after.
      expect(await recordOf(server, unknown)).toBeUndefined()
    })

    it("a mutating call with a revoked key: 401, filed under the key's organisation", async () => {
      const revoked = await narrowKey(server, ["workspaces.create"])
      await server.api((client) => client.apiKeys.revoke({ params: { id: revoked.id } }))
      const id = requestId()
      const response = await sendTraced(server, "POST", "/v1/workspaces", JSON.stringify({ name: "late" }), {
        key: revoked.key,
        id
      })
      expect(response.status).toBe(401)
      expect(await recordOf(server, id)).toMatchObject({
        organisation_id: server.organisationId,
        api_key_id: revoked.id,
        user_id: server.ownerId,
        user_type: "user",
        response_status_code: 401
      })
    })

    it("a render with a revoked key: 401, filed under the key's organisation like any other refusal", async () => {
      const created = await server.send("POST", "/v1/prompts", {
        workspace_id: server.workspaceId,
        name: `Revoked render ${requestId().slice(0, 8)}`,
        string: JSON.stringify([{ role: "user", content: "{{question}}" }]),
        model: "gpt-4o"
      })
      expect(created.status).toBe(201)
      const promptId = (await jsonOf(created)).id as string
      const revoked = await narrowKey(server, ["prompts.render"])
      const path = `/v1/prompts/${promptId}/render`
      const body = JSON.stringify({ variables: { question: "still there?" } })
      expect((await sendTraced(server, "POST", path, body, { key: revoked.key, id: requestId() })).status).toBe(200)
      await server.api((client) => client.apiKeys.revoke({ params: { id: revoked.id } }))
      const id = requestId()
      const response = await sendTraced(server, "POST", path, body, { key: revoked.key, id })
      expect(response.status).toBe(401)
      expect(await recordOf(server, id)).toMatchObject({
        organisation_id: server.organisationId,
        api_key_id: revoked.id,
        action: "render",
        resource_type: "prompt",
        method: "POST",
        uri: path,
        response_status_code: 401,
        request_body: null
      })
    })

    it("reads with a bad key are not administrative actions: no record", async () => {
      const id = requestId()
      expect((await server.request("/v1/workspaces", { key: null, headers: { "x-request-id": id } })).status).toBe(401)
      expect((await unauthenticatedRecords(server)).some((r) => r.request_id === id)).toBe(false)
    })

    it("a body that does not decode: 400, recorded under the caller with what it sent, secrets redacted", async () => {
      const wrongType = requestId()
      const notJson = requestId()
      const secret = requestId()
      expect((await sendTraced(server, "POST", "/v1/workspaces", `{"name": 42}`, { id: wrongType })).status).toBe(400)
      expect((await sendTraced(server, "POST", "/v1/workspaces", `{"name": `, { id: notJson })).status).toBe(400)
      const virtualKey = JSON.stringify({ name: 7, provider: "openai", key: "sk-live-1234567890abcdef" })
      expect((await sendTraced(server, "POST", "/v1/virtual-keys", virtualKey, { id: secret })).status).toBe(400)
      expect(await recordOf(server, wrongType)).toMatchObject({
        organisation_id: server.organisationId,
        user_id: server.ownerId,
        action: "create",
        resource_type: "workspace",
        response_status_code: 400,
        request_body: { name: 42 },
        sanitized: false
      })
      // Text that is not JSON cannot be redacted, so it is left out, and the record says so.
      expect(await recordOf(server, notJson)).toMatchObject({ request_body: null, sanitized: true })
      expect(await recordOf(server, secret)).toMatchObject({
        resource_type: "virtual_key",
        request_body: { name: 7, provider: "openai", key: "[REDACTED]" }
      })
    })
  })

  describe("fails closed when no record can be written", () => {
    it("answers 500 and changes nothing, for allowed, denied and unauthenticated calls alike", async () => {
      await auditDown(true)
      try {
        const allowed = await server.send("POST", "/v1/workspaces", { name: "Unaudited", slug: "unaudited" })
        expect(await errorOf(allowed)).toMatchObject({ status: 500, code: "internal_error" })
        const denied = await server.send("POST", "/v1/workspaces", { name: "Nope" }, listOnly.key)
        expect(denied.status).toBe(500)
        const unknown = await server.send("POST", "/v1/workspaces", { name: "Who" }, `gwc_${"y".repeat(43)}`)
        expect(unknown.status).toBe(500)
        const undecodable = await server.send("POST", "/v1/workspaces", { name: 42 })
        expect(undecodable.status).toBe(500)
      } finally {
        await auditDown(false)
      }
      // Reads need no record and go on working.
      const listed = await server.api((client) => client.workspaces.list({ query: { page_size: 1000 } }))
      expect(listed.data.map((w) => w.slug)).not.toContain("unaudited")
    })
  })
})

describe("the table of audited endpoints", () => {
  it("names every mutating endpoint, so refusals before a handler read like the handler's own records", () => {
    const mutating = Object.values(ServedApi.groups).flatMap((group) =>
      Object.values(group.endpoints)
        .filter((endpoint) => MUTATING_METHODS.has(endpoint.method))
        .map((endpoint) => `${group.identifier}.${endpoint.identifier}`)
    )
    expect(mutating.length).toBeGreaterThan(10)
    expect(mutating.filter((name) => !isUseCaseName(useCaseOfEndpoint(name)))).toEqual([])
  })
})
