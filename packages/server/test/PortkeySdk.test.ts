/**
 * Portkey's official Node SDK (`portkey-ai`) against a real server, at the SDK's defaults: a client is given
 * only `apiKey` and `baseURL`, no headers of ours. Every call must succeed, and its answer carry the fields
 * the SDK's types declare (where we have them) with the JSON types they declare. The README's "Clients"
 * section quotes the regions marked `readme-…` here verbatim (ReadmeExamples.test.ts checks it).
 */
import { ScopeNames } from "@gateway-control/domain"
import { Portkey } from "portkey-ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import { openAiProviderAt, startTestServer, type TestServer } from "./support/TestServer.ts"

let server: TestServer
let provider: FakeProvider
/** The admin key's client: it makes the workspace key the other clients use. */
let admin: Portkey
/** A workspace key's client: prompts, partials, labels, virtual keys and configs live in its workspace. */
let sdk: Portkey
let workspaceKey: string

/** Every scope on prompts, virtual keys and configs, and model calls. */
const WORKSPACE_SCOPES = ScopeNames.filter((scope) =>
  /^(prompts|virtual_keys|configs)\./.test(scope) || scope === "completions.write"
)

/** A client at the SDK's defaults: nothing but the key and where the gateway is. */
const client = (apiKey: string) => new Portkey({ apiKey, baseURL: `${server.baseUrl}/v1` })

beforeAll(async () => {
  provider = await startFakeProvider("provider")
  server = await startTestServer({
    providers: openAiProviderAt(provider.baseUrl, 10_000)
  })
  admin = client(server.adminKey)
  const created = await admin.apiKeys.create({
    type: "workspace",
    "sub-type": "service",
    name: "sdk workspace key",
    workspace_id: server.workspaceId,
    scopes: WORKSPACE_SCOPES
  })
  workspaceKey = created.key!
  sdk = client(workspaceKey)
})
afterAll(async () => {
  await server.close()
  await provider.close()
})

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/)
const text = expect.any(String)

describe("API keys", () => {
  it("create, list, retrieve, update, delete", async () => {
    const created = await admin.apiKeys.create({
      type: "workspace",
      "sub-type": "service",
      name: "nightly",
      description: "the nightly job",
      workspace_id: server.workspaceId,
      scopes: ["prompts.read", "prompts.list"]
    })
    expect(created).toMatchObject({ id: text, key: expect.stringMatching(/^gwc_/), object: "api-key" })

    const listed = await admin.apiKeys.list({ workspace_id: server.workspaceId, page_size: 100 })
    expect(listed).toMatchObject({ object: "list", total: expect.any(Number) })
    expect(listed.data!.map((key) => key.id)).toContain(created.id)

    const retrieved = await admin.apiKeys.retrieve({ id: created.id })
    expect(retrieved).toMatchObject({
      id: created.id,
      name: "nightly",
      description: "the nightly job",
      type: "workspace-service",
      organisation_id: server.organisationId,
      workspace_id: server.workspaceId,
      status: "active",
      created_at: ISO,
      last_updated_at: ISO,
      scopes: ["prompts.read", "prompts.list"]
    })

    const updated = await admin.apiKeys.update({
      id: created.id,
      name: "nightly (read only)",
      scopes: ["prompts.read"]
    })
    expect(updated).toMatchObject({ id: created.id, name: "nightly (read only)", scopes: ["prompts.read"] })

    const deleted = await admin.apiKeys.delete({ id: created.id })
    expect(deleted).toMatchObject({ id: created.id, status: "revoked" })
    expect((await admin.apiKeys.retrieve({ id: created.id })).status).toBe("revoked")
  })
})

describe("prompts", () => {
  it("create, list, retrieve by slug, update, publish, and render with @N, @latest and @label", async () => {
    // `collection_id` is required by the SDK's type: a collection of the key's workspace (Collections.test.ts).
    const collection = await sdk.collections.create({ name: "Bots" })
    const created = await sdk.prompts.create({
      name: "Support bot",
      collection_id: collection.id,
      string: JSON.stringify([{ role: "user", content: "Answer {{question}}" }]),
      parameters: { temperature: 0.2 },
      model: "gpt-4o"
    })
    expect(created).toMatchObject({ id: text, slug: "support-bot", version_id: text, version: 1, object: "prompt" })

    const listed = await sdk.prompts.list()
    expect(listed.data.map((prompt: { slug: string }) => prompt.slug)).toContain("support-bot")

    const retrieved = await sdk.prompts.retrieve("support-bot")
    expect(retrieved).toMatchObject({ id: created.id, slug: "support-bot", object: "prompt", published_version: 1 })

    const updated = await sdk.prompts.update("support-bot", {
      string: JSON.stringify([{ role: "user", content: "Answer kindly: {{question}}" }])
    })
    expect(updated).toMatchObject({ id: created.id, version: 2 })

    // #region readme-portkey
    const portkey = new Portkey({ apiKey: workspaceKey, baseURL: `${server.baseUrl}/v1` })
    const published = await portkey.prompts.publish("support-bot", { version: 2 })
    const rendered = await portkey.prompts.render({
      promptID: "support-bot@production",
      variables: { question: "Where is my order?" }
    })
    // #endregion readme-portkey
    expect(published).toMatchObject({ id: created.id, published_version: 2 })
    expect(rendered).toMatchObject({
      success: true,
      data: { model: "gpt-4o", temperature: 0.2, messages: [{ role: "user", content: "Answer Where is my order?" }] }
    })
    // The SDK repeats the prompt's reference in the body as prompt_id; it never reaches the provider's request.
    expect(rendered.data).not.toHaveProperty("prompt_id")

    const content = async (promptID: string) =>
      (await sdk.prompts.render({ promptID, variables: { question: "why?" } })).data.messages?.[0].content
    expect(await content("support-bot@1")).toBe("Answer why?")
    expect(await content("support-bot@latest")).toBe("Answer kindly: why?")
    expect(await content("support-bot")).toBe("Answer kindly: why?")
  })
})

describe("partials", () => {
  it("create, list, retrieve, update, versions, publish, delete", async () => {
    const created = await sdk.prompts.partials.create({ name: "Tone", string: "Be calm." })
    expect(created).toMatchObject({ id: text, slug: "tone", version_id: text, version: 1 })
    expect((await sdk.prompts.partials.list()).data.map((p: { slug: string }) => p.slug)).toContain("tone")
    expect(await sdk.prompts.partials.retrieve("tone")).toMatchObject({
      id: created.id,
      string: "Be calm.",
      status: "active",
      object: "prompt-partial"
    })

    const updated = await sdk.prompts.partials.update("tone", { string: "Be warm.", description: "Our voice" })
    expect(updated).toMatchObject({ id: created.id, version: 2, description: "Our voice" })
    const renamed = await sdk.prompts.partials.update("tone", { name: "Tone of voice", status: "active" })
    expect(renamed).toMatchObject({ name: "Tone of voice", version: 2 })

    const versions = await sdk.prompts.partials.versions.list("tone")
    expect(versions.data.map((v: { version: number; string: string }) => [v.version, v.string])).toEqual([
      [1, "Be calm."],
      [2, "Be warm."]
    ])
    expect(await sdk.prompts.partials.publish("tone", { version: 1 })).toMatchObject({ published_version: 1 })
    expect((await sdk.prompts.partials.retrieve("tone")).string).toBe("Be calm.")

    expect(await sdk.prompts.partials.delete("tone")).toMatchObject({ id: created.id, deleted: true })
  })
})

describe("versions and labels", () => {
  it("labels: create, list, retrieve, update, delete", async () => {
    const created = await sdk.labels.create({ name: "beta", description: "Try-outs", color_code: "#3366ff" })
    expect(created).toMatchObject({ id: text, name: "beta", object: "label", workspace_id: server.workspaceId })
    const listed = await sdk.labels.list()
    expect(listed.data.map((label: { name: string }) => label.name)).toEqual(
      expect.arrayContaining(["production", "staging", "development", "beta"])
    )
    expect(await sdk.labels.retrieve(created.id)).toMatchObject({ id: created.id, color_code: "#3366ff" })
    expect(await sdk.labels.update(created.id, { name: "canary" })).toMatchObject({ id: created.id, name: "canary" })
    expect(await sdk.labels.delete(created.id)).toMatchObject({ id: created.id, deleted: true })
  })

  it("versions: list, retrieve, point a label at one", async () => {
    const prompt = await sdk.prompts.create({
      name: "Greeter",
      collection_id: "bots",
      string: "Hello {{name}}",
      parameters: {},
      model: "gpt-3.5-turbo-instruct"
    })
    await sdk.prompts.update("greeter", { string: "Hi {{name}}" })
    const versions = await sdk.prompts.versions.list("greeter")
    expect(versions).toMatchObject({ object: "list", total: 2 })
    const second = versions.data[1]
    expect(second).toMatchObject({ prompt_id: prompt.id, version: 2, string: "Hi {{name}}", labels: [] })
    expect(await sdk.prompts.versions.retrieve("greeter", second.id)).toMatchObject({ id: second.id, version: 2 })

    const label = await sdk.labels.create({ name: "preview" })
    const pointed = await sdk.prompts.versions.update("greeter", second.id, { label_id: label.id })
    expect(pointed).toMatchObject({ id: second.id, labels: ["preview"] })
    const rendered = await sdk.prompts.render({ promptID: "greeter@preview", variables: { name: "Ada" } })
    expect(rendered.data.prompt).toBe("Hi Ada")
  })
})

describe("virtual keys and configs", () => {
  it("virtual keys: create, list, retrieve by slug, update, delete", async () => {
    const created = await sdk.virtualKeys.create({ name: "Team OpenAI", provider: "openai", key: "sk-team-1234" })
    expect(created).toMatchObject({ id: text, slug: "team-openai", object: "virtual-key" })
    const listed = await sdk.virtualKeys.list()
    expect(listed).toMatchObject({ object: "list", total: expect.any(Number) })
    expect(listed.data!.map((key) => key.slug)).toContain("team-openai")
    expect(await sdk.virtualKeys.retrieve({ slug: "team-openai" })).toMatchObject({
      id: created.id,
      slug: "team-openai",
      name: "Team OpenAI",
      created_at: ISO
    })
    const updated = await sdk.virtualKeys.update({ slug: "team-openai", name: "Team key", key: "sk-team-5678" })
    expect(updated).toMatchObject({ id: created.id, slug: "team-openai", object: "virtual-key" })
    expect(await sdk.virtualKeys.delete({ slug: "team-openai" })).toMatchObject({ id: created.id, deleted: true })
  })

  it("configs: create, list, retrieve by slug, update, delete", async () => {
    const created = await sdk.configs.create({ name: "Direct", config: { provider: "openai", api_key: "sk-good" } })
    expect(created).toMatchObject({ id: text, slug: "direct" })
    const listed = await sdk.configs.list()
    expect(listed.data!.map((config) => config.slug)).toContain("direct")
    expect(await sdk.configs.retrieve({ slug: "direct" })).toMatchObject({
      id: created.id,
      slug: "direct",
      name: "Direct",
      workspace_id: server.workspaceId,
      created_at: ISO,
      last_updated_at: ISO,
      config: { provider: "openai" }
    })
    const updated = await sdk.configs.update({
      slug: "direct",
      name: "Direct, slow",
      config: { request_timeout: 5000 }
    })
    expect(updated).toMatchObject({ object: "config", name: "Direct, slow", config: { request_timeout: 5000 } })
    expect(await sdk.configs.delete({ slug: "direct" })).toMatchObject({ id: created.id, deleted: true })
  })
})

describe("fine-tuning", () => {
  it("fineTuning.jobs.list through a virtual key, at the provider", async () => {
    await sdk.virtualKeys.create({ name: "Fine tuning", provider: "openai", key: "sk-good" })
    // A client of its own: per-call options stay on the SDK's client for the calls after them.
    const tuning = client(workspaceKey)
    const listed = await tuning.fineTuning.jobs.list({ limit: 3 }, { virtualKey: "fine-tuning" })
    expect(listed).toMatchObject({ object: "list", has_more: true })
    expect(listed.data.map((job: { id: string }) => job.id)).toEqual([
      "ftjob-provider-000",
      "ftjob-provider-001",
      "ftjob-provider-002"
    ])
    // The provider got the virtual key's key, never the gateway key the SDK also sends as Authorization.
    expect(provider.requests.at(-1)?.authorization).toBe("Bearer sk-good")
  })
})
