/**
 * One rule for every URL the service accepts (shared/HttpUrl.ts): an MCP server's `url`, a virtual key's
 * or config's `custom_host`, and an operator's `PROVIDER_BASE_URLS`. Each must be an absolute http or https
 * URL without credentials; a base URL (custom host, provider) has no query or fragment either. Before, the
 * provider base URLs were checked by a looser pattern of their own, which let credentials and queries in.
 */
import { ConfigProvider, Effect, Result } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadConfig } from "../src/AppConfig.ts"
import { errorOf, startTestServer, type TestServer } from "./support/TestServer.ts"

/** Whether the server starts with this provider base URL. */
const providerBaseUrlAccepted = async (url: string) => {
  const loaded = await Effect.runPromise(
    Effect.result(loadConfig).pipe(
      Effect.provideService(
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromEnv({ env: { PROVIDER_BASE_URLS: `acme-ai=${url}` } })
      )
    )
  )
  return Result.isSuccess(loaded)
}

const URLS: ReadonlyArray<readonly [string, string, { readonly url: boolean; readonly baseUrl: boolean }]> = [
  ["a plain https URL", "https://api.example.com/v1", { url: true, baseUrl: true }],
  ["a plain http URL with a port", "http://api.example.com:8080/v1", { url: true, baseUrl: true }],
  ["a query", "https://api.example.com/v1?team=a", { url: true, baseUrl: false }],
  ["a fragment", "https://api.example.com/v1#jobs", { url: true, baseUrl: false }],
  ["credentials", "https://user:secret@api.example.com/v1", { url: false, baseUrl: false }],
  ["a user name alone", "https://user@api.example.com/v1", { url: false, baseUrl: false }],
  ["another scheme", "ftp://api.example.com/v1", { url: false, baseUrl: false }],
  ["no scheme", "api.example.com/v1", { url: false, baseUrl: false }]
]

describe.each(["memory", "pglite"] as const)("the URL rule on %s", (store) => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ store })
  })
  afterAll(() => server.close())

  let n = 0
  const answer = async (path: string, body: Record<string, unknown>, param: string) => {
    const response = await server.send("POST", path, { name: `url ${++n}`, ...body })
    if (response.status === 201) return true
    expect(await errorOf(response)).toMatchObject({ status: 400, code: "invalid_request", param })
    return false
  }

  it.each(URLS)("%s: the same answer from every place a URL is accepted", async (_, url, expected) => {
    const mcpUrl = await answer(
      "/v1/mcp-integrations",
      { url, auth_type: "none", transport: "http" },
      "url"
    )
    const keyHost = await answer(
      "/v1/virtual-keys",
      { provider: "openai", key: "sk-x", custom_host: url, workspace_id: server.workspaceId },
      "custom_host"
    )
    const configHost = await answer(
      "/v1/configs",
      { config: { provider: "openai", api_key: "sk-x", custom_host: url }, workspace_id: server.workspaceId },
      "config.custom_host"
    )
    expect({ mcpUrl, keyHost, configHost, provider: await providerBaseUrlAccepted(url) }).toEqual({
      mcpUrl: expected.url,
      keyHost: expected.baseUrl,
      configHost: expected.baseUrl,
      provider: expected.baseUrl
    })
  })
})
