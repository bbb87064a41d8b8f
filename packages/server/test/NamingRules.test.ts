/**
 * Names, slugs and email addresses follow one rule each (domain shared/Rules.ts) on every resource: the same
 * refusal, in the same words, wherever the field is, and nothing created.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

/** Each creation with a valid body but for `fields`, and the list that would show what it created. */
const creations = (): ReadonlyArray<{
  readonly resource: string
  readonly path: string
  readonly list: string
  readonly body: (fields: Record<string, unknown>) => Record<string, unknown>
}> => {
  const workspace_id = server.workspaceId
  return [
    { resource: "workspace", path: "/v1/workspaces", list: "/v1/workspaces", body: (f) => ({ name: "w", ...f }) },
    {
      resource: "prompt",
      path: "/v1/prompts",
      list: "/v1/prompts",
      body: (f) => ({ name: "p", string: "Hi", workspace_id, ...f })
    },
    {
      resource: "prompt partial",
      path: "/v1/prompts/partials",
      list: "/v1/prompts/partials",
      body: (f) => ({ name: "p", string: "Hi", workspace_id, ...f })
    },
    {
      resource: "virtual key",
      path: "/v1/virtual-keys",
      list: "/v1/virtual-keys",
      body: (f) => ({ name: "v", provider: "openai", key: "sk-test", workspace_id, ...f })
    },
    {
      resource: "config",
      path: "/v1/configs",
      list: "/v1/configs",
      body: (f) => ({ name: "c", config: { provider: "openai", api_key: "sk-test" }, workspace_id, ...f })
    },
    {
      resource: "MCP integration",
      path: "/v1/mcp-integrations",
      list: `/v1/mcp-integrations?organisation_id=${server.organisationId}`,
      body: (f) => ({ name: "m", url: "https://mcp.example.com/sse", auth_type: "none", transport: "sse", ...f })
    }
  ]
}

const countOf = async (list: string) => (await jsonOf(await server.request(list))).total as number

describe("the shared naming rules", () => {
  it.each([
    ["blank", "   "],
    ["longer than 255 characters", "n".repeat(256)]
  ])("refuse a %s name alike everywhere, creating nothing", async (_, name) => {
    const keyCreation = { name, scopes: ["workspaces.read"], workspace_id: server.workspaceId }
    const refusals = [
      ...await Promise.all(
        creations().map(async ({ body, list, path }) => {
          const before = await countOf(list)
          const error = await errorOf(await server.send("POST", path, body({ name })))
          expect(await countOf(list)).toBe(before)
          return error
        })
      ),
      await errorOf(await server.send("POST", "/v1/api-keys/workspace/service", keyCreation))
    ]
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({
        status: 400,
        code: "invalid_request",
        param: "name",
        message: "name must be 1 to 255 characters."
      })
    }
  })

  it("refuses a user's name over 255 characters in the same words, and takes a blank one as none", async () => {
    const long = await server.send("POST", "/v1/users", {
      email: "long@example.com",
      name: "n".repeat(256),
      role: "member"
    })
    expect(await errorOf(long)).toMatchObject({
      status: 400,
      param: "name",
      message: "name must be 1 to 255 characters."
    })
    const blank = await server.send("POST", "/v1/users", { email: "blank@example.com", name: "  ", role: "member" })
    expect(blank.status).toBe(201)
    const users = await jsonOf(await server.request("/v1/users"))
    expect(users.data.find((u: { email: string }) => u.email === "blank@example.com")).toMatchObject({ name: null })
  })

  it("refuses a slug with other characters alike everywhere, naming its length", async () => {
    for (const { body, path, resource } of creations()) {
      const error = await errorOf(
        await server.send("POST", path, body({ name: `${resource} slugged`, slug: "no spaces" }))
      )
      expect({ resource, ...error }).toMatchObject({
        resource,
        status: 400,
        param: "slug",
        message: expect.stringMatching(/^slug must be \d+ to \d+ letters, digits, '_' or '-'\.$/)
      })
    }
  })

  it("keeps an email address given with spaces and capitals, and refuses one without '@'", async () => {
    const created = await server.send("POST", "/v1/users", { email: "  Someone@Example.COM ", role: "member" })
    expect(created.status).toBe(201)
    const users = await jsonOf(await server.request("/v1/users"))
    expect(users.data.map((u: { email: string }) => u.email)).toContain("someone@example.com")
    const refused = await errorOf(
      await server.send("POST", "/v1/users", { email: "someone.example.com", role: "member" })
    )
    expect(refused).toMatchObject({ status: 400, code: "invalid_request", param: "email" })
  })
})
