/**
 * Keys in production, in one process: rotation with its transition (on a clock the test moves), updates,
 * usage and the list's filters.
 */
import { type ApiKey, DEFAULT_TRANSITION_PERIOD_MS } from "@gateway-control/domain"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeMovableClock } from "./support/MovableClock.ts"
import { startTestServer, type TestServer } from "./support/TestServer.ts"

const clock = makeMovableClock()
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
})
afterAll(() => server?.close())

let counter = 0
/** A workspace service key with these scopes (and options), and its plaintext. */
const workspaceKey = async (scopes: ReadonlyArray<string>, extra: Record<string, unknown> = {}) => {
  const response = await server.send("POST", "/v1/api-keys/workspace/service", {
    name: `key ${++counter}`,
    scopes,
    workspace_id: server.workspaceId,
    ...extra
  })
  expect(response.status).toBe(201)
  const body = (await response.json()) as { id: string; key: string }
  return body
}

const status = async (key: string) => (await server.request("/v1/workspaces?page_size=1", { key })).status
const read = async (id: string) => (await (await server.request(`/v1/api-keys/${id}`)).json()) as ApiKey

/** Polls `check` until it holds, for at most `withinMs`; the elapsed time, or a failure. */
const eventually = async (check: () => Promise<boolean>, withinMs: number) => {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return Date.now() - started
}

const auditRecords = async (resourceId: string) => {
  const response = await server.request(`/v1/audit-logs?page_size=100`)
  const body = (await response.json()) as {
    records: Array<{ action: string; resource_id: string; request_body: unknown; response_status_code: number }>
  }
  return body.records.filter((record) => record.resource_id === resourceId)
}

describe("rotation", () => {
  it("keeps both secrets working inside the transition, then only the new one; one rotation at a time", async () => {
    const { id, key: old } = await workspaceKey(["workspaces.list"])
    expect(await status(old)).toBe(200)

    const rotated = await server.send("POST", `/v1/api-keys/${id}/rotate`, {})
    expect(rotated.status).toBe(200)
    const body = (await rotated.json()) as ApiKey & { key: string }
    const fresh = body.key
    expect(fresh).not.toBe(old)
    expect(Date.parse(body.transition_ends_at!) - Date.parse(body.rotated_at!)).toBe(DEFAULT_TRANSITION_PERIOD_MS)
    expect(body.masked_key).toBe(`${fresh.slice(0, 4)}****${fresh.slice(-4)}`)
    expect(await read(id)).toMatchObject({ rotated_at: body.rotated_at, transition_ends_at: body.transition_ends_at })
    expect([await status(old), await status(fresh)]).toEqual([200, 200])

    const again = await server.send("POST", `/v1/api-keys/${id}/rotate`, { transition_period_ms: 0 })
    expect(again.status).toBe(409)
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("conflict")

    // Past the transition's end only the new secret works, and the end is audited, once.
    clock.advance(DEFAULT_TRANSITION_PERIOD_MS + 1)
    expect([await status(old), await status(fresh)]).toEqual([401, 200])
    await eventually(async () => (await auditRecords(id)).some((r) => r.action === "transition_end"), 5_000)

    // And the key rotates again; with no transition the replaced secret stops at once.
    const immediate = await server.send("POST", `/v1/api-keys/${id}/rotate`, { transition_period_ms: 0 })
    expect(immediate.status).toBe(200)
    const newest = ((await immediate.json()) as { key: string }).key
    expect([await status(fresh), await status(newest)]).toEqual([401, 200])

    // Rotations are audited without the secrets.
    const records = await auditRecords(id)
    expect(records.map((r) => r.action).sort()).toEqual(["create", "rotate", "rotate", "rotate", "transition_end"])
    const text = JSON.stringify(records)
    for (const secret of [old, fresh, newest]) expect(text).not.toContain(secret)
    expect(records.filter((r) => r.action === "rotate").map((r) => r.response_status_code).sort()).toEqual([
      200,
      200,
      409
    ])
  })

  it("needs the kind's rotate scope, and never rotates a key wider than the caller", async () => {
    const target = await workspaceKey(["workspaces.list", "prompts.render"])
    const createOnly = await workspaceKey(["workspace_service_api_keys.create", "workspaces.list", "prompts.render"])
    const narrow = await workspaceKey(["workspace_service_api_keys.rotate", "workspaces.list"])
    const refused = await server.send("POST", `/v1/api-keys/${target.id}/rotate`, {}, createOnly.key)
    expect(refused.status).toBe(403)
    expect(JSON.stringify(await refused.json())).toContain("workspace_service_api_keys.rotate")
    const escalation = await server.send("POST", `/v1/api-keys/${target.id}/rotate`, {}, narrow.key)
    expect(escalation.status).toBe(403)
    expect(JSON.stringify(await escalation.json())).toContain("prompts.render")
    const bad = await server.send("POST", `/v1/api-keys/${target.id}/rotate`, { transition_period_ms: -1 })
    expect(bad.status).toBe(400)
    // No body at all is the default transition.
    const bare = await server.request(`/v1/api-keys/${target.id}/rotate`, { method: "POST" })
    expect(bare.status, await bare.clone().text()).toBe(200)
  })
})

describe("updates, usage and filters", () => {
  it("changes scopes, expiry and rate limits; a scope the caller lacks or a second limit per unit is refused", async () => {
    const { id, key } = await workspaceKey(["workspaces.list", "prompts.render"])
    const updated = await server.send("PUT", `/v1/api-keys/${id}`, {
      name: "renamed",
      scopes: ["workspaces.list"],
      rate_limits: [{ type: "requests", unit: "rpm", value: 100 }]
    })
    expect(updated.status).toBe(200)
    expect(await read(id)).toMatchObject({
      name: "renamed",
      scopes: ["workspaces.list"],
      rate_limits: [{ type: "requests", unit: "rpm", value: 100 }]
    })
    const twice = await server.send("PUT", `/v1/api-keys/${id}`, {
      rate_limits: [{ type: "requests", unit: "rps", value: 1 }, { type: "requests", unit: "rps", value: 2 }]
    })
    expect(twice.status).toBe(400)
    // A key may not lift its own limits.
    const limited = await workspaceKey(["api_keys.update", "workspaces.list"], {
      rate_limits: [{ type: "requests", unit: "rpd", value: 1000 }]
    })
    const own = await server.send("PUT", `/v1/api-keys/${limited.id}`, { rate_limits: [] }, limited.key)
    expect(own.status).toBe(403)
    const wider = await server.send("PUT", `/v1/api-keys/${id}`, { scopes: ["prompts.render"] }, limited.key)
    expect(wider.status).toBe(403)

    // An expiry in the past is refused; one that passes stops the key.
    expect((await server.send("PUT", `/v1/api-keys/${id}`, { expires_at: "2001-01-01T00:00:00Z" })).status).toBe(400)
    const soon = new Date(clock.clock.currentTimeMillisUnsafe() + 60_000).toISOString()
    expect((await server.send("PUT", `/v1/api-keys/${id}`, { expires_at: soon })).status).toBe(200)
    expect(await status(key)).toBe(200)
    clock.advance(60_001)
    expect(await status(key)).toBe(401)
    const actions = (await auditRecords(id)).map((r) => r.action)
    expect(actions.filter((a) => a === "update")).toHaveLength(5)
  })

  it("records when a key was last used, off the request path, and filters the list", async () => {
    const used = await workspaceKey(["workspaces.list"])
    const unused = await workspaceKey(["workspaces.list"])
    expect((await read(used.id)).last_used_at).toBeNull()
    expect(await status(used.key)).toBe(200)
    await eventually(async () => (await read(used.id)).last_used_at !== null, 5_000)
    const usedAt = (await read(used.id)).last_used_at!

    const list = async (query: string) => {
      const response = await server.request(`/v1/api-keys?page_size=1000&${query}`)
      expect(response.status).toBe(200)
      return ((await response.json()) as { data: Array<ApiKey> }).data.map((k) => k.id)
    }
    const before = encodeURIComponent(usedAt)
    expect(await list(`last_used_before=${before}`)).toContain(unused.id)
    expect(await list(`last_used_before=${before}`)).not.toContain(used.id)
    expect(await list(`type=workspace-service&status=active&workspace_id=${server.workspaceId}`)).toEqual(
      expect.arrayContaining([used.id, unused.id])
    )
    expect(await list("type=organisation-service")).not.toContain(used.id)
    expect(await list(`name=${encodeURIComponent(`KEY ${counter - 1}`)}`)).toContain(used.id)
    expect((await server.request("/v1/api-keys?last_used_before=yesterday")).status).toBe(400)
  })
})
