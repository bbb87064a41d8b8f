/**
 * Secrets stay secret: redacted in stored audit bodies, and MCP header values write-only (masked on read).
 */
import { McpIntegrationStore } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SECRET_NAMES } from "../../domain/test/support/SecretNames.ts"
import { AUDIT_TEST_STORES, recordOf, requestId, sendTraced } from "./support/AuditStores.ts"
import { jsonOf, type TestServer } from "./support/TestServer.ts"

const HARMLESS = { max_tokens: 256, prompt_tokens: 12, token_count: 3, sort_key: "name", region: "eu" }

const integration = (overrides: Record<string, unknown>) => ({
  name: `Tool ${requestId().slice(0, 8)}`,
  url: "https://mcp.example/sse",
  auth_type: "headers",
  transport: "sse",
  ...overrides
})

describe.each(AUDIT_TEST_STORES)("secrets over the $name store", (store) => {
  let server: TestServer
  beforeAll(async () => {
    ;({ server } = await store.start())
  }, 60_000)
  afterAll(() => server?.close())

  it("every secret-looking name is redacted in the stored body; counts and plain settings are kept", async () => {
    const id = requestId()
    const configurations = {
      ...Object.fromEntries(SECRET_NAMES.map((name) => [name, `value-of-${name}`])),
      nested: { password: "p4ss", ...HARMLESS },
      ...HARMLESS
    }
    const response = await sendTraced(
      server,
      "POST",
      "/v1/mcp-integrations",
      JSON.stringify(integration({ configurations })),
      {
        id
      }
    )
    expect(response.status).toBe(201)
    const record = await recordOf(server, id)
    expect(record!.request_body.configurations).toEqual({
      ...Object.fromEntries(SECRET_NAMES.map((name) => [name, "[REDACTED]"])),
      nested: { password: "[REDACTED]", ...HARMLESS },
      ...HARMLESS
    })
    expect(JSON.stringify(record)).not.toContain("value-of-")
  })

  describe("credentials written inside values, and names the word list missed", () => {
    /** The stored record of a call, as one text, to search for what must not be in it. */
    const storedText = async (method: string, path: string, body: unknown) => {
      const id = requestId()
      const response = await sendTraced(server, method, path, JSON.stringify(body), { id })
      const record = await recordOf(server, id)
      expect(record).toBeDefined()
      return { status: response.status, text: JSON.stringify(record) }
    }

    it("fields named auth, x-auth, pass; a DSN, a user:password@ URL, a Bearer token: all redacted", async () => {
      const { status, text } = await storedText(
        "POST",
        "/v1/mcp-integrations",
        integration({
          configurations: {
            auth: "leak-auth",
            "x-auth": "leak-xauth",
            pass: "leak-pass",
            dsn: "postgres://app:leak-dsn@db.internal:5432/prod",
            upstream: "https://bot:leak-url@api.example/v1",
            libpq: "host=db user=app password=leak-libpq",
            note: "send Bearer leak-bearer-0123 with it",
            region: "eu"
          }
        })
      )
      expect(status).toBe(201)
      expect(text).not.toContain("leak-")
      expect(text).toContain("postgres://app:[REDACTED]@db.internal:5432/prod")
      expect(text).toContain("\"region\":\"eu\"")
    })

    it("a config and headers sent as a JSON string or a header string, though refused, keep no secret", async () => {
      const config = await storedText("POST", "/v1/configs", {
        name: "as text",
        config: JSON.stringify({ provider: "openai", api_key: "leak-config-key" })
      })
      expect(config.status).toBe(400)
      expect(config.text).not.toContain("leak-")
      expect(config.text).toContain("openai")
      const headers = await storedText(
        "POST",
        "/v1/mcp-integrations",
        integration({
          configurations: { headers: "X-Tenant: leak-tenant\nAuthorization: Bearer leak-hdr-0123" }
        })
      )
      expect(headers.text).not.toContain("leak-")
      const jsonHeaders = await storedText(
        "POST",
        "/v1/mcp-integrations",
        integration({
          configurations: { headers: JSON.stringify({ "X-Tenant": "leak-json-tenant" }) }
        })
      )
      expect(jsonHeaders.text).not.toContain("leak-")
    })

    it("a refused request's body and URI with a password in a DSN or a query are kept without it", async () => {
      const { status, text } = await storedText("POST", "/v1/workspaces?password=leak-query", {
        name: 42,
        description: "mysql://root:leak-refused@10.0.0.1/app"
      })
      expect(status).toBe(400)
      expect(text).not.toContain("leak-")
      expect(text).toContain("mysql://root:[REDACTED]@10.0.0.1/app")
      expect(text).toContain("/v1/workspaces?password=[REDACTED]")
    })
  })

  describe("MCP integration headers", () => {
    const headers = { Authorization: "Bearer sk-mcp-1234567890abcdef", "X-Tenant": "acme-tenant-42" }
    const masked = { Authorization: "Bear****cdef", "X-Tenant": "acme****t-42" }
    let integrationId: string

    const stored = () =>
      server.runtime.runPromise(Effect.flatMap(Effect.service(McpIntegrationStore), (s) => s.get(integrationId)))
        .then((found) => Option.getOrThrow(found).configurations)

    beforeAll(async () => {
      const id = requestId()
      const created = await sendTraced(
        server,
        "POST",
        "/v1/mcp-integrations",
        JSON.stringify(integration({ configurations: { region: "eu", headers } })),
        { id }
      )
      expect(created.status).toBe(201)
      integrationId = (await jsonOf(created)).id
      // The audit record holds none of them, whatever their names.
      expect((await recordOf(server, id))!.request_body.configurations).toEqual({
        region: "eu",
        headers: { Authorization: "[REDACTED]", "X-Tenant": "[REDACTED]" }
      })
    })

    it("are masked on every read, like virtual keys", async () => {
      const one = await jsonOf(await server.request(`/v1/mcp-integrations/${integrationId}`))
      expect(one.configurations).toEqual({ region: "eu", headers: masked })
      const listed = await server.request(
        `/v1/mcp-integrations?organisation_id=${server.organisationId}&page_size=1000`
      )
      const text = await listed.text()
      expect(text).toContain("Bear****cdef")
      expect(text).not.toContain("1234567890")
      expect(text).not.toContain("acme-tenant-42")
      const mcpServer = await jsonOf(
        await server.send("POST", "/v1/mcp-servers", {
          name: "Masked tool",
          mcp_integration_id: integrationId,
          workspace_id: server.workspaceId
        })
      )
      const details = await jsonOf(await server.request(`/v1/mcp-servers/${mcpServer.id}`))
      expect(details.mcp_integration_details.configurations).toEqual({ region: "eu", headers: masked })
    })

    it("keep their stored value when written back masked, and take a new value when given one", async () => {
      const read = await jsonOf(await server.request(`/v1/mcp-integrations/${integrationId}`))
      const kept = await server.send("PUT", `/v1/mcp-integrations/${integrationId}`, {
        description: "edited",
        configurations: read.configurations
      })
      expect(kept.status).toBe(200)
      expect((await jsonOf(kept)).configurations).toEqual({ region: "eu", headers: masked })
      expect(await stored()).toEqual({ region: "eu", headers })

      const changed = await server.send("PUT", `/v1/mcp-integrations/${integrationId}`, {
        configurations: { region: "eu", headers: { ...masked, "X-Tenant": "other-tenant-77" } }
      })
      expect((await jsonOf(changed)).configurations.headers).toEqual({ ...masked, "X-Tenant": "othe****t-77" })
      expect(await stored()).toEqual({ region: "eu", headers: { ...headers, "X-Tenant": "other-tenant-77" } })
    })
  })
})
