/**
 * Secrets stay secret: redacted in stored audit bodies, and MCP header values write-only (masked on read).
 */
import { McpIntegrationStore } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AUDIT_TEST_STORES, recordOf, requestId, sendTraced } from "./support/AuditStores.ts"
import { jsonOf, type TestServer } from "./support/TestServer.ts"

const SECRET_NAMES = [
  "x-api-key",
  "api-key",
  "apiKey",
  "accessToken",
  "clientSecret",
  "X-Auth-Token",
  "Proxy-Authorization",
  "private-key",
  "passwd",
  "cookie",
  "bearer"
]
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
