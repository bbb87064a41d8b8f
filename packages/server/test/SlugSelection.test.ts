/**
 * `@slug` selection (issue 29) in every place a virtual key is accepted, for a provider on an organisation's
 * shared integration (`@team`) and for a virtual key (`@legacy`, a provider paired with its own integration, on a
 * custom host): the provider headers (`x-portkey-provider` / `x-service-provider: @slug`), the virtual key headers
 * (`x-portkey-virtual-key` / `x-service-virtual-key: slug`), configs inline and stored (`provider: "@slug"`,
 * `virtual_key`, a single target's), and the model (`"model": "@slug/name"`, Portkey's model catalog form), in
 * the fine-tuning listing and in prompt completions. Each chosen key reaches only its record's destination; an
 * unknown slug is refused naming where the client wrote it, and nothing is sent. Answers of the listing are
 * validated against Portkey's OpenAPI document (`listPaginatedFineTuningJobs`).
 */
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { providerRegistry } from "../src/App.ts"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import { checkPortkeyAnswer } from "./support/PortkeyOpenApi.ts"
import { errorOf, startTestServer, type TestServer } from "./support/TestServer.ts"

let server: TestServer
let primary: FakeProvider
let hosted: FakeProvider
let key: string

const call = async (method: string, path: string, body?: unknown, as?: string) => {
  const response = await server.send(method, path, body, as)
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
}

/** Where each slug's key goes: `team`'s integration uses the provider's base URL, `legacy` its custom host. */
const destinationOf = (slug: "team" | "legacy") => (slug === "team" ? () => primary : () => hosted)

/** Every way a call names a stored provider by slug, outside the model. */
const namings = (slug: string): ReadonlyArray<Record<string, string>> => [
  { "x-portkey-provider": `@${slug}` },
  { "x-service-provider": `@${slug}` },
  { "x-portkey-virtual-key": slug },
  { "x-service-virtual-key": slug },
  { "x-portkey-config": JSON.stringify({ provider: `@${slug}` }) },
  { "x-portkey-config": JSON.stringify({ virtual_key: slug }) },
  { "x-portkey-config": JSON.stringify({ targets: [{ provider: `@${slug}` }] }) },
  { "x-service-config": `by-provider-${slug}` },
  { "x-portkey-config": `by-key-${slug}` }
]

const listJobs = (headers: Record<string, string>) => server.request("/v1/fine_tuning/jobs?limit=2", { key, headers })
const complete = (prompt: string, body: Record<string, unknown>, headers: Record<string, string>) =>
  server.request(`/v1/prompts/${prompt}/completions`, {
    method: "POST",
    key,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })

const sentSince = (before: { primary: number; hosted: number }) => ({
  primary: primary.requests.length - before.primary,
  hosted: hosted.requests.length - before.hosted
})
const counts = () => ({ primary: primary.requests.length, hosted: hosted.requests.length })

beforeAll(async () => {
  ;[primary, hosted] = await Promise.all(["primary", "hosted"].map((name) => startFakeProvider(name)))
  server = await startTestServer({
    providers: {
      registry: providerRegistry({
        providerBaseUrls: [["openai", primary.baseUrl]],
        upstreamTimeoutMs: 20_000,
        trustedCustomHosts: [hosted.host]
      }),
      masterKey: new Uint8Array(randomBytes(32))
    }
  })
  const created = await call("POST", "/v1/api-keys/workspace/service", {
    name: "slugs",
    workspace_id: server.workspaceId,
    scopes: [
      "completions.write",
      "prompts.create",
      "prompts.read",
      "prompts.render",
      "virtual_keys.create",
      "configs.create"
    ]
  })
  key = created.body.key
  // `@team`: a provider on an organisation integration shared with the workspace.
  expect(
    (await call("POST", "/v1/integrations", { name: "Org OpenAI", ai_provider_id: "openai", key: "sk-good" }))
      .status
  ).toBe(201)
  expect(
    (await call("PUT", "/v1/integrations/org-openai/workspaces", {
      workspaces: [{ id: server.workspaceId, enabled: true }]
    })).status
  ).toBe(200)
  expect(
    (await call("POST", "/v1/providers", { name: "Team", slug: "team", integration_id: "org-openai" }, key))
      .status
  ).toBe(201)
  // `@legacy`: a virtual key, on a custom host.
  expect(
    (await call("POST", "/v1/virtual-keys", {
      name: "Legacy",
      slug: "legacy",
      provider: "openai",
      key: "sk-good",
      custom_host: hosted.baseUrl
    }, key)).status
  ).toBe(201)
  for (const slug of ["team", "legacy"]) {
    for (
      const [name, config] of [[`by-provider-${slug}`, { provider: `@${slug}` }], [`by-key-${slug}`, {
        virtual_key: slug
      }]] as const
    ) {
      expect((await call("POST", "/v1/configs", { name, slug: name, config }, key)).status).toBe(201)
    }
  }
  for (
    const [slug, model] of [["plain", "gpt-4o-mini"], ["catalog-team", "@team/gpt-4o-mini"], [
      "catalog-legacy",
      "@legacy/gpt-4o-mini"
    ]]
  ) {
    const prompt = await call("POST", "/v1/prompts", {
      name: slug,
      slug,
      string: "[{\"role\":\"user\",\"content\":\"Hello {{name}}\"}]",
      model,
      workspace_id: server.workspaceId
    }, key)
    expect(prompt.status, JSON.stringify(prompt.body)).toBe(201)
  }
})

afterAll(async () => {
  await server?.close()
  await Promise.all([primary, hosted].map((p) => p?.close()))
})

describe.each(["team", "legacy"] as const)("@%s", (slug) => {
  const expected = destinationOf(slug)

  it("selects it in the fine-tuning listing by every header and config; Portkey's answer shape", async () => {
    for (const headers of namings(slug)) {
      const before = counts()
      const listed = expected().requests.length
      const response = await listJobs(headers)
      const text = await response.text()
      expect(response.status, `${JSON.stringify(headers)}: ${text}`).toBe(200)
      const body = JSON.parse(text)
      expect(body.data).toHaveLength(2)
      checkPortkeyAnswer("get", "/fine_tuning/jobs", body)
      expect(expected().requests.slice(listed).map((r) => r.authorization)).toEqual(["Bearer sk-good"])
      const sent = sentSince(before)
      expect(sent.primary + sent.hosted, JSON.stringify(headers)).toBe(1)
    }
  })

  it("selects it in prompt completions by every header and config, and by the model", async () => {
    const ways: ReadonlyArray<readonly [string, Record<string, unknown>, Record<string, string>]> = [
      ...namings(slug).map((headers) => ["plain", { variables: { name: "Bo" } }, headers] as const),
      [`catalog-${slug}`, { variables: { name: "Bo" } }, {}],
      // The call's own model, over the prompt's.
      ["plain", { variables: { name: "Bo" }, model: `@${slug}/gpt-4o` }, {}],
      // The model and a header naming the same provider agree.
      [`catalog-${slug}`, { variables: { name: "Bo" } }, { "x-portkey-provider": `@${slug}` }]
    ]
    for (const [prompt, body, headers] of ways) {
      const before = counts()
      const asked = expected().completions.length
      const response = await complete(prompt, body, headers)
      const text = await response.text()
      expect(response.status, `${prompt} ${JSON.stringify(headers)}: ${text}`).toBe(200)
      expect(JSON.parse(text).object).toBe("chat.completion")
      const sent = expected().completions.slice(asked)
      expect(sent.map((c) => c.authorization)).toEqual(["Bearer sk-good"])
      // The provider is sent the model's own name.
      expect(sent[0]!.body.model).toBe(typeof body.model === "string" ? "gpt-4o" : "gpt-4o-mini")
      const total = sentSince(before)
      expect(total.primary + total.hosted).toBe(1)
    }
  })
})

describe("refusals", () => {
  it("an unknown slug is refused naming where the client wrote it, and nothing is sent", async () => {
    const before = counts()
    const refusals: ReadonlyArray<readonly [Record<string, string>, string]> = [
      [{ "x-portkey-provider": "@nobody" }, "x-portkey-provider"],
      [{ "x-service-provider": "@nobody" }, "x-service-provider"],
      [{ "x-portkey-virtual-key": "nobody" }, "x-portkey-virtual-key"],
      [{ "x-service-virtual-key": "nobody" }, "x-service-virtual-key"],
      [{ "x-portkey-config": JSON.stringify({ provider: "@nobody" }) }, "x-portkey-config"],
      [{ "x-service-config": JSON.stringify({ virtual_key: "nobody" }) }, "x-service-config"]
    ]
    for (const [headers, param] of refusals) {
      for (const response of [await listJobs(headers), await complete("plain", { variables: {} }, headers)]) {
        const error = await errorOf(response)
        expect(error.status, JSON.stringify(headers)).toBe(400)
        expect(error.param, JSON.stringify(headers)).toBe(param)
      }
    }
    const byModel = await complete("plain", { variables: {}, model: "@nobody/gpt-4o" }, {})
    expect(await errorOf(byModel)).toMatchObject({ status: 400, param: "model" })
    // The model and the headers choosing two providers: refused, not guessed.
    const both = await complete("catalog-team", { variables: {} }, { "x-portkey-provider": "@legacy" })
    expect(await errorOf(both)).toMatchObject({ status: 400, param: "model" })
    const withConfig = await complete("catalog-team", { variables: {} }, { "x-portkey-config": "by-key-legacy" })
    expect(await errorOf(withConfig)).toMatchObject({ status: 400, param: "model" })
    // A call's custom host never takes a stored key, chosen by the model or otherwise.
    const redirected = await complete("catalog-team", { variables: {} }, {
      "x-portkey-custom-host": hosted.baseUrl
    })
    expect((await errorOf(redirected)).status).toBe(400)
    expect(sentSince(before)).toEqual({ primary: 0, hosted: 0 })
  })
})
