/**
 * Every method of Portkey's Node SDK (`portkey-ai`, the version in devDependencies) for the control-plane
 * families of issue #28, at the SDK's defaults (a client given only `apiKey` and `baseURL`), once with the admin
 * key the bootstrap made and once with a workspace service key holding every scope. The methods are found on the
 * SDK's class prototypes (`sdkMethods`), so a method a new SDK version adds fails the last test of each run until
 * it is driven here. Each answer is checked against the type the SDK's `.d.ts` declares for the method
 * (`declaredAnswerErrors`, read with the TypeScript compiler). Where the method is not for that key (organisation
 * administration with a workspace key) or not served (the README's compatibility table says which and why), the
 * documented refusal is asserted instead: its status, in our envelope with Portkey's `error.type`.
 */
import { ScopeNames } from "@gateway-control/domain"
import { Portkey } from "portkey-ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import { type McpGateway, startMcpGateway } from "./support/McpGateway.ts"
import { declaredAnswerErrors, sdkMethods } from "./support/PortkeySdkTypes.ts"
import { type SdkMcpServer, startSdkMcpServer } from "./support/SdkMcpServer.ts"
import { jsonOf, type TestServer } from "./support/TestServer.ts"

/** The SDK's families this gateway's control plane serves (issue #28). */
const FAMILIES = [
  "admin",
  "apiKeys",
  "collections",
  "configs",
  "integrations",
  "labels",
  "mcpIntegrations",
  "mcpServers",
  "prompts",
  "providers",
  "virtualKeys"
] as const

/**
 * Where the SDK's declared type and Portkey's API (which this gateway follows) disagree, the answer follows the
 * API; each case is named here with the declared path it concerns, and nothing else may differ.
 */
const SDK_TYPE_ERRATA: ReadonlyArray<RegExp> = [
  // `ConfigsListResponse.object` is declared `boolean`; every list, Portkey's included, answers `"list"`.
  /^configs\.list: \.object: "list" is not boolean \| undefined$/
]

let upstream: SdkMcpServer
/** The model provider prompt completions reach, through a virtual key whose custom host it is. */
let provider: FakeProvider
let gateway: McpGateway
let server: TestServer
let workspaceKey: string

const client = (apiKey: string) => new Portkey({ apiKey, baseURL: `${server.baseUrl}/v1` })

beforeAll(async () => {
  upstream = await startSdkMcpServer()
  provider = await startFakeProvider("completions")
  gateway = await startMcpGateway({ trusted: [upstream.host, provider.host] })
  server = gateway.server
  const virtualKey = await server.send("POST", "/v1/virtual-keys", {
    name: "Completions",
    slug: "completions",
    provider: "openai",
    key: "sk-good",
    custom_host: provider.baseUrl,
    workspace_id: server.workspaceId
  })
  if (virtualKey.status !== 201) throw new Error(await virtualKey.text())
  // A workspace service key with every scope such a key may hold.
  const created = await jsonOf(
    await server.send("POST", "/v1/api-keys/workspace/service", {
      name: "every scope",
      workspace_id: server.workspaceId,
      scopes: ScopeNames
    })
  )
  if (typeof created.key !== "string") throw new Error(JSON.stringify(created))
  workspaceKey = created.key
})
afterAll(async () => {
  await gateway?.close()
  await upstream?.close()
  await provider?.close()
})

interface Run {
  readonly sdk: Portkey
  /** The admin key's run, else the workspace key's. */
  readonly admin: boolean
  /** Tells the two runs' names apart. */
  readonly tag: string
  /** The SDK methods (`family.resource.method`) this run called. */
  readonly called: Set<string>
}

/**
 * Calls `method` through the SDK. Without `refusal` it must answer, with what the SDK declares; with one, it must
 * fail with that status and our envelope carrying Portkey's `error.type`.
 */
async function call<A>(run: Run, method: string, send: (sdk: Portkey) => Promise<A>): Promise<A>
async function call(run: Run, method: string, send: (sdk: Portkey) => Promise<unknown>, refusal: number): Promise<void>
async function call<A>(run: Run, method: string, send: (sdk: Portkey) => Promise<A>, refusal?: number) {
  run.called.add(method)
  if (refusal === undefined) {
    const answer = await send(run.sdk).catch((error: { status?: number; error?: unknown }) => {
      throw new Error(`${method} failed: ${error.status} ${JSON.stringify(error.error)}`)
    })
    const errors = declaredAnswerErrors(method, answer)
      .map((error) => `${method}: ${error}`)
      .filter((error) => !SDK_TYPE_ERRATA.some((erratum) => erratum.test(error)))
    expect(errors, JSON.stringify(answer)).toEqual([])
    return answer
  }
  const failed = await send(run.sdk).then(
    (answer) => {
      throw new Error(`${method} answered ${JSON.stringify(answer)}; expected ${refusal}`)
    },
    (error: { status?: number; error?: { error?: Record<string, unknown> } }) => error
  )
  expect({ method, status: failed.status }).toEqual({ method, status: refusal })
  expect(failed.error?.error, method).toMatchObject({ type: expect.any(String), message: expect.any(String) })
}

/** An organisation administration method: the admin key's run answers, the workspace key's is refused (403). */
const administration = <A>(run: Run, method: string, send: (sdk: Portkey) => Promise<A>) =>
  run.admin ? call(run, method, send) : call(run, method, send, 403).then(() => undefined)

/** A user of the organisation, made with the admin key through our API. */
const newUser = async (email: string) => {
  const response = await server.send("POST", "/v1/users", { email, name: `Someone ${email}`, role: "member" })
  const user = await jsonOf(response)
  if (response.status !== 201) throw new Error(JSON.stringify(user))
  return user.id as string
}

describe.each(
  [
    ["the admin key", true],
    ["a workspace key", false]
  ] as const
)("every method of Portkey's Node SDK with %s", (_name, admin) => {
  let run: Run
  beforeAll(() => {
    run = {
      sdk: client(admin ? server.adminKey : workspaceKey),
      admin,
      tag: admin ? "admin" : "workspace",
      called: new Set()
    }
  })
  /** `workspace_id` where the admin key must name one and a workspace key's is implied. */
  const inWorkspace = () => (admin ? { workspace_id: server.workspaceId } : {})

  it("admin: workspaces, their users, users and invites", async () => {
    const { tag } = run
    const lab = await administration(
      run,
      "admin.workspaces.create",
      (sdk) => sdk.admin.workspaces.create({ name: `Lab ${tag}`, description: "Experiments" })
    )
    const labId = lab?.id ?? server.workspaceId
    const listed = await call(run, "admin.workspaces.list", (sdk) => sdk.admin.workspaces.list({}))
    expect(listed.data?.map((w) => w.id)).toContain(server.workspaceId)
    expect(
      await call(
        run,
        "admin.workspaces.retrieve",
        (sdk) => sdk.admin.workspaces.retrieve({ workspaceId: server.workspaceId })
      )
    ).toMatchObject({ id: server.workspaceId, object: "workspace" })
    await administration(
      run,
      "admin.workspaces.update",
      (sdk) => sdk.admin.workspaces.update({ workspaceId: labId, name: `Lab ${tag} renamed` })
    )

    const userId = await newUser(`member-${tag}@methods.test`)
    if (!admin) {
      // The workspace key may not add members: the admin key does it, so the reads have one to read.
      await server.send("POST", `/v1/admin/workspaces/${server.workspaceId}/users`, {
        users: [{ id: userId, role: "member" }]
      })
    }
    await administration(
      run,
      "admin.workspaces.users.create",
      (sdk) =>
        sdk.admin.workspaces.users.create({ workspaceId: server.workspaceId, users: [{ id: userId, role: "member" }] })
    )
    const members = await call(
      run,
      "admin.workspaces.users.list",
      (sdk) => sdk.admin.workspaces.users.list({ workspaceId: server.workspaceId })
    )
    // The SDK declares no `id` on a member; ours carries it (README), read here as plain JSON.
    expect(members.data?.map((m) => (m as { readonly id?: string }).id)).toContain(userId)
    expect(
      await call(
        run,
        "admin.workspaces.users.retrieve",
        (sdk) => sdk.admin.workspaces.users.retrieve({ workspaceId: server.workspaceId, userId })
      )
    ).toMatchObject({ id: userId, role: "member" })
    await administration(
      run,
      "admin.workspaces.users.update",
      (sdk) => sdk.admin.workspaces.users.update({ workspaceId: server.workspaceId, userId, role: "admin" })
    )
    await administration(
      run,
      "admin.workspaces.users.delete",
      (sdk) => sdk.admin.workspaces.users.delete({ workspaceId: server.workspaceId, userId })
    )

    const users = await administration(run, "admin.users.list", (sdk) => sdk.admin.users.list({}))
    if (admin) expect(users?.data?.map((u) => u.id)).toContain(userId)
    await administration(run, "admin.users.retrieve", (sdk) => sdk.admin.users.retrieve({ userId }))
    await administration(run, "admin.users.update", (sdk) => sdk.admin.users.update({ userId, role: "admin" }))

    // An invitation the admin key made, for the workspace key's refusals to name.
    const made = await jsonOf(
      await server.send("POST", "/v1/admin/users/invites", {
        email: `invited-first-${tag}@methods.test`,
        role: "member",
        workspaces: [{ id: server.workspaceId, role: "member" }]
      })
    )
    const invited = await administration(run, "admin.users.invites.create", (sdk) =>
      sdk.admin.users.invites.create({
        email: `invited-${tag}@methods.test`,
        role: "member",
        workspaces: [{ id: server.workspaceId, role: "member" }]
      }))
    const inviteId = invited?.id ?? made.id
    await administration(run, "admin.users.invites.list", (sdk) => sdk.admin.users.invites.list({}))
    await administration(run, "admin.users.invites.retrieve", (sdk) => sdk.admin.users.invites.retrieve({ inviteId }))
    await administration(run, "admin.users.invites.resend", (sdk) => sdk.admin.users.invites.resend({ inviteId }))
    await administration(run, "admin.users.invites.delete", (sdk) => sdk.admin.users.invites.delete({ inviteId }))

    await administration(run, "admin.users.delete", (sdk) => sdk.admin.users.delete({ userId }))
    await administration(run, "admin.workspaces.delete", (sdk) => sdk.admin.workspaces.delete({ workspaceId: labId }))
  })

  it("collections, prompts, their versions and render, partials, labels", async () => {
    const { tag } = run
    const collection = await call(
      run,
      "collections.create",
      (sdk) => sdk.collections.create({ name: `Bots ${tag}`, ...inWorkspace() })
    )
    expect(collection).toMatchObject({ id: expect.any(String) })
    const collections = await call(run, "collections.list", (sdk) => sdk.collections.list({ ...inWorkspace() }))
    expect(collections.data.map((c: { id: string }) => c.id)).toContain(collection.id)
    await call(run, "collections.retrieve", (sdk) => sdk.collections.retrieve(collection.id))
    await call(run, "collections.update", (sdk) => sdk.collections.update(collection.id, { name: `Bots ${tag} 2` }))

    const slug = `greeter-${tag}`
    const created = await call(run, "prompts.create", (sdk) =>
      sdk.prompts.create({
        name: `Greeter ${tag}`,
        collection_id: collection.id,
        string: "Hello {{name}}",
        parameters: { temperature: 0.1 },
        model: "gpt-4o-mini"
      }))
    expect(created).toMatchObject({ slug, version: 1 })
    const prompts = await call(run, "prompts.list", (sdk) => sdk.prompts.list({ collection_id: collection.id }))
    expect(prompts.data.map((p: { slug: string }) => p.slug)).toEqual([slug])
    await call(run, "prompts.retrieve", (sdk) => sdk.prompts.retrieve(slug))
    await call(run, "prompts.update", (sdk) => sdk.prompts.update(slug, { string: "Hi {{name}}" }))
    await call(run, "prompts.publish", (sdk) => sdk.prompts.publish(slug, { version: 2 }))
    const rendered = await call(
      run,
      "prompts.render",
      (sdk) => sdk.prompts.render({ promptID: slug, variables: { name: "Ada" } })
    )
    expect(rendered.data.prompt ?? rendered.data.messages?.[0]?.content).toBe("Hi Ada")
    const versions = await call(run, "prompts.versions.list", (sdk) => sdk.prompts.versions.list(slug))
    const first = versions.data[0] as { id: string }
    await call(run, "prompts.versions.retrieve", (sdk) => sdk.prompts.versions.retrieve(slug, first.id))

    const label = await call(run, "labels.create", (sdk) => sdk.labels.create({ name: `try-${tag}`, ...inWorkspace() }))
    expect(label).toMatchObject({ organisation_id: server.organisationId, workspace_id: server.workspaceId })
    const labels = await call(run, "labels.list", (sdk) => sdk.labels.list({ ...inWorkspace() }))
    expect(labels.data.map((l: { id: string }) => l.id)).toContain(label.id)
    expect(await call(run, "labels.retrieve", (sdk) => sdk.labels.retrieve(label.id))).toMatchObject({
      organisation_id: server.organisationId,
      workspace_id: server.workspaceId
    })
    await call(run, "labels.update", (sdk) => sdk.labels.update(label.id, { description: "try-outs" }))
    expect(
      await call(
        run,
        "prompts.versions.update",
        (sdk) => sdk.prompts.versions.update(slug, first.id, { label_id: label.id })
      )
    ).toMatchObject({ id: first.id })
    // A model call: a workspace key's, through the virtual key the SDK's per-call option names (README, "Prompt
    // completions"); an admin key makes none (it holds no `completions.write`).
    const complete = (sdk: Portkey) =>
      sdk.prompts.completions.create({ promptID: slug, variables: { name: "Ada" } }, { virtualKey: "completions" })
    if (admin) {
      await call(run, "prompts.completions.create", complete, 403)
    } else {
      const completion = await call(run, "prompts.completions.create", complete)
      expect(completion).toMatchObject({ object: expect.any(String) })
      expect(provider.requests.at(-1)?.authorization).toBe("Bearer sk-good")
    }
    await call(run, "labels.delete", (sdk) => sdk.labels.delete(label.id))
    await call(run, "prompts.delete", (sdk) => sdk.prompts.delete(slug))

    const partial = `tone-${tag}`
    await call(
      run,
      "prompts.partials.create",
      (sdk) => sdk.prompts.partials.create({ name: `Tone ${tag}`, string: "Be calm.", ...inWorkspace() })
    )
    const partials = await call(run, "prompts.partials.list", (sdk) => sdk.prompts.partials.list())
    expect(partials.data.map((p: { slug: string }) => p.slug)).toContain(partial)
    await call(run, "prompts.partials.retrieve", (sdk) => sdk.prompts.partials.retrieve(partial))
    await call(run, "prompts.partials.update", (sdk) => sdk.prompts.partials.update(partial, { string: "Be warm." }))
    await call(run, "prompts.partials.versions.list", (sdk) => sdk.prompts.partials.versions.list(partial))
    await call(run, "prompts.partials.publish", (sdk) => sdk.prompts.partials.publish(partial, { version: 1 }))
    await call(run, "prompts.partials.delete", (sdk) => sdk.prompts.partials.delete(partial))

    await call(run, "collections.delete", (sdk) => sdk.collections.delete(collection.id))
  })

  it("configs, API keys, virtual keys", async () => {
    const { tag } = run
    const config = await call(run, "configs.create", (sdk) =>
      sdk.configs.create({
        name: `Retrying ${tag}`,
        config: { retry: { attempts: 2, on_status_codes: [429] }, cache: { mode: "simple" } },
        ...inWorkspace()
      }))
    const configSlug = config.slug!
    const configs = await call(run, "configs.list", (sdk) => sdk.configs.list({ ...inWorkspace() }))
    expect(configs.data?.map((c) => c.slug)).toContain(configSlug)
    expect(await call(run, "configs.retrieve", (sdk) => sdk.configs.retrieve({ slug: configSlug }))).toMatchObject({
      slug: configSlug,
      organization_id: server.organisationId
    })
    await call(run, "configs.update", (sdk) => sdk.configs.update({ slug: configSlug, name: `Retrying ${tag} 2` }))
    await call(run, "configs.delete", (sdk) => sdk.configs.delete({ slug: configSlug }))

    const key = await call(run, "apiKeys.create", (sdk) =>
      sdk.apiKeys.create({
        type: "workspace",
        "sub-type": "service",
        name: `Nightly ${tag}`,
        workspace_id: server.workspaceId,
        scopes: ["prompts.read"]
      }))
    const keys = await call(run, "apiKeys.list", (sdk) => sdk.apiKeys.list({ workspace_id: server.workspaceId }))
    expect(keys.data?.map((k) => k.id)).toContain(key.id)
    await call(run, "apiKeys.retrieve", (sdk) => sdk.apiKeys.retrieve({ id: key.id }))
    await call(run, "apiKeys.update", (sdk) => sdk.apiKeys.update({ id: key.id, name: `Nightly ${tag} 2` }))
    await call(run, "apiKeys.delete", (sdk) => sdk.apiKeys.delete({ id: key.id }))

    const virtual = await call(
      run,
      "virtualKeys.create",
      (sdk) =>
        sdk.virtualKeys.create({ name: `Team ${tag}`, provider: "openai", key: "sk-team-1234", ...inWorkspace() })
    )
    const virtualSlug = virtual.slug!
    const virtuals = await call(run, "virtualKeys.list", (sdk) => sdk.virtualKeys.list())
    expect(virtuals.data?.map((k) => k.slug)).toContain(virtualSlug)
    await call(run, "virtualKeys.retrieve", (sdk) => sdk.virtualKeys.retrieve({ slug: virtualSlug }))
    await call(run, "virtualKeys.update", (sdk) => sdk.virtualKeys.update({ slug: virtualSlug, name: `Team ${tag} 2` }))
    await call(run, "virtualKeys.delete", (sdk) => sdk.virtualKeys.delete({ slug: virtualSlug }))
  })

  it("integrations (provider credentials), their workspaces and models; providers", async () => {
    const { tag } = run
    // The admin key's is the organisation's (shared with workspaces below); a workspace key's is its workspace's.
    const integration = await call(run, "integrations.create", (sdk) =>
      sdk.integrations.create({
        name: `OpenAI ${tag}`,
        ai_provider_id: "openai",
        key: "sk-integration-1234",
        ...(admin ? {} : { workspace_id: server.workspaceId })
      }))
    const slug = integration.slug as string
    const listed = await call(run, "integrations.list", (sdk) => sdk.integrations.list({ type: "all" }))
    expect(listed.data.map((i: { slug: string }) => i.slug)).toContain(slug)
    await call(run, "integrations.retrieve", (sdk) => sdk.integrations.retrieve({ slug }))
    await call(run, "integrations.update", (sdk) => sdk.integrations.update({ slug, description: "the team's" }))
    const workspaces = { slug, workspaces: [{ id: server.workspaceId, enabled: true }] }
    if (admin) {
      await call(run, "integrations.workspaces.update", (sdk) => sdk.integrations.workspaces.update(workspaces))
    } else {
      // A workspace's integration belongs to that workspace alone (README, "Integrations and providers").
      await call(run, "integrations.workspaces.update", (sdk) => sdk.integrations.workspaces.update(workspaces), 400)
    }
    await call(run, "integrations.workspaces.list", (sdk) => sdk.integrations.workspaces.list({ slug }))
    await call(run, "integrations.models.update", (sdk) =>
      sdk.integrations.models.update({
        slug,
        allow_all_models: false,
        models: [{ slug: "gpt-4o", enabled: true }, { slug: "ft:methods", enabled: true, is_custom: true }]
      }))
    const models = await call(run, "integrations.models.list", (sdk) => sdk.integrations.models.list({ slug }))
    expect(models.models.map((m: { slug: string }) => m.slug)).toEqual(["gpt-4o", "ft:methods"])
    // Only a custom model is deleted; a provider's own is switched off instead.
    await call(
      run,
      "integrations.models.delete",
      (sdk) => sdk.integrations.models.delete({ slug, slugs: "ft:methods" })
    )

    const provider = await call(
      run,
      "providers.create",
      (sdk) => sdk.providers.create({ name: `Team ${tag}`, integration_id: slug, note: "the team's", ...inWorkspace() })
    )
    const providerSlug = provider.slug!
    const providers = await call(run, "providers.list", (sdk) => sdk.providers.list({ ...inWorkspace() }))
    expect(providers.data?.map((p) => p.slug)).toContain(providerSlug)
    await call(run, "providers.retrieve", (sdk) => sdk.providers.retrieve({ slug: providerSlug, ...inWorkspace() }))
    await call(
      run,
      "providers.update",
      (sdk) => sdk.providers.update({ slug: providerSlug, name: `Team ${tag} 2`, ...inWorkspace() })
    )
    await call(run, "providers.delete", (sdk) => sdk.providers.delete({ slug: providerSlug, ...inWorkspace() }))
    await call(run, "integrations.delete", (sdk) => sdk.integrations.delete({ slug }))
  })

  it("MCP integrations and servers", async () => {
    const { tag } = run
    const integration = await call(run, "mcpIntegrations.create", (sdk) =>
      sdk.mcpIntegrations.create({
        name: `Docs ${tag}`,
        url: upstream.httpUrl,
        auth_type: "none",
        transport: "http",
        ...(admin ? {} : { workspace_id: server.workspaceId })
      }))
    const integrationId = integration.id!
    const integrations = await call(
      run,
      "mcpIntegrations.list",
      (sdk) => sdk.mcpIntegrations.list(admin ? { organisation_id: server.organisationId } : {})
    )
    expect(integrations.data?.map((i) => i.id)).toContain(integrationId)
    await call(run, "mcpIntegrations.retrieve", (sdk) => sdk.mcpIntegrations.retrieve({ id: integrationId }))
    await call(
      run,
      "mcpIntegrations.update",
      (sdk) => sdk.mcpIntegrations.update({ id: integrationId, description: "the docs" })
    )
    await call(run, "mcpIntegrations.test", (sdk) => sdk.mcpIntegrations.test({ id: integrationId }))
    await call(run, "mcpIntegrations.sync", (sdk) => sdk.mcpIntegrations.sync({ id: integrationId }))
    await call(run, "mcpIntegrations.metadata.get", (sdk) => sdk.mcpIntegrations.metadata.get({ id: integrationId }))
    await call(
      run,
      "mcpIntegrations.capabilities.list",
      (sdk) => sdk.mcpIntegrations.capabilities.list({ id: integrationId })
    )
    await call(run, "mcpIntegrations.capabilities.update", (sdk) =>
      sdk.mcpIntegrations.capabilities.update({
        id: integrationId,
        capabilities: [{ name: "search", type: "tool", enabled: true }]
      }))
    await call(
      run,
      "mcpIntegrations.workspaces.list",
      (sdk) => sdk.mcpIntegrations.workspaces.list({ id: integrationId })
    )
    const workspaces = { id: integrationId, workspaces: [{ id: server.workspaceId, enabled: true }] }
    if (admin) {
      await call(run, "mcpIntegrations.workspaces.update", (sdk) => sdk.mcpIntegrations.workspaces.update(workspaces))
    } else {
      // A workspace's integration belongs to that workspace alone: there are no workspaces to open it to.
      await call(
        run,
        "mcpIntegrations.workspaces.update",
        (sdk) => sdk.mcpIntegrations.workspaces.update(workspaces),
        400
      )
    }

    const created = await call(
      run,
      "mcpServers.create",
      (sdk) =>
        sdk.mcpServers.create({ name: `Docs server ${tag}`, mcp_integration_id: integrationId, ...inWorkspace() })
    )
    const id = created.id!
    const servers = await call(run, "mcpServers.list", (sdk) => sdk.mcpServers.list({ ...inWorkspace() }))
    expect(servers.data?.map((s) => s.id)).toContain(id)
    await call(run, "mcpServers.retrieve", (sdk) => sdk.mcpServers.retrieve({ id }))
    await call(run, "mcpServers.update", (sdk) => sdk.mcpServers.update({ id, description: "the docs server" }))
    await call(run, "mcpServers.test", (sdk) => sdk.mcpServers.test({ id }))
    await call(run, "mcpServers.capabilities.list", (sdk) => sdk.mcpServers.capabilities.list({ id }))
    await call(run, "mcpServers.userAccess.list", (sdk) => sdk.mcpServers.userAccess.list({ id }))
    await call(
      run,
      "mcpServers.userAccess.update",
      (sdk) => sdk.mcpServers.userAccess.update({ id, default_user_access: "allow" })
    )
    await call(run, "mcpServers.userAccess.check", (sdk) => sdk.mcpServers.userAccess.check({ id }))
    await call(run, "mcpServers.connections.list", (sdk) => sdk.mcpServers.connections.list({ id }))
    // Not served, as the README's table says: capabilities are switched on the integration; the gateway runs no
    // OAuth flow (no per-user tokens, no client info) and holds no per-user connection to end.
    const capability = { name: "search", type: "tool" as const }
    await call(
      run,
      "mcpServers.capabilities.update",
      (sdk) => sdk.mcpServers.capabilities.update({ id, capabilities: [{ ...capability, enabled: false }] }),
      404
    )
    await call(
      run,
      "mcpServers.capabilities.sync",
      (sdk) => sdk.mcpServers.capabilities.sync({ id, capabilities: [capability] }),
      404
    )
    await call(run, "mcpServers.metadata.get", (sdk) => sdk.mcpServers.metadata.get({ id }), 404)
    await call(run, "mcpServers.metadata.sync", (sdk) => sdk.mcpServers.metadata.sync({ id, title: "Docs" }), 404)
    await call(run, "mcpServers.getTokens", (sdk) => sdk.mcpServers.getTokens({ id }), 404)
    await call(run, "mcpServers.setTokens", (sdk) => sdk.mcpServers.setTokens({ id, access_token: "t" }), 404)
    await call(run, "mcpServers.deleteTokens", (sdk) => sdk.mcpServers.deleteTokens({ id }), 404)
    await call(run, "mcpServers.getClientInfo", (sdk) => sdk.mcpServers.getClientInfo({ id }), 404)
    await call(run, "mcpServers.connections.delete", (sdk) => sdk.mcpServers.connections.delete({ id }), 404)
    await call(run, "mcpServers.delete", (sdk) => sdk.mcpServers.delete({ id }))
    await call(run, "mcpIntegrations.delete", (sdk) => sdk.mcpIntegrations.delete({ id: integrationId }))
  })

  it("drove every method the SDK has for these families", () => {
    expect([...run.called].sort()).toEqual(sdkMethods(run.sdk, FAMILIES))
  })
})

describe("the check against the SDK's declared types", () => {
  it("finds a wrong JSON type, a null where none is declared, a date that is not one, a missing required field", () => {
    expect(declaredAnswerErrors("admin.users.retrieve", { id: 7, created_at: "yesterday", workspace_ids: [null] }))
      .toEqual([
        ".id: 7 is not string",
        ".created_at: \"yesterday\" is not Date",
        ".workspace_ids[0]: null is not string"
      ])
    expect(declaredAnswerErrors("providers.retrieve", { note: null })).toEqual([
      ".note: null is not string | undefined"
    ])
    expect(declaredAnswerErrors("prompts.render", { data: {} })).toEqual([
      ".success: required by the SDK's type, absent"
    ])
    expect(declaredAnswerErrors("admin.workspaces.list", { data: [{ id: "w", created_at: "2026-01-01T00:00:00Z" }] }))
      .toEqual([])
  })
})
