/**
 * Secret mappings: secrets read from MCP_SECRETS_FILE at start, resolved in the process at each call, sent in
 * the header a mapping names and only to the hosts the file allows, and never answered, logged or recorded.
 */
import { ConfigProvider, Effect, Redacted } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadConfig } from "../src/AppConfig.ts"
import { loadMcpConfig } from "../src/McpConfig.ts"
import { type McpGateway, startMcpGateway } from "./support/McpGateway.ts"
import { type SdkMcpServer, startSdkMcpServer } from "./support/SdkMcpServer.ts"
import { errorOf, jsonOf } from "./support/TestServer.ts"

const TOKEN = "ghp_secret_0123456789"

/** The configuration from these variables, then its MCP settings with the secrets read, as `serve` does. */
const loadWith = (env: Record<string, string>) =>
  Effect.runPromise(
    Effect.result(
      Effect.flatMap(loadConfig, loadMcpConfig).pipe(
        Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))
      )
    )
  )

describe("MCP_SECRETS_FILE", () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-secrets-"))
  const file = (name: string, text: string) => {
    const path = join(dir, name)
    writeFileSync(path, text)
    return path
  }

  it("reads secrets with the hosts they may go to, and the MCP settings", async () => {
    const path = file("good.json", JSON.stringify({ github: { value: { token: TOKEN }, hosts: ["API.github.com"] } }))
    const loaded = await loadWith({ MCP_SECRETS_FILE: path, MCP_TIMEOUT_MS: "1500", MCP_HEALTH_INTERVAL_MS: "0" })
    if (loaded._tag !== "Success") throw new Error(`expected the configuration to load: ${loaded.failure.message}`)
    expect(loaded.success).toMatchObject({ timeoutMs: 1500, healthIntervalMs: 0, unhealthyAfter: 3 })
    const secret = loaded.success.secrets.get("github")!
    expect(secret.hosts).toEqual(["api.github.com"])
    expect(Redacted.value(secret.value)).toEqual({ token: TOKEN })
    expect(JSON.stringify(loaded.success)).not.toContain(TOKEN)
  })

  it("stops the start on a file it cannot use, or a bad MCP setting, without quoting a secret", async () => {
    const bad = file("bad.json", `{"github": {"value": "${TOKEN}"}}`)
    for (const env of [{ MCP_SECRETS_FILE: bad }, { MCP_SECRETS_FILE: join(dir, "missing.json") }]) {
      const loaded = await loadWith(env)
      if (loaded._tag !== "Failure") throw new Error("expected the secrets file to be refused")
      expect(loaded.failure.message).toContain("MCP_SECRETS_FILE")
      expect(loaded.failure.message).not.toContain(TOKEN)
    }
    for (
      const [name, value] of [["MCP_TIMEOUT_MS", "0"], ["MCP_UNHEALTHY_AFTER", "0"], ["MCP_HEALTH_INTERVAL_MS", "-1"]]
    ) {
      const loaded = await loadWith({ [name]: value })
      if (loaded._tag !== "Failure") throw new Error(`expected ${name}=${value} to be refused`)
      expect(loaded.failure.setting).toBe(name)
    }
  })
})

describe("secret mappings on a call", () => {
  let mcp: SdkMcpServer
  let gateway: McpGateway

  beforeAll(async () => {
    mcp = await startSdkMcpServer()
    gateway = await startMcpGateway({
      trusted: [mcp.host],
      mcp: {
        secrets: new Map([
          ["github", { value: Redacted.make<string | Record<string, unknown>>({ token: TOKEN }), hosts: [mcp.host] }],
          ["plain", { value: Redacted.make<string | Record<string, unknown>>(`Bearer ${TOKEN}`), hosts: [mcp.host] }],
          ["elsewhere", { value: Redacted.make<string | Record<string, unknown>>(TOKEN), hosts: ["other.example"] }]
        ])
      }
    })
  })
  afterAll(async () => {
    await gateway?.close()
    await mcp?.close()
  })

  const mapping = (reference: string, format: "json" | "string", target = "headers.X-Token") => ({
    target_field: target,
    secret_reference_id: reference,
    secret_key: "token",
    value_format: format
  })
  const test = (serverId: string) => gateway.server.send("POST", `/v1/mcp-servers/${serverId}/test`, undefined)

  it("sends the secret in the header the mapping names, over the configured one of that name", async () => {
    const { serverId } = await gateway.register(mcp.httpUrl, "http", {
      configurations: { headers: { authorization: "Bearer stale" } },
      secret_mappings: [mapping("github", "json"), mapping("plain", "string", "configurations.headers.Authorization")]
    })
    const before = mcp.initializations.length
    const answer = await jsonOf(await test(serverId))
    expect(answer.success).toBe(true)
    const [seen] = mcp.initializations.slice(before)
    expect(seen.headers["x-token"]).toBe(TOKEN)
    expect(seen.headers.authorization).toBe(`Bearer ${TOKEN}`)
    const read = await jsonOf(
      await gateway.server.request(`/v1/mcp-integrations/${
        (await jsonOf(
          await gateway.server.request(`/v1/mcp-servers/${serverId}`)
        )).mcp_integration_id
      }`)
    )
    expect(JSON.stringify(read)).not.toContain(TOKEN)
    const records = await jsonOf(await gateway.server.request("/v1/audit-logs?page_size=1000"))
    expect(JSON.stringify(records)).not.toContain(TOKEN)
  })

  it("refuses a secret for another host, an unknown one, a wrong format and a target that is no header", async () => {
    const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
      [mapping("elsewhere", "string"), "secret_mappings[0].secret_reference_id"],
      [mapping("nobody", "string"), "secret_mappings[0].secret_reference_id"],
      [mapping("github", "string"), "secret_mappings[0]"],
      [{ ...mapping("github", "json"), secret_key: "missing" }, "secret_mappings[0]"],
      [mapping("github", "json", "url"), "secret_mappings[0].target_field"]
    ]
    const before = mcp.initializations.length
    for (const [secretMapping, param] of cases) {
      const { serverId } = await gateway.register(mcp.httpUrl, "http", { secret_mappings: [secretMapping] })
      const refusal = await errorOf(await test(serverId))
      expect(refusal).toMatchObject({ status: 400, param })
      expect(refusal.message).not.toContain(TOKEN)
    }
    expect(mcp.initializations.length).toBe(before)
  })
})
