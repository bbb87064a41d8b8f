/**
 * Rate limits per key: 429 `rate_limited` past the limit with retry-after and x-ratelimit-* headers, on render
 * and on the JSON endpoints alike; nothing of the kind for a key without limits. Counted in this process's
 * memory here; Redis-shared counting is in RedisRateLimits.test.ts and CrossProcess.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeMovableClock } from "./support/MovableClock.ts"
import { startTestServer, type TestServer } from "./support/TestServer.ts"

const clock = makeMovableClock()
let server: TestServer
let promptId: string
beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  const created = await server.send("POST", "/v1/prompts", {
    name: "limited",
    workspace_id: server.workspaceId,
    string: "Hello {{name}}",
    model: "m"
  })
  expect(created.status).toBe(201)
  promptId = ((await created.json()) as { id: string }).id
})
afterAll(() => server?.close())

const keyWith = async (rateLimits: ReadonlyArray<Record<string, unknown>>) => {
  const response = await server.send("POST", "/v1/api-keys/workspace/service", {
    name: "limited key",
    scopes: ["prompts.render", "workspaces.list"],
    workspace_id: server.workspaceId,
    rate_limits: rateLimits
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { key: string }).key
}

const render = (key: string) => server.send("POST", `/v1/prompts/${promptId}/render`, { variables: { name: "x" } }, key)
const listWorkspaces = (key: string) => server.request("/v1/workspaces?page_size=1", { key })

const headersOf = (response: Response) => ({
  limit: response.headers.get("x-ratelimit-limit"),
  remaining: response.headers.get("x-ratelimit-remaining"),
  reset: response.headers.get("x-ratelimit-reset"),
  retryAfter: response.headers.get("retry-after")
})

/** Sends `count` calls at once; the answers in order of their status, then of what remains. */
const burst = async (count: number, call: () => Promise<Response>) => {
  const responses = await Promise.all(Array.from({ length: count }, call))
  const answers = await Promise.all(responses.map(async (response) => ({
    status: response.status,
    headers: headersOf(response),
    code: response.status === 429 ? ((await response.json()) as { error: { code: string } }).error.code : null
  })))
  return answers.sort((a, b) => a.status - b.status || Number(b.headers.remaining) - Number(a.headers.remaining))
}

describe.each([
  { path: "render", call: render },
  { path: "a JSON endpoint", call: listWorkspaces }
])("a key limited to 5 requests a second, on $path", ({ call }) => {
  it("gets 5 answers and then 429s with retry-after and x-ratelimit-* headers, until the window passes", async () => {
    const key = await keyWith([{ type: "requests", unit: "rps", value: 5 }])
    const answers = await burst(12, () => call(key))
    expect(answers.map((a) => a.status)).toEqual([...Array(5).fill(200), ...Array(7).fill(429)])
    expect(answers.slice(0, 5).map((a) => a.headers)).toEqual(
      [4, 3, 2, 1, 0].map((remaining) => ({ limit: "5", remaining: String(remaining), reset: "1", retryAfter: null }))
    )
    for (const refused of answers.slice(5)) {
      expect(refused.code).toBe("rate_limited")
      expect(refused.headers).toEqual({ limit: "5", remaining: "0", reset: "1", retryAfter: "1" })
    }
    clock.advance(1_001)
    expect((await call(key)).status).toBe(200)
  })
})

describe("limits of several windows", () => {
  it("answer with the tightest one, and a key without limits gets no such headers", async () => {
    const key = await keyWith([{ type: "requests", unit: "rps", value: 100 }, {
      type: "requests",
      unit: "rph",
      value: 3
    }])
    const answers = await burst(4, () => listWorkspaces(key))
    expect(answers.map((a) => [a.status, a.headers.limit, a.headers.remaining])).toEqual([
      [200, "3", "2"],
      [200, "3", "1"],
      [200, "3", "0"],
      [429, "3", "0"]
    ])
    expect(Number(answers[3]!.headers.retryAfter)).toBeGreaterThan(60)
    const unlimited = await keyWith([])
    expect(headersOf(await render(unlimited))).toEqual({ limit: null, remaining: null, reset: null, retryAfter: null })
  })

  it("refuses a limit that is not a whole number from 1, and two limits of one unit", async () => {
    for (
      const rateLimits of [
        [{ type: "requests", unit: "rps", value: 0 }],
        [{ type: "requests", unit: "rps", value: 1.5 }],
        [{ type: "tokens", unit: "rps", value: 5 }],
        [{ type: "requests", unit: "rpw", value: 5 }],
        [{ type: "requests", unit: "rpm", value: 5 }, { type: "requests", unit: "rpm", value: 6 }]
      ]
    ) {
      const response = await server.send("POST", "/v1/api-keys/workspace/service", {
        name: "bad limits",
        scopes: ["workspaces.list"],
        workspace_id: server.workspaceId,
        rate_limits: rateLimits
      })
      expect(response.status).toBe(400)
    }
  })
})
