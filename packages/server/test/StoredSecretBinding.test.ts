/**
 * Security, round three, finding 2: a stored secret is bound to the destination it was stored with (scheme,
 * host and port). An update that moves it elsewhere without the secret given again is refused (400 naming the
 * destination's field) and changes nothing; nothing stored ever reaches the new destination. For every kind:
 * MCP integration headers (the finding), their Portkey spelling `custom_headers`, secret mappings, virtual keys
 * and configs.
 */
import { McpIntegrationStore } from "@gateway-control/domain"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type SecretDestination,
  type SecretsGateway,
  startSecretDestination,
  startSecretsGateway
} from "./support/SecretDestinations.ts"
import { availableStores, errorOf, jsonOf } from "./support/TestServer.ts"

const TOKEN = "Bearer mcp-token-0123456789abcdef"

describe.each(availableStores)("stored secrets bound to their destination on %s", (store) => {
  let gateway: SecretsGateway
  let home: SecretDestination
  let away: SecretDestination
  let count = 0
  const unique = (prefix: string) => `${prefix}-${++count}-${crypto.randomUUID()}`

  beforeAll(async () => {
    ;[home, away] = await Promise.all([startSecretDestination("home"), startSecretDestination("away")])
    gateway = await startSecretsGateway(store, home, [home, away])
  })
  afterAll(async () => {
    await gateway?.close()
    await Promise.all([home, away].map((destination) => destination?.close()))
  })

  const read = async (id: string) => jsonOf(await gateway.send("GET", `/v1/mcp-integrations/${id}`))

  describe("MCP integration headers", () => {
    it("refuses a new url that would carry the stored headers, naming url, and sends nothing there", async () => {
      const secret = unique(TOKEN)
      const id = await gateway.createIntegration({
        name: unique("moved"),
        url: `${home.origin}/mcp`,
        configurations: { headers: { Authorization: secret } }
      })
      const masked = (await read(id)).configurations.headers.Authorization
      expect(masked).not.toBe(secret)

      // The url alone, and the url with the masked value a read showed: both would keep the stored secret.
      for (
        const body of [{ url: `${away.origin}/mcp` }, {
          url: `${away.origin}/mcp`,
          configurations: { headers: { Authorization: masked } }
        }]
      ) {
        const refusal = await errorOf(await gateway.send("PUT", `/v1/mcp-integrations/${id}`, body))
        expect(refusal).toMatchObject({ status: 400, code: "invalid_request", param: "url" })
        expect(refusal.message).toContain("configurations.headers.Authorization")
        expect(refusal.message).not.toContain(secret)
      }
      expect((await read(id)).url).toBe(`${home.origin}/mcp`)
      await gateway.sync(id)
      expect(away.received).not.toContain(secret)
      expect(home.received).toContain(secret)
    })

    it("moves with headers given again, and then sends only those", async () => {
      const [first, second] = [unique(TOKEN), unique(TOKEN)]
      const id = await gateway.createIntegration({
        name: unique("resupplied"),
        url: `${home.origin}/mcp`,
        configurations: { headers: { Authorization: first } }
      })
      const moved = await gateway.send("PUT", `/v1/mcp-integrations/${id}`, {
        url: `${away.origin}/mcp`,
        configurations: { headers: { Authorization: second } }
      })
      expect(moved.status).toBe(200)
      await gateway.sync(id)
      expect(away.received).toContain(second)
      expect(away.received).not.toContain(first)
    })

    it("keeps the stored headers on a url of the same destination, or a change of anything else", async () => {
      const secret = unique(TOKEN)
      const id = await gateway.createIntegration({
        name: unique("same origin"),
        url: `${home.origin}/mcp`,
        configurations: { headers: { Authorization: secret } }
      })
      for (const body of [{ url: `${home.origin}/other/mcp` }, { name: "Renamed", transport: "sse" }]) {
        expect((await gateway.send("PUT", `/v1/mcp-integrations/${id}`, body)).status).toBe(200)
      }
      await gateway.send("PUT", `/v1/mcp-integrations/${id}`, { transport: "http" })
      await gateway.sync(id)
      expect(home.received).toContain(secret)
    })

    it("lets a url move when the update drops the headers: nothing stored goes along", async () => {
      const secret = unique(TOKEN)
      const id = await gateway.createIntegration({
        name: unique("dropped"),
        url: `${home.origin}/mcp`,
        configurations: { headers: { Authorization: secret } }
      })
      const moved = await gateway.send("PUT", `/v1/mcp-integrations/${id}`, {
        url: `${away.origin}/mcp`,
        configurations: {}
      })
      expect(moved.status).toBe(200)
      await gateway.sync(id)
      expect(away.received).not.toContain(secret)
    })
  })

  describe("custom_headers, Portkey's spelling of headers", () => {
    it("is stored as headers: masked on read, sent, and bound to the url", async () => {
      const secret = unique(TOKEN)
      const id = await gateway.createIntegration({
        name: unique("portkey"),
        url: `${home.origin}/mcp`,
        configurations: { custom_headers: { "X-Api-Key": secret } }
      })
      const shown = await read(id)
      expect(JSON.stringify(shown)).not.toContain(secret)
      expect(shown.configurations.custom_headers).toBeUndefined()
      expect(shown.configurations.headers["X-Api-Key"]).toMatch(/\*\*\*\*/)
      await gateway.sync(id)
      expect(home.received).toContain(secret)

      const refusal = await errorOf(
        await gateway.send("PUT", `/v1/mcp-integrations/${id}`, { url: `${away.origin}/mcp` })
      )
      expect(refusal).toMatchObject({ status: 400, param: "url" })
      const updated = await gateway.send("PUT", `/v1/mcp-integrations/${id}`, {
        configurations: { custom_headers: { "X-Api-Key": shown.configurations.headers["X-Api-Key"] } }
      })
      expect(updated.status).toBe(200)
      expect(JSON.stringify(await jsonOf(updated))).not.toContain(secret)
      const audit = await gateway.server.request("/v1/audit-logs?page_size=1000")
      expect(await audit.text()).not.toContain(secret)
    })

    it("is masked, sent and bound in a record stored before it became an alias", async () => {
      const secret = unique(TOKEN)
      const id = await gateway.createIntegration({ name: unique("legacy"), url: `${home.origin}/mcp` })
      // As such a record is stored: custom_headers in clear beside (or instead of) headers.
      await gateway.server.runtime.runPromise(Effect.gen(function*() {
        const integrations = yield* McpIntegrationStore
        const stored = yield* integrations.get(id)
        if (stored._tag === "None") throw new Error("the integration was not stored")
        yield* integrations.update({ ...stored.value, configurations: { custom_headers: { "X-Api-Key": secret } } })
      }))
      const shown = await read(id)
      expect(JSON.stringify(shown)).not.toContain(secret)
      expect(shown.configurations.custom_headers["X-Api-Key"]).toMatch(/\*\*\*\*/)
      await gateway.sync(id)
      expect(home.received).toContain(secret)
      const refusal = await errorOf(
        await gateway.send("PUT", `/v1/mcp-integrations/${id}`, { url: `${away.origin}/mcp` })
      )
      expect(refusal).toMatchObject({ status: 400, param: "url" })
    })

    it("refuses one header given twice with two values, naming the custom_headers one", async () => {
      const made = await gateway.send("POST", "/v1/mcp-integrations", {
        name: unique("twice"),
        url: `${home.origin}/mcp`,
        auth_type: "headers",
        transport: "http",
        configurations: { headers: { authorization: "Bearer a-one" }, custom_headers: { Authorization: "Bearer b" } }
      })
      expect(await errorOf(made)).toMatchObject({
        status: 400,
        code: "invalid_request",
        param: "configurations.custom_headers.Authorization"
      })
    })
  })

  it("refuses a new url that would carry the stored secret mappings, naming url", async () => {
    const mappings = [{
      target_field: "headers.Authorization",
      secret_reference_id: "github",
      secret_key: "token",
      value_format: "json"
    }]
    const id = await gateway.createIntegration({
      name: unique("mapped"),
      url: `${home.origin}/mcp`,
      secret_mappings: mappings
    })
    const path = `/v1/mcp-integrations/${id}`
    const refusal = await errorOf(await gateway.send("PUT", path, { url: `${away.origin}/mcp` }))
    expect(refusal).toMatchObject({ status: 400, param: "url" })
    expect(refusal.message).toContain("secret_mappings")
    // Given again, they move: MCP_SECRETS_FILE's hosts still decide where the secret itself may go.
    expect((await gateway.send("PUT", path, { url: `${away.origin}/mcp`, secret_mappings: mappings })).status)
      .toBe(200)
  })

  it("binds a virtual key to its destination, not to the spelling of its custom_host", async () => {
    const secret = unique("sk-vkey")
    const made = await jsonOf(
      await gateway.send("POST", "/v1/virtual-keys", {
        name: unique("hosted"),
        provider: "openai",
        key: secret,
        custom_host: `${home.origin}/v1`
      })
    )
    const path = `/v1/virtual-keys/${made.id}`
    // Another path of the same scheme, host and port is the same destination.
    expect((await gateway.send("PUT", path, { custom_host: `${home.origin}/v1/` })).status).toBe(200)
    const refusal = await errorOf(await gateway.send("PUT", path, { custom_host: `${away.origin}/v1` }))
    expect(refusal).toMatchObject({ status: 400, param: "custom_host" })
    expect(refusal.message).toContain("key")
    expect((await gateway.jobs({ "x-service-virtual-key": made.slug })).status).toBe(200)
    expect(away.received).not.toContain(`Bearer ${secret}`)
    expect(home.received).toContain(`Bearer ${secret}`)
  })

  it("never carries a config's stored key to a new custom_host: a config replaced without api_key keeps none", async () => {
    const secret = unique("sk-config")
    const made = await jsonOf(
      await gateway.send("POST", "/v1/configs", {
        name: unique("direct"),
        config: { provider: "openai", api_key: secret }
      })
    )
    const moved = await gateway.send("PUT", `/v1/configs/${made.id}`, {
      config: { provider: "openai", custom_host: `${away.origin}/v1` }
    })
    expect(moved.status).toBe(200)
    expect((await jsonOf(moved)).masked_api_key).toBeNull()
    await gateway.jobs({ "x-service-config": made.slug, authorization: "Bearer sk-the-call's" })
    expect(away.received).not.toContain(`Bearer ${secret}`)
  })
})
