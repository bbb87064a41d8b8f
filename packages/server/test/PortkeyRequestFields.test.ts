/**
 * Nothing Portkey's clients send is accepted and dropped: each field of Portkey's request schemas for API keys,
 * key rotation, virtual keys and workspaces is either acted on (stored, returned, and used where the control
 * plane acts) or refused with 400 naming it, and a refusal changes nothing. On every store, since the fields
 * are new columns.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { availableStores, errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

describe.each(availableStores)("Portkey's request fields on %s", (store) => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ store })
  })
  afterAll(async () => {
    await server.close()
  })

  /** A new workspace key with `fields`, as the admin key creates it; its id and plaintext. */
  const newKey = async (fields: Record<string, unknown> = {}) => {
    const response = await server.send("POST", "/v1/api-keys/workspace/service", {
      name: "fields",
      workspace_id: server.workspaceId,
      scopes: ["workspaces.read"],
      ...fields
    })
    const body = await jsonOf(response)
    expect(response.status, JSON.stringify(body)).toBe(201)
    return body as { id: string; key: string }
  }
  const read = async (id: string) => jsonOf(await server.request(`/v1/api-keys/${id}`))
  const keyCount = async () => (await jsonOf(await server.request("/v1/api-keys?page_size=1"))).total as number

  describe("API keys", () => {
    it("usage_limits: stored and returned on create and update; a malformed one is refused by name", async () => {
      const limits = { type: "cost", credit_limit: 100, alert_threshold: 80, periodic_reset: "monthly" }
      const { id } = await newKey({ usage_limits: limits })
      expect((await read(id)).usage_limits).toEqual(limits)
      await server.send("PUT", `/v1/api-keys/${id}`, { usage_limits: { credit_limit: 5, periodic_reset_days: 7 } })
      expect((await read(id)).usage_limits).toEqual({ credit_limit: 5, periodic_reset_days: 7 })
      await server.send("PUT", `/v1/api-keys/${id}`, { usage_limits: null })
      expect(await read(id)).not.toHaveProperty("usage_limits")
      const before = await keyCount()
      const refused = await server.send("POST", "/v1/api-keys/workspace/service", {
        name: "bad",
        workspace_id: server.workspaceId,
        scopes: ["workspaces.read"],
        usage_limits: { credit_limit: 5, alert_threshold: 9 }
      })
      expect(await errorOf(refused)).toMatchObject({ status: 400, param: "usage_limits.alert_threshold" })
      expect(await keyCount()).toBe(before)
    })

    it("rotation_policy: stored and returned, and its transition is the one a rotation asking for none gets", async () => {
      const policy = { rotation_period: "monthly", key_transition_period_ms: 3_600_000 }
      const { id, key } = await newKey({ rotation_policy: policy })
      expect((await read(id)).rotation_policy).toEqual(policy)
      const rotated = await jsonOf(await server.send("POST", `/v1/api-keys/${id}/rotate`, {}))
      expect(Date.parse(rotated.transition_ends_at) - Date.parse(rotated.rotated_at)).toBe(3_600_000)
      // The old secret still works during that hour.
      expect((await server.request(`/v1/workspaces/${server.workspaceId}`, { key })).status).toBe(200)
      const refused = await server.send("PUT", `/v1/api-keys/${id}`, {
        rotation_policy: { rotation_period: "weekly", next_rotation_at: "2030-01-01T00:00:00Z" }
      })
      expect(await errorOf(refused)).toMatchObject({ status: 400, param: "rotation_policy" })
      const tooShort = await server.send("PUT", `/v1/api-keys/${id}`, {
        rotation_policy: { rotation_period: "weekly", key_transition_period_ms: 1000 }
      })
      expect(await errorOf(tooShort)).toMatchObject({ status: 400, param: "rotation_policy.key_transition_period_ms" })
      expect((await read(id)).rotation_policy).toEqual(policy)
    })

    it("alert_emails: stored and returned; an address that is not one is refused by name", async () => {
      const { id } = await newKey({ alert_emails: ["Ops@Example.com"] })
      expect((await read(id)).alert_emails).toEqual(["ops@example.com"])
      const refused = await server.send("PUT", `/v1/api-keys/${id}`, { alert_emails: ["ops@example.com", "nope"] })
      expect(await errorOf(refused)).toMatchObject({ status: 400, param: "alert_emails[1]" })
      expect((await read(id)).alert_emails).toEqual(["ops@example.com"])
    })

    it("reset_usage: true is refused by name (no usage is counted to reset); false asks nothing", async () => {
      const { id } = await newKey()
      const refused = await server.send("PUT", `/v1/api-keys/${id}`, { reset_usage: true, name: "renamed" })
      expect(await errorOf(refused)).toMatchObject({ status: 400, param: "reset_usage" })
      expect((await read(id)).name).toBe("fields")
      expect((await server.send("PUT", `/v1/api-keys/${id}`, { reset_usage: false })).status).toBe(200)
    })

    it("defaults: refused by name on create and update", async () => {
      const before = await keyCount()
      const refused = await server.send("POST", "/v1/api-keys/workspace/service", {
        name: "with defaults",
        workspace_id: server.workspaceId,
        scopes: ["workspaces.read"],
        defaults: { config_id: "pc-abc" }
      })
      expect(await errorOf(refused)).toMatchObject({ status: 400, param: "defaults" })
      expect(await keyCount()).toBe(before)
      const { id } = await newKey()
      expect(await errorOf(await server.send("PUT", `/v1/api-keys/${id}`, { defaults: {} }))).toMatchObject({
        status: 400,
        param: "defaults"
      })
    })

    it("key_transition_period_ms on rotate sets the transition; two different periods are refused", async () => {
      const { id, key } = await newKey()
      const rotated = await jsonOf(
        await server.send("POST", `/v1/api-keys/${id}/rotate`, { key_transition_period_ms: 7_200_000 })
      )
      expect(Date.parse(rotated.transition_ends_at) - Date.parse(rotated.rotated_at)).toBe(7_200_000)
      expect(rotated.key_transition_expires_at).toBe(rotated.transition_ends_at)
      expect((await server.request(`/v1/workspaces/${server.workspaceId}`, { key })).status).toBe(200)
      const other = await newKey()
      const refused = await server.send("POST", `/v1/api-keys/${other.id}/rotate`, {
        key_transition_period_ms: 3_600_000,
        transition_period_ms: 60_000
      })
      expect(await errorOf(refused)).toMatchObject({ status: 400, param: "key_transition_period_ms" })
      expect((await read(other.id)).rotated_at).toBeNull()
    })
  })

  describe("virtual keys", () => {
    const createVk = (fields: Record<string, unknown>) =>
      server.send("POST", `/v1/virtual-keys?workspace_id=${server.workspaceId}`, {
        provider: "openai",
        key: "sk-fields-1234",
        workspace_id: server.workspaceId,
        ...fields
      })
    const readVk = async (id: string) => jsonOf(await server.request(`/v1/virtual-keys/${id}`))

    it("note: stored, returned, changed and cleared", async () => {
      const created = await jsonOf(await createVk({ name: "Noted", note: "team budget" }))
      expect((await readVk(created.id)).note).toBe("team budget")
      await server.send("PUT", `/v1/virtual-keys/${created.id}`, { note: "moved" })
      expect((await readVk(created.id)).note).toBe("moved")
      await server.send("PUT", `/v1/virtual-keys/${created.id}`, { note: null })
      expect((await readVk(created.id)).note).toBeNull()
    })

    it("usage_limits: stored, returned and changed; a malformed one is refused by name and creates nothing", async () => {
      const created = await jsonOf(await createVk({ name: "Limited", usage_limits: { credit_limit: 10 } }))
      expect((await readVk(created.id)).usage_limits).toEqual({ credit_limit: 10 })
      await server.send("PUT", `/v1/virtual-keys/${created.id}`, { usage_limits: { credit_limit: 20, type: "tokens" } })
      expect((await readVk(created.id)).usage_limits).toEqual({ credit_limit: 20, type: "tokens" })
      const refused = await createVk({
        name: "Malformed",
        usage_limits: { periodic_reset: "monthly", periodic_reset_days: 30 }
      })
      expect(await errorOf(refused)).toMatchObject({ status: 400, param: "usage_limits.periodic_reset_days" })
      expect((await server.request("/v1/virtual-keys/malformed")).status).toBe(404)
    })
  })

  describe("prompts", () => {
    const createPrompt = async (fields: Record<string, unknown>) => {
      const response = await server.send("POST", "/v1/prompts", {
        workspace_id: server.workspaceId,
        string: "[{\"role\":\"user\",\"content\":\"Hi {{name}}\"}]",
        parameters: {},
        model: "gpt-4o",
        ...fields
      })
      const body = await jsonOf(response)
      expect(response.status, JSON.stringify(body)).toBe(201)
      return body as { id: string }
    }
    const versionsOf = async (id: string) =>
      (await jsonOf(await server.request(`/v1/prompts/${id}`))).versions as Array<Record<string, unknown>>
    const promptCount = async () => (await jsonOf(await server.request("/v1/prompts?page_size=1"))).total as number

    it("virtual_key: stored and returned with the version, kept by later versions, cleared by null (then absent)", async () => {
      const { id } = await createPrompt({ name: "With a virtual key", virtual_key: "openai-main" })
      expect((await versionsOf(id))[0].virtual_key).toBe("openai-main")
      await server.send("PUT", `/v1/prompts/${id}`, { string: "Hello" })
      await server.send("PUT", `/v1/prompts/${id}`, { virtual_key: "anthropic-team" })
      await server.send("PUT", `/v1/prompts/${id}`, { virtual_key: null })
      expect((await versionsOf(id)).map((v) => v.virtual_key)).toEqual([
        "openai-main",
        "openai-main",
        "anthropic-team",
        undefined
      ])
      const before = await promptCount()
      const refused = await server.send("POST", "/v1/prompts", {
        name: "Bad key",
        workspace_id: server.workspaceId,
        string: "x",
        virtual_key: "not a slug!"
      })
      expect(await errorOf(refused)).toMatchObject({ status: 400, param: "virtual_key" })
      expect(await promptCount()).toBe(before)
    })

    it("functions, tools, tool_choice: saved in the parameters, checked, and rendered; two values refused", async () => {
      const tools = [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }]
      const toolChoice = { type: "function", function: { name: "lookup" } }
      const { id } = await createPrompt({ name: "With tools", tools, tool_choice: toolChoice })
      expect((await versionsOf(id))[0].parameters).toEqual({ tools, tool_choice: toolChoice })
      const rendered = await jsonOf(
        await server.send("POST", `/v1/prompts/${id}/render`, { variables: { name: "Ada" } })
      )
      expect(rendered.data).toMatchObject({ tools, tool_choice: toolChoice })
      const functions = [{ name: "legacy", parameters: { type: "object" } }]
      await server.send("PUT", `/v1/prompts/${id}`, { functions })
      expect((await versionsOf(id))[1].parameters).toEqual({ tools, tool_choice: toolChoice, functions })
      const twice = await server.send("PUT", `/v1/prompts/${id}`, { tools: [], parameters: { tools } })
      expect(await errorOf(twice)).toMatchObject({ status: 400, param: "tools" })
      const malformed = await server.send("PUT", `/v1/prompts/${id}`, { tools: [{ type: "function" }] })
      expect(await errorOf(malformed)).toMatchObject({ status: 400 })
      expect(await versionsOf(id)).toHaveLength(2)
    })

    it("update: prompt_metadata is template_metadata, is_raw_template takes 0/1, patch: false is refused", async () => {
      const { id } = await createPrompt({ name: "Portkey update", template_metadata: { a: 1 } })
      await server.send("PUT", `/v1/prompts/${id}`, { prompt_metadata: { b: 2 }, patch: true })
      expect((await versionsOf(id))[1].template_metadata).toEqual({ b: 2 })
      const clash = await server.send("PUT", `/v1/prompts/${id}`, {
        prompt_metadata: { b: 2 },
        template_metadata: { c: 3 }
      })
      expect(await errorOf(clash)).toMatchObject({ status: 400, param: "prompt_metadata" })
      const raw = await server.send("PUT", `/v1/prompts/${id}`, {
        string: "[{\"role\":\"user\",\"content\":\"{{name}}\"}]",
        is_raw_template: 1
      })
      expect(raw.status).toBe(200)
      expect((await versionsOf(id))[2].is_raw_template).toBe(true)
      const strict = await server.send("PUT", `/v1/prompts/${id}`, { string: "x", patch: false })
      expect(await errorOf(strict)).toMatchObject({ status: 400, param: "patch" })
      expect(await versionsOf(id)).toHaveLength(3)
    })
  })

  describe("workspaces", () => {
    it.each(["defaults", "usage_limits", "rate_limits", "users"])("%s is refused by name on create", async (field) => {
      const name = `With ${field}`
      const refused = await server.send("POST", "/v1/admin/workspaces", { name, [field]: field === "users" ? [] : {} })
      expect(await errorOf(refused)).toMatchObject({ status: 400, param: field })
      const listed = await jsonOf(await server.request("/v1/admin/workspaces"))
      expect(listed.data.map((w: { name: string }) => w.name)).not.toContain(name)
    })

    it.each(["defaults", "usage_limits", "rate_limits"])("%s is refused by name on update", async (field) => {
      const refused = await server.send("PUT", `/v1/admin/workspaces/${server.workspaceId}`, {
        name: "Renamed",
        [field]: []
      })
      expect(await errorOf(refused)).toMatchObject({ status: 400, param: field })
      expect((await jsonOf(await server.request(`/v1/workspaces/${server.workspaceId}`))).name).toBe("Default")
    })
  })
})
