/**
 * `POST /v1/prompts/{promptId}/completions` (Portkey's prompt completions) against fake OpenAI-compatible
 * providers on 127.0.0.1: the prompt is rendered and sent to the provider the headers choose, the answer passes
 * through (JSON, or server-sent events as they arrive), a client that goes away cancels the provider's request,
 * and a stored provider key only ever reaches the host stored with it.
 */
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { providerRegistry } from "../src/App.ts"
import { createWorkspaceServiceKey } from "./support/ApiClient.ts"
import { type FakeProvider, SLOW_MODEL, startFakeProvider } from "./support/FakeProvider.ts"
import { createVirtualKey } from "./support/FineTuningGateway.ts"
import { errorOf, startTestServer, type TestServer } from "./support/TestServer.ts"

let server: TestServer
let primary: FakeProvider
let hosted: FakeProvider
let elsewhere: FakeProvider
let key: string

const complete = (prompt: string, body: unknown, headers: Record<string, string>, signal?: AbortSignal) =>
  server.request(`/v1/prompts/${prompt}/completions`, {
    method: "POST",
    key,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal
  })

/** The `data:` payloads of an event stream's text. */
const events = (text: string) =>
  text.split("\n\n").map((e) => e.trim()).filter((e) => e.startsWith("data: ")).map((e) => e.slice(6))

const until = async (check: () => boolean, what: string) => {
  const deadline = Date.now() + 20_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

beforeAll(async () => {
  ;[primary, hosted, elsewhere] = await Promise.all(["primary", "hosted", "elsewhere"].map((n) => startFakeProvider(n)))
  server = await startTestServer({
    providers: {
      registry: providerRegistry({
        providerBaseUrls: [["openai", primary.baseUrl]],
        upstreamTimeoutMs: 30_000,
        trustedCustomHosts: [hosted.host, elsewhere.host]
      }),
      masterKey: new Uint8Array(randomBytes(32))
    }
  })
  key = (await server.api(createWorkspaceServiceKey("completions", server.workspaceId, [
    "completions.write",
    "prompts.create",
    "prompts.read",
    "prompts.render",
    "virtual_keys.create",
    "workspace_integrations.read"
  ]))).key
  await server.api(createVirtualKey({ name: "main", slug: "main", provider: "openai", key: "sk-main" }), key)
  await server.api(
    createVirtualKey({
      name: "hosted",
      slug: "hosted",
      provider: "openai",
      key: "sk-hosted",
      custom_host: hosted.baseUrl
    }),
    key
  )
  await server.api(createVirtualKey({ name: "wrong", slug: "wrong", provider: "openai", key: "not-a-key" }), key)
  // An integration's key, through a provider (`@slug`) of the workspace.
  expect(
    (await server.send("POST", "/v1/integrations", {
      name: "OpenAI prod",
      ai_provider_id: "openai",
      key: "sk-integration"
    })).status
  )
    .toBe(201)
  expect(
    (await server.send("PUT", "/v1/integrations/openai-prod/workspaces", {
      workspaces: [{ id: server.workspaceId, enabled: true }]
    })).status
  ).toBe(200)
  expect(
    (await server.send(
      "POST",
      "/v1/providers",
      { name: "OpenAI", integration_id: "openai-prod", slug: "team-openai" },
      key
    )).status
  )
    .toBe(201)
  for (
    const prompt of [
      {
        name: "Greeter",
        slug: "greeter",
        string: "[{\"role\":\"user\",\"content\":\"Hello {{name}}\"}]",
        model: "gpt-4o-mini"
      },
      { name: "Slow", slug: "slow", string: "[{\"role\":\"user\",\"content\":\"Count\"}]", model: SLOW_MODEL },
      { name: "Completer", slug: "completer", string: "Complete: {{text}}", model: "gpt-3.5-turbo-instruct" }
    ]
  ) {
    expect((await server.send("POST", "/v1/prompts", { ...prompt, workspace_id: server.workspaceId }, key)).status)
      .toBe(201)
  }
})

afterAll(async () => {
  await server?.close()
  await Promise.all([primary, hosted, elsewhere].map((p) => p?.close()))
})

describe("prompt completions", () => {
  it("streams the provider's server-sent events through a virtual key, the rendered prompt sent with its key", async () => {
    const response = await complete("greeter", {
      variables: { name: "Ada" },
      stream: true,
      stream_options: { include_usage: true }
    }, { "x-service-virtual-key": "main" })
    expect(response.status, await response.clone().text()).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    const data = events(await response.text())
    expect(data.at(-1)).toBe("[DONE]")
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as { choices: Array<{ delta?: { content?: string } }> })
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("Echo: Hello Ada")
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 3 } })
    const asked = primary.completions.at(-1)!
    expect(asked.authorization).toBe("Bearer sk-main")
    expect(asked.body).toMatchObject({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Hello Ada" }],
      stream: true
    })
    expect(asked.body).not.toHaveProperty("variables")
  })

  it("answers JSON without stream; a completion template goes to /completions; missing variables are named", async () => {
    const chat = await complete("greeter@1", { variables: {} }, { "x-service-provider": "@team-openai" })
    expect(chat.status).toBe(200)
    expect(chat.headers.get("x-service-missing-variables")).toBe("name")
    expect(await chat.json()).toMatchObject({
      object: "chat.completion",
      choices: [{ message: { content: "Echo: Hello " } }]
    })
    expect(primary.completions.at(-1)!.authorization).toBe("Bearer sk-integration")
    const text = await complete("completer", { variables: { text: "the sky" }, max_tokens: 5 }, {
      "x-service-virtual-key": "main"
    })
    expect(await text.json()).toMatchObject({
      object: "text_completion",
      choices: [{ text: "Echo: Complete: the sky" }]
    })
    expect(primary.completions.at(-1)!.body).toMatchObject({ prompt: "Complete: the sky", max_tokens: 5 })
  })

  it("a stored key goes only to its own host: a virtual key's custom host gets it, another host is refused", async () => {
    const before = { primary: primary.completions.length, elsewhere: elsewhere.completions.length }
    const response = await complete("greeter", { variables: { name: "Bo" } }, { "x-service-virtual-key": "hosted" })
    expect(response.status).toBe(200)
    expect(hosted.completions.at(-1)!.authorization).toBe("Bearer sk-hosted")
    const refused = await complete("greeter", { variables: { name: "Bo" } }, {
      "x-service-virtual-key": "main",
      "x-service-custom-host": elsewhere.baseUrl
    })
    expect(await errorOf(refused)).toMatchObject({ status: 400, param: "x-service-custom-host" })
    expect(elsewhere.completions.length).toBe(before.elsewhere)
    expect(primary.completions.length).toBe(before.primary)
    // Each fake saw only the key stored for it.
    expect(new Set(hosted.completions.map((c) => c.authorization))).toEqual(new Set(["Bearer sk-hosted"]))
    expect(primary.completions.every((c) => c.authorization !== "Bearer sk-hosted")).toBe(true)
  })

  it("stops the provider's request when the client goes away mid-stream", async () => {
    const controller = new AbortController()
    const response = await complete(
      "slow",
      { variables: {}, stream: true },
      { "x-service-virtual-key": "main" },
      controller.signal
    )
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toContain("word0")
    const asked = primary.completions.at(-1)!
    expect(asked.body.model).toBe(SLOW_MODEL)
    controller.abort()
    await until(() => asked.aborted, "the provider's request to be cancelled")
    expect(asked.finished).toBe(false)
  })

  it("refusals: no provider, unknown prompt, bad body, a provider's own refusal passed through", async () => {
    expect(await errorOf(await complete("greeter", { variables: {} }, {}))).toMatchObject({ status: 400 })
    expect(await errorOf(await complete("nope", { variables: {} }, { "x-service-virtual-key": "main" })))
      .toMatchObject({ status: 404 })
    expect(await errorOf(await complete("greeter", { variables: 3 }, { "x-service-virtual-key": "main" })))
      .toMatchObject({ status: 400, param: "variables" })
    const before = primary.completions.length
    expect(await errorOf(await complete("greeter", { variables: {} }, { "x-service-virtual-key": "missing" })))
      .toMatchObject({ status: 400, param: "x-service-virtual-key" })
    expect(primary.completions.length).toBe(before)
    const provider = await complete("greeter", { variables: {} }, { "x-service-virtual-key": "wrong" })
    expect(provider.status).toBe(401)
    expect(await provider.json()).toEqual({ error: { message: "Incorrect API key provided" } })
  })

  it("runs an unsaved edit of a version, which needs prompts.update besides", async () => {
    const draft = (key_: string, body: unknown) =>
      server.request("/v1/prompts/greeter@1/completions/draft", {
        method: "POST",
        key: key_,
        headers: { "content-type": "application/json", "x-service-virtual-key": "main" },
        body: JSON.stringify(body)
      })
    const edit = { string: "[{\"role\":\"user\",\"content\":\"Hi {{name}}, again\"}]", model: "gpt-4o" }
    const refused = await draft(key, { draft: edit, request: { variables: { name: "Cy" } } })
    expect((await errorOf(refused)).status).toBe(403)
    const editor = (await server.api(createWorkspaceServiceKey("editor", server.workspaceId, [
      "completions.write",
      "prompts.render",
      "prompts.update"
    ]))).key
    const response = await draft(editor, { draft: edit, request: { variables: { name: "Cy" } } })
    expect(response.status, await response.clone().text()).toBe(200)
    expect(await response.json()).toMatchObject({ choices: [{ message: { content: "Echo: Hi Cy, again" } }] })
    expect(primary.completions.at(-1)!.body).toMatchObject({ model: "gpt-4o", messages: [{ content: "Hi Cy, again" }] })
    // Nothing was saved: the prompt still has its one version.
    const versions = await server.request("/v1/prompts/greeter/versions", { key })
    expect(((await versions.json()) as { data: Array<unknown> }).data).toHaveLength(1)
    const broken = await draft(editor, { draft: { string: "{{#open}}" }, request: { variables: {} } })
    expect(await errorOf(broken)).toMatchObject({ status: 400, param: "string" })
  })

  it("needs completions.write", async () => {
    const renderOnly = (await server.api(
      createWorkspaceServiceKey("render-only", server.workspaceId, ["prompts.render"])
    )).key
    const response = await server.request("/v1/prompts/greeter/completions", {
      method: "POST",
      key: renderOnly,
      headers: { "content-type": "application/json", "x-service-virtual-key": "main" },
      body: JSON.stringify({ variables: { name: "x" } })
    })
    expect((await errorOf(response)).status).toBe(403)
  })
})
