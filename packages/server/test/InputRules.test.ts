/**
 * Input every store must refuse alike (domain/src/shared/InputRules.ts): NUL and lone surrogates in any text, JSON
 * nested deeper than MAX_JSON_DEPTH, and dates no store can compare. Before these rules the memory store kept
 * such input, PostgreSQL and PGlite answered 500 (NUL in text, `\u0000` and lone surrogates in jsonb), and
 * 10,000-deep JSON overflowed the stack in every store. Each case must answer 400 naming the field and
 * leave no trace: no audit record, hence no change.
 */
import { ApiKeyAuth, ServedApi } from "@gateway-control/adapters-http"
import { MAX_JSON_DEPTH } from "@gateway-control/domain"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RequestInputRules } from "../../adapters-http/src/InputRules.ts"
import { pgliteFromSnapshot, postgresInFreshSchema, postgresUrl } from "../../adapters-sql/test/support/Stores.ts"
import { providerRegistry } from "../src/App.ts"
import { errorOf, jsonOf, startTestServer, type TestServer, type TestServerOptions } from "./support/TestServer.ts"

const stores: Array<readonly [string, () => TestServerOptions["store"]]> = [
  ["memory", () => undefined],
  ["PGlite", pgliteFromSnapshot]
]
if (postgresUrl !== undefined) {
  const url = postgresUrl
  stores.push(["PostgreSQL", () => postgresInFreshSchema(url)])
}

/** `{"a":{"a":…1…}}`, `depth` objects deep, as text: the test's own JSON.parse would need the stack too. */
const nested = (depth: number) => `${"{\"a\":".repeat(depth)}1${"}".repeat(depth)}`

interface Case {
  readonly name: string
  readonly param: string
  readonly request: (server: TestServer, workspaceKey: string) => Promise<Response>
}

const json = (server: TestServer, method: string, path: string, body: string, key?: string) =>
  server.request(path, { method, key, headers: { "content-type": "application/json" }, body })

const cases: ReadonlyArray<Case> = [
  ...([
    ["/v1/workspaces/a%00b", "workspaceId"],
    ["/v1/prompts/a%00b", "promptId"],
    ["/v1/prompts/partials/a%00b", "partialId"],
    ["/v1/api-keys/a%00b", "id"],
    ["/v1/virtual-keys/a%00b", "id"],
    ["/v1/configs/a%00b", "id"],
    ["/v1/mcp-integrations/a%00b", "id"],
    ["/v1/mcp-servers/a%00b", "mcpServerId"]
  ] as const).map(([path, param]): Case => ({
    name: `NUL in a path id: GET ${path}`,
    param,
    request: (server) => server.request(path)
  })),
  {
    name: "NUL in the prompt id of a render",
    param: "promptId",
    request: (server) => server.send("POST", "/v1/prompts/a%00b/render", { variables: {} })
  },
  {
    name: "NUL in a query value: workspace_id",
    param: "workspace_id",
    request: (server) => server.request("/v1/prompts?workspace_id=a%00b")
  },
  {
    name: "NUL in a query value: search of MCP servers",
    param: "search",
    request: (server) => server.request("/v1/mcp-servers?search=a%00b")
  },
  {
    name: "NUL in a query value: search of MCP integrations",
    param: "search",
    request: (server) => server.request(`/v1/mcp-integrations?organisation_id=${server.organisationId}&search=a%00b`)
  },
  {
    name: "NUL in a body string: email",
    param: "email",
    request: (server) => server.send("POST", "/v1/users", { email: "a\u0000@example.com", role: "member" })
  },
  {
    name: "NUL in a body string: workspace name",
    param: "name",
    request: (server) => server.send("POST", "/v1/workspaces", { name: "nul\u0000name" })
  },
  {
    name: "NUL in the inline config of x-service-config",
    param: "x-service-config.api_key",
    request: (server, workspaceKey) =>
      server.request("/v1/fine_tuning/jobs", {
        key: workspaceKey,
        headers: { "x-service-config": JSON.stringify({ provider: "openai", api_key: "sk-\u0000" }) }
      })
  },
  {
    name: "a lone surrogate in a workspace name",
    param: "name",
    request: (server) => server.send("POST", "/v1/workspaces", { name: "lone \ud800 surrogate" })
  },
  {
    name: "a lone surrogate in a prompt name",
    param: "name",
    request: (server) =>
      server.send("POST", "/v1/prompts", { name: "lone \udc00", string: "x", workspace_id: server.workspaceId })
  },
  {
    name: "10,000-deep template_metadata",
    param: "template_metadata",
    request: (server) =>
      json(
        server,
        "POST",
        "/v1/prompts",
        `{"name":"deep","string":"x","workspace_id":"${server.workspaceId}","template_metadata":${nested(10_000)}}`
      )
  },
  {
    name: "10,000-deep parameters",
    param: "parameters",
    request: (server) =>
      json(
        server,
        "POST",
        "/v1/prompts",
        `{"name":"deep","string":"x","workspace_id":"${server.workspaceId}","parameters":${nested(10_000)}}`
      )
  },
  {
    name: "10,000-deep configurations",
    param: "configurations",
    request: (server) =>
      json(
        server,
        "POST",
        "/v1/mcp-integrations",
        `{"name":"deep","url":"https://mcp.example.com/sse","auth_type":"none","transport":"sse","workspace_id":"${server.workspaceId}","configurations":${
          nested(10_000)
        }}`
      )
  },
  {
    name: "10,000-deep render variables",
    param: "variables",
    request: (server) => json(server, "POST", "/v1/prompts/any/render", `{"variables":${nested(10_000)}}`)
  },
  {
    name: "start_time=garbage",
    param: "start_time",
    request: (server) => server.request("/v1/audit-logs?start_time=garbage")
  },
  {
    name: "end_time=garbage",
    param: "end_time",
    request: (server) => server.request("/v1/audit-logs?end_time=garbage")
  },
  {
    name: "a start_time in year 0, which PostgreSQL does not have",
    param: "start_time",
    request: (server) => server.request("/v1/audit-logs?start_time=0000-06-01T00:00:00Z")
  }
]

describe.each(stores)("input rules on the %s store", (_, store) => {
  let server: TestServer
  let workspaceKey: string
  const auditTotal = async () => (await jsonOf(await server.request("/v1/audit-logs?page_size=1"))).total as number
  const newestAudit = async () => {
    const { records } = await jsonOf(await server.request("/v1/audit-logs?page_size=1000"))
    return (records as Array<{ seq: number }>).reduce((a, b) => (b.seq > a.seq ? b : a))
  }

  beforeAll(async () => {
    server = await startTestServer({
      store: store(),
      providers: {
        // Nothing listens on port 9: a config that got past the rules would fail fast, not reach the internet.
        registry: providerRegistry({
          providerBaseUrls: [["openai", "http://127.0.0.1:9"]],
          upstreamTimeoutMs: 2_000,
          trustedCustomHosts: []
        }),
        masterKey: new Uint8Array(randomBytes(32))
      }
    })
    const created = await server.send("POST", "/v1/api-keys/workspace/service", {
      name: "fine-tuning",
      workspace_id: server.workspaceId,
      scopes: ["completions.write"]
    })
    expect(created.status).toBe(201)
    workspaceKey = (await jsonOf(created)).key
  })
  afterAll(() => server.close())

  // Nothing changes but the audit log, which records a refused mutating call (and no read).
  it.each(cases)("answers $name with 400 naming $param, and changes nothing", async ({ param, request }) => {
    const before = await auditTotal()
    const error = await errorOf(await request(server, workspaceKey))
    expect(error).toMatchObject({ status: 400, code: "invalid_request", param })
    const added = (await auditTotal()) - before
    expect(added).toBeLessThanOrEqual(1)
    if (added === 1) expect(await newestAudit()).toMatchObject({ response_status_code: 400 })
  })

  it("accepts surrogate pairs and nesting up to the limit", async () => {
    const deepest = nested(MAX_JSON_DEPTH - 1) // the body is the first level
    const created = await json(
      server,
      "POST",
      "/v1/prompts",
      `{"name":"emoji 😀","string":"x","model":"gpt-4o","workspace_id":"${server.workspaceId}","template_metadata":${deepest}}`
    )
    expect(created.status, await created.clone().text()).toBe(201)
    const tooDeep = await json(
      server,
      "POST",
      "/v1/prompts",
      `{"name":"one more","string":"x","workspace_id":"${server.workspaceId}","template_metadata":{"b":${deepest}}}`
    )
    expect(await errorOf(tooDeep)).toMatchObject({ status: 400, param: "template_metadata" })
  })

  it("names a nested string by its path", async () => {
    const error = await errorOf(
      await server.send("POST", "/v1/prompts", {
        name: "nested",
        string: "x",
        workspace_id: server.workspaceId,
        template_metadata: { a: { b: ["fine", "not\u0000fine"] } }
      })
    )
    expect(error).toMatchObject({ status: 400, param: "template_metadata.a.b[1]" })
  })

  it("checks the key before the body", async () => {
    const body = JSON.stringify({ name: "nul\u0000name" })
    const headers = { "content-type": "application/json" }
    const anonymous = await server.request("/v1/workspaces", { method: "POST", key: null, headers, body })
    expect(await errorOf(anonymous)).toMatchObject({ status: 401, code: "unauthenticated" })
    const authenticated = await server.request("/v1/workspaces", { method: "POST", headers, body })
    expect(await errorOf(authenticated)).toMatchObject({ status: 400, param: "name" })
  })

  it("filters the audit log by instants, whatever zone they are written in", async () => {
    const all = await jsonOf(await server.request("/v1/audit-logs?page_size=1"))
    expect(all.total).toBeGreaterThan(0)
    // A minute from now, written at UTC-12: as text it sorts before every record so far.
    const soon = new Date(Date.now() + 60_000 - 12 * 3_600_000).toISOString().slice(0, 19)
    const until = await jsonOf(await server.request(`/v1/audit-logs?page_size=1&end_time=${soon}-12:00`))
    expect(until.total).toBe(all.total)
    const future = await jsonOf(await server.request("/v1/audit-logs?page_size=1&start_time=9999-12-31"))
    expect(future.total).toBe(0)
  })
})

describe("the JSON body rules", () => {
  it("cover every HttpApi endpoint with a body, after its key check where it has one", () => {
    const withBody = Object.values(ServedApi.groups)
      .flatMap((group) => Object.values(group.endpoints))
      .filter((endpoint) => endpoint.payload.size > 0)
    expect(withBody.length).toBeGreaterThan(10)
    for (const endpoint of withBody) {
      // HttpApi runs the middleware declared last first.
      const declared = [...endpoint.middlewares]
      expect(declared.indexOf(RequestInputRules), endpoint.name).toBeGreaterThanOrEqual(0)
      // Public endpoints (a password sign-in) have no key to check; the rules still run on their bodies.
      if (declared.includes(ApiKeyAuth)) {
        expect(declared.indexOf(RequestInputRules), endpoint.name).toBeLessThan(declared.indexOf(ApiKeyAuth))
      }
    }
  })
})
