/**
 * The valid example of every endpoint, made against a freshly bootstrapped server: the fixture creates what
 * the examples refer to (a second workspace, users, keys, prompts, partials, MCP integrations and servers,
 * virtual keys, configs). Deleting endpoints get resources of their own, so that their example deletes
 * nothing another endpoint needs.
 */
import { createServer } from "node:http"
import * as OTPAuth from "otpauth"
import type { TestServer } from "../TestServer.ts"
import type { Example, HeaderContext } from "./FuzzRequests.ts"

export interface Fixture extends HeaderContext {
  readonly organisationId: string
  readonly workspaceId: string
  readonly otherWorkspaceId: string
  readonly memberId: string
  readonly leaverId: string
  /** A member of the workspace that Portkey's workspace-user routes read, change and (`leavingId`) remove. */
  readonly stayerId: string
  readonly leavingId: string
  readonly doomedUserId: string
  readonly doomedWorkspaceId: string
  readonly apiKeyId: string
  readonly doomedApiKeyId: string
  readonly partialId: string
  readonly partialSlug: string
  readonly doomedPartialId: string
  readonly promptVersionId: string
  readonly labelId: string
  readonly doomedLabelId: string
  readonly promptId: string
  readonly doomedPromptId: string
  readonly integrationId: string
  readonly doomedIntegrationId: string
  readonly mcpServerId: string
  readonly doomedMcpServerId: string
  /** An integration and server on the local MCP server, with its capabilities synced. */
  readonly liveIntegrationId: string
  readonly liveServerId: string
  readonly liveServerName: string
  readonly virtualKeyId: string
  readonly doomedVirtualKeyId: string
  readonly configId: string
  readonly doomedConfigId: string
  readonly trustPolicyId: string
  readonly doomedTrustPolicyId: string
  /** The member's email and password (a local account), a session of theirs and what its changes carry. */
  readonly memberEmail: string
  readonly sessionId: string
  readonly sessionCookie: string
  readonly sessionCsrfToken: string
  readonly baseUrl: string
  readonly secretReferenceId: string
  readonly doomedSecretReferenceId: string
  readonly identityProviderId: string
  readonly doomedIdentityProviderId: string
  readonly scimTokenId: string
  readonly doomedScimTokenId: string
  readonly inviteId: string
  readonly doomedInviteId: string
  /** The link tokens of two more invitations: one to show, one to accept (each link is single use). */
  readonly shownInviteToken: string
  readonly acceptedInviteToken: string
  readonly collectionId: string
  readonly doomedCollectionId: string
  /** An organisation-level AI-provider integration shared with the workspace, with a custom model. */
  readonly aiIntegrationSlug: string
  readonly doomedAiIntegrationSlug: string
  /** Providers of the workspace on that integration. */
  readonly providerSlug: string
  readonly doomedProviderId: string
  /** The member's TOTP second factor, enrolled and pending (their session confirms it with a code of it). */
  readonly memberTotpSecret: string
  /**
   * A password sign-in's challenge for a person with an active second factor, and the code that answers it; made
   * only for the endpoint that takes them (three sign-ins are costly), empty otherwise.
   */
  readonly secondFactorChallenge: string
  readonly secondFactorCode: string
}

const totpOf = (secret: string) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) })

/** The headers of a change made with a session, as the console on the gateway's own origin makes it. */
const sessionHeaders = (baseUrl: string, cookie: string, csrf: string) => ({
  cookie,
  "x-csrf-token": csrf,
  origin: baseUrl,
  "content-type": "application/json"
})

/** Enrols a TOTP factor (pending) for the person of the session; answers its secret. */
const enrolTotp = async (server: TestServer, cookie: string, csrf: string): Promise<string> => {
  const enrolled = await server.request("/v1/me/second-factor/totp", {
    method: "POST",
    key: null,
    headers: sessionHeaders(server.baseUrl, cookie, csrf)
  })
  const text = await enrolled.text()
  if (enrolled.status !== 201) throw new Error(`fixture: enrolment answered ${enrolled.status} ${text}`)
  return OTPAuth.URI.parse(JSON.parse(text).otpauth_uri).secret.base32
}

/** A person with an active second factor, past their password: the challenge and a code (the next step's). */
const secondFactorChallenge = async (server: TestServer, userId: string, email: string) => {
  const password = await server.send("PUT", "/v1/auth/password", { user_id: userId, password: MEMBER_PASSWORD })
  if (password.status !== 200) throw new Error(`fixture: password answered ${password.status} ${await password.text()}`)
  const signIn = () => server.send("POST", "/v1/auth/password", { email, password: MEMBER_PASSWORD })
  const first = await signIn()
  const session = SignedIn.parse(await first.text())
  const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0]
  const secret = await enrolTotp(server, cookie, session.csrf_token)
  const confirmed = await server.request("/v1/me/second-factor/totp/confirm", {
    method: "POST",
    key: null,
    headers: sessionHeaders(server.baseUrl, cookie, session.csrf_token),
    body: JSON.stringify({ code: totpOf(secret).generate() })
  })
  if (confirmed.status !== 200) {
    throw new Error(`fixture: confirm answered ${confirmed.status} ${await confirmed.text()}`)
  }
  const second = await signIn()
  const { challenge } = JSON.parse(await second.text())
  // The code confirming used this step's: the next one's is accepted (one step either side).
  return { challenge: String(challenge), code: totpOf(secret).generate({ timestamp: Date.now() + 30_000 }) }
}

/** Posts with the admin key and answers the created resource, failing loudly if it was not created. */
const creator = (server: TestServer) => async (path: string, body: unknown): Promise<Record<string, string>> => {
  const response = await server.send("POST", path, body)
  const text = await response.text()
  if (response.status !== 201) throw new Error(`fixture: POST ${path} answered ${response.status} ${text}`)
  return JSON.parse(text)
}

/** An identity provider's fields but its name; its issuer is never asked (nobody signs in). */
const IDENTITY_PROVIDER = {
  issuer: "https://sso.example.com",
  client_id: "gateway-control",
  client_secret: "fuzz-client-secret",
  role_map: { admins: { organisation_role: "admin" } },
  allowed_domains: ["example.com"]
}

/** A trust policy's fields but its name and workspace; its keys are never fetched (nothing is exchanged). */
/** A secret reference in a Vault that is never called (the fuzz test only administers references). */
const SECRET_REFERENCE = {
  manager_type: "hashicorp_vault",
  auth_config: { vault_auth_type: "token", vault_addr: "https://vault.example.com", vault_token: "hvs.fuzz-token" },
  secret_path: "secret/openai"
}

/** An organisation-level OpenAI integration but its name; its provider is never called. */
const AI_INTEGRATION = { ai_provider_id: "openai", key: "sk-fuzz-integration", configurations: { openai_project: "p" } }

const TRUST_POLICY = {
  issuer: "https://token.actions.githubusercontent.com",
  jwks_uri: "https://token.actions.githubusercontent.com/.well-known/jwks",
  audience: "gateway-control",
  subject_pattern: "repo:acme/*:ref:refs/heads/main",
  claims: { repository_owner: "acme" },
  scopes: ["prompts.render"],
  rate_limits: [{ type: "requests", unit: "rpm", value: 60 }],
  max_ttl_seconds: 600
}

const MEMBER_PASSWORD = "fuzz member password"

/** The parts of a sign-in's answer the fixture keeps. */
const SignedIn = {
  parse: (text: string): { readonly session: { readonly id: string }; readonly csrf_token: string } => JSON.parse(text)
}

const WORKSPACE_KEY_SCOPES = [
  "completions.write",
  "virtual_keys.read",
  "configs.read",
  "prompts.render",
  "prompts.update"
]

/**
 * The resources every example points at. Each test makes its own (`tag` keeps names and slugs apart), so that a
 * mutation one endpoint's fuzzing saves (a PUT of a hostile template, say) never reaches another test.
 */
export const makeFixture = async (
  server: TestServer,
  tag: string,
  mcpUrl: string,
  operationId = ""
): Promise<Fixture> => {
  const create = creator(server)
  const workspace_id = server.workspaceId
  // The fuzzing of the sign-in settings may have turned password sign-in off, or required a second factor: the
  // fixture's sign-ins need the defaults back.
  const settings = await server.send("PATCH", "/v1/admin/sign-in-settings", {
    local_accounts_enabled: true,
    require_second_factor: false
  })
  if (settings.status !== 200) throw new Error(`fixture: settings answered ${settings.status} ${await settings.text()}`)
  const otherWorkspace = await create("/v1/workspaces", {
    name: `Fuzz other team ${tag}`,
    slug: `fuzz-other-team-${tag}`
  })
  const member = await create("/v1/users", { email: `fuzz-member-${tag}@example.com`, name: "Member", role: "member" })
  const leaver = await create("/v1/users", { email: `fuzz-leaver-${tag}@example.com`, name: "Leaver", role: "member" })
  await create(`/v1/workspaces/${workspace_id}/members`, { user_id: leaver.id, role: "member" })
  const stayer = await create("/v1/users", { email: `fuzz-stayer-${tag}@example.com`, name: "Stayer", role: "member" })
  const leaving = await create("/v1/users", { email: `fuzz-leaving-${tag}@example.com`, role: "member" })
  await create(`/v1/admin/workspaces/${workspace_id}/users`, {
    users: [{ id: stayer.id, role: "member" }, { id: leaving.id, role: "member" }]
  })
  const doomedUser = await create("/v1/users", { email: `fuzz-doomed-${tag}@example.com`, role: "member" })
  const doomedWorkspace = await create("/v1/workspaces", { name: `Fuzz doomed team ${tag}` })
  const apiKey = await create("/v1/api-keys/workspace/service", {
    name: `fuzz workspace key ${tag}`,
    workspace_id,
    scopes: WORKSPACE_KEY_SCOPES
  })
  const doomedApiKey = await create("/v1/api-keys/workspace/service", {
    name: `fuzz doomed key ${tag}`,
    workspace_id,
    scopes: ["prompts.read"]
  })
  const partial = await create("/v1/prompts/partials", {
    name: `Fuzz tone ${tag}`,
    slug: `fuzz-tone-${tag}`,
    string: "Be {{tone}}.",
    workspace_id
  })
  const doomedPartial = await create("/v1/prompts/partials", {
    name: `Fuzz doomed partial ${tag}`,
    string: "Gone.",
    workspace_id
  })
  const chat = JSON.stringify([{ role: "system", content: `{{> fuzz-tone-${tag}}}` }, {
    role: "user",
    content: "{{q}}"
  }])
  const prompt = await create("/v1/prompts", { name: `Fuzz prompt ${tag}`, workspace_id, string: chat, model: "m" })
  const doomedPrompt = await create("/v1/prompts", {
    name: `Fuzz doomed prompt ${tag}`,
    workspace_id,
    string: "x",
    model: "m"
  })
  const integration = (name: string) => ({
    name,
    url: "https://mcp.example.com/sse",
    auth_type: "none",
    transport: "sse"
  })
  const mcp = await create("/v1/mcp-integrations", integration(`Fuzz MCP ${tag}`))
  const doomedMcp = await create("/v1/mcp-integrations", integration(`Fuzz doomed MCP ${tag}`))
  const mcpServer = await create("/v1/mcp-servers", {
    name: `Fuzz server ${tag}`,
    mcp_integration_id: mcp.id,
    workspace_id
  })
  const doomedMcpServer = await create("/v1/mcp-servers", {
    name: `Fuzz doomed server ${tag}`,
    mcp_integration_id: mcp.id,
    workspace_id
  })
  const live = await create("/v1/mcp-integrations", {
    ...integration(`Fuzz live MCP ${tag}`),
    url: mcpUrl,
    transport: "http"
  })
  const liveServer = await create("/v1/mcp-servers", {
    name: `Fuzz live server ${tag}`,
    slug: `fuzz-live-${tag}`,
    mcp_integration_id: live.id,
    workspace_id
  })
  const synced = await server.send("POST", `/v1/mcp-integrations/${live.id}/capabilities/sync`, undefined)
  if (synced.status !== 200) throw new Error(`fixture: sync answered ${synced.status} ${await synced.text()}`)
  const virtualKey = (slug: string) => ({ name: slug, slug, provider: "openai", key: "sk-good", workspace_id })
  const mainKey = await create("/v1/virtual-keys", virtualKey(`fuzz-main-${tag}`))
  const doomedKey = await create("/v1/virtual-keys", virtualKey(`fuzz-doomed-${tag}`))
  const config = (slug: string) => ({
    name: slug,
    slug,
    config: { provider: "openai", api_key: "sk-good" },
    workspace_id
  })
  const directConfig = await create("/v1/configs", config(`fuzz-direct-${tag}`))
  const doomedConfig = await create("/v1/configs", config(`fuzz-doomed-${tag}`))
  const collection = await create("/v1/collections", { name: `Fuzz collection ${tag}`, workspace_id })
  const doomedCollection = await create("/v1/collections", { name: `Fuzz doomed collection ${tag}`, workspace_id })
  const label = await create("/v1/labels", { name: `fuzz-label-${tag}`, workspace_id })
  const doomedLabel = await create("/v1/labels", { name: `fuzz-doomed-${tag}`, workspace_id })
  const trustPolicy = (name: string) => ({ ...TRUST_POLICY, name, workspace_id })
  const policy = await create("/v1/admin/trust-policies", trustPolicy(`fuzz-policy-${tag}`))
  const doomedPolicy = await create("/v1/admin/trust-policies", trustPolicy(`fuzz-doomed-${tag}`))
  const memberEmail = `fuzz-member-${tag}@example.com`
  const password = await server.send("PUT", "/v1/auth/password", { user_id: member.id, password: MEMBER_PASSWORD })
  if (password.status !== 200) throw new Error(`fixture: password answered ${password.status} ${await password.text()}`)
  const signIn = await server.send("POST", "/v1/auth/password", { email: memberEmail, password: MEMBER_PASSWORD })
  if (signIn.status !== 200) throw new Error(`fixture: sign-in answered ${signIn.status} ${await signIn.text()}`)
  const signedIn = SignedIn.parse(await signIn.text())
  const sessionCookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0]
  const memberTotpSecret = await enrolTotp(server, sessionCookie, signedIn.csrf_token)
  const twoStep = operationId === "signIn.secondFactor"
    ? await secondFactorChallenge(server, stayer.id, `fuzz-stayer-${tag}@example.com`)
    : { challenge: "", code: "" }
  const secretReference = (name: string) => ({ ...SECRET_REFERENCE, name })
  const reference = await create("/v1/secret-references", secretReference(`fuzz-secret-${tag}`))
  const doomedReference = await create("/v1/secret-references", secretReference(`fuzz-doomed-secret-${tag}`))
  const identityProvider = (name: string) => ({ ...IDENTITY_PROVIDER, name })
  const sso = await create("/v1/admin/identity-providers", identityProvider(`Fuzz SSO ${tag}`))
  const doomedSso = await create("/v1/admin/identity-providers", identityProvider(`Fuzz doomed SSO ${tag}`))
  const scimToken = await create("/v1/admin/scim-tokens", { name: `fuzz-idp-${tag}` })
  const doomedScimToken = await create("/v1/admin/scim-tokens", { name: `fuzz-doomed-idp-${tag}` })
  const invitation = (who: string) => ({ email: `${who}-${tag}@fuzz.test`, role: "member", workspaces: [] })
  const invite = await create("/v1/admin/users/invites", invitation("invited"))
  const doomedInvite = await create("/v1/admin/users/invites", invitation("doomed"))
  const linkToken = (created: { readonly invite_link?: unknown }) => new URL(String(created.invite_link)).hash.slice(1)
  const shownInvite = await create("/v1/admin/users/invites", invitation("shown"))
  const acceptedInvite = await create("/v1/admin/users/invites", invitation("accepted"))
  const aiIntegration = await create("/v1/integrations", { ...AI_INTEGRATION, name: `Fuzz AI ${tag}` })
  const doomedAiIntegration = await create("/v1/integrations", { ...AI_INTEGRATION, name: `Fuzz doomed AI ${tag}` })
  for (
    const [path, body] of [
      [`/v1/integrations/${aiIntegration.slug}/workspaces`, { workspaces: [{ id: workspace_id, enabled: true }] }],
      [`/v1/integrations/${aiIntegration.slug}/models`, {
        models: [{ slug: "fuzz-custom", enabled: true, is_custom: true }]
      }]
    ] as const
  ) {
    const response = await server.send("PUT", path, body)
    if (response.status !== 200) {
      throw new Error(`fixture: PUT ${path} answered ${response.status} ${await response.text()}`)
    }
  }
  const provider = (name: string) => ({ name, integration_id: aiIntegration.slug, workspace_id })
  const aiProvider = await create("/v1/providers", provider(`Fuzz provider ${tag}`))
  const doomedProvider = await create("/v1/providers", provider(`Fuzz doomed provider ${tag}`))
  return {
    memberTotpSecret,
    secondFactorChallenge: twoStep.challenge,
    secondFactorCode: twoStep.code,
    memberEmail,
    sessionId: signedIn.session.id,
    sessionCookie,
    sessionCsrfToken: signedIn.csrf_token,
    baseUrl: server.baseUrl,
    adminKey: server.adminKey,
    workspaceKey: apiKey.key,
    virtualKeySlug: mainKey.slug,
    configSlug: directConfig.slug,
    organisationId: server.organisationId,
    workspaceId: workspace_id,
    otherWorkspaceId: otherWorkspace.id,
    memberId: member.id,
    leaverId: leaver.id,
    stayerId: stayer.id,
    leavingId: leaving.id,
    doomedUserId: doomedUser.id,
    doomedWorkspaceId: doomedWorkspace.id,
    apiKeyId: apiKey.id,
    doomedApiKeyId: doomedApiKey.id,
    partialId: partial.id,
    partialSlug: partial.slug,
    doomedPartialId: doomedPartial.id,
    promptVersionId: prompt.version_id,
    labelId: label.id,
    doomedLabelId: doomedLabel.id,
    promptId: prompt.id,
    doomedPromptId: doomedPrompt.id,
    integrationId: mcp.id,
    doomedIntegrationId: doomedMcp.id,
    mcpServerId: mcpServer.id,
    doomedMcpServerId: doomedMcpServer.id,
    liveIntegrationId: live.id,
    liveServerId: liveServer.id,
    liveServerName: `io.gateway-control.${workspace_id}/${liveServer.slug}`,
    virtualKeyId: mainKey.id,
    doomedVirtualKeyId: doomedKey.id,
    configId: directConfig.id,
    doomedConfigId: doomedConfig.id,
    trustPolicyId: policy.id,
    doomedTrustPolicyId: doomedPolicy.id,
    secretReferenceId: reference.id,
    doomedSecretReferenceId: doomedReference.id,
    identityProviderId: sso.id,
    doomedIdentityProviderId: doomedSso.id,
    scimTokenId: scimToken.id,
    doomedScimTokenId: doomedScimToken.id,
    inviteId: invite.id,
    doomedInviteId: doomedInvite.id,
    shownInviteToken: linkToken(shownInvite),
    acceptedInviteToken: linkToken(acceptedInvite),
    collectionId: collection.id,
    doomedCollectionId: doomedCollection.id,
    aiIntegrationSlug: aiIntegration.slug,
    doomedAiIntegrationSlug: doomedAiIntegration.slug,
    providerSlug: aiProvider.slug,
    doomedProviderId: doomedProvider.id
  }
}

const PAGE = { page_size: "10", current_page: "0" }

/** The valid example of each endpoint, by OpenAPI operationId. A new endpoint needs a row here. */
export const examples: Readonly<Record<string, (f: Fixture) => Example>> = {
  healthz: () => ({}),
  readyz: () => ({}),
  "workspaces.create": () => ({ body: { name: "Fuzz example workspace", description: "made by the fuzz test" } }),
  "workspaces.list": () => ({ query: PAGE }),
  "workspaces.get": (f) => ({ params: { workspaceId: f.workspaceId } }),
  "apiKeys.create": (f) => ({
    params: { type: "workspace", subType: "service" },
    body: { name: "fuzz example key", scopes: ["prompts.read"], workspace_id: f.workspaceId, description: "d" }
  }),
  "apiKeys.list": (f) => ({
    query: {
      workspace_id: f.workspaceId,
      status: "active",
      type: "workspace-service",
      name: "fuzz",
      last_used_before: "2100-01-01T00:00:00Z",
      ...PAGE
    }
  }),
  "apiKeys.get": (f) => ({ params: { id: f.apiKeyId } }),
  "apiKeys.update": (f) => ({
    params: { id: f.apiKeyId },
    body: {
      name: "fuzz renamed key",
      description: null,
      scopes: ["prompts.render"],
      expires_at: "2099-01-01T00:00:00Z",
      rate_limits: [{ type: "requests", unit: "rpm", value: 1000 }]
    }
  }),
  "apiKeys.rotate": (f) => ({ params: { id: f.apiKeyId }, body: { transition_period_ms: 60_000 } }),
  "apiKeys.revoke": (f) => ({ params: { id: f.doomedApiKeyId } }),
  "users.create": () => ({ body: { email: "fuzz-example@example.com", name: "Example", role: "member" } }),
  "users.list": () => ({ query: PAGE }),
  "users.addMember": (f) => ({
    params: { workspaceId: f.otherWorkspaceId },
    body: { user_id: f.memberId, role: "member" }
  }),
  "users.listMembers": (f) => ({ params: { workspaceId: f.workspaceId }, query: PAGE }),
  "users.removeMember": (f) => ({ params: { workspaceId: f.workspaceId, userId: f.leaverId } }),
  "workspaces.adminCreate": () => ({ body: { name: "Fuzz admin workspace", description: "made by the fuzz test" } }),
  "workspaces.adminList": () => ({ query: PAGE }),
  "workspaces.adminGet": (f) => ({ params: { workspaceId: f.workspaceId } }),
  "workspaces.update": (f) => ({
    params: { workspaceId: f.otherWorkspaceId },
    body: { name: "Fuzz renamed team", description: null }
  }),
  "workspaces.delete": (f) => ({ params: { workspaceId: f.doomedWorkspaceId }, query: { force: "false" } }),
  "users.adminList": () => ({ query: { pageSize: "10", currentPage: "0" } }),
  "users.get": (f) => ({ params: { userId: f.memberId } }),
  "users.update": (f) => ({ params: { userId: f.stayerId }, body: { role: "admin" } }),
  "users.delete": (f) => ({ params: { userId: f.doomedUserId } }),
  "users.addMembers": (f) => ({
    params: { workspaceId: f.otherWorkspaceId },
    body: { users: [{ id: f.memberId, role: "admin" }] }
  }),
  "users.listWorkspaceUsers": (f) => ({ params: { workspaceId: f.workspaceId }, query: PAGE }),
  "users.getMember": (f) => ({ params: { workspaceId: f.workspaceId, userId: f.stayerId } }),
  "users.updateMember": (f) => ({
    params: { workspaceId: f.workspaceId, userId: f.stayerId },
    body: { role: "manager" }
  }),
  "users.removeWorkspaceUser": (f) => ({ params: { workspaceId: f.workspaceId, userId: f.leavingId } }),
  "scopes.list": () => ({}),
  "auditLogs.list": (f) => ({
    query: {
      start_time: "2000-01-01T00:00:00Z",
      end_time: "2100-01-01T00:00:00Z",
      workspace_id: f.workspaceId,
      action: "create",
      resource_type: "prompt",
      response_status_code: "201",
      ...PAGE
    }
  }),
  "prompts.createPartial": (f) => ({
    body: { name: "Fuzz example partial", string: "Say {{what}}.", workspace_id: f.workspaceId }
  }),
  "prompts.listPartials": (f) => ({ query: { workspace_id: f.workspaceId, ...PAGE } }),
  "prompts.updatePartial": (f) => ({
    params: { partialId: f.partialId },
    body: { string: "Be very {{tone}}.", version_description: "fuzz" }
  }),
  "prompts.getPartial": (f) => ({ params: { partialId: f.partialId }, query: { workspace_id: f.workspaceId } }),
  "prompts.publishPartial": (f) => ({ params: { partialId: f.partialId }, body: { version: 1 } }),
  "prompts.listPartialVersions": (f) => ({
    params: { partialId: f.partialSlug },
    query: { workspace_id: f.workspaceId }
  }),
  "prompts.deletePartial": (f) => ({ params: { partialId: f.doomedPartialId } }),
  "prompts.create": (f) => ({
    body: {
      name: "Fuzz example prompt",
      workspace_id: f.workspaceId,
      string: JSON.stringify([{ role: "user", content: "{{#items}}{{name}} {{/items}}{{> " + f.partialSlug + "}}" }]),
      parameters: { temperature: 0.5, max_tokens: 64 },
      model: "gpt-4o-mini",
      type: "chat",
      version_description: "first",
      template_metadata: { owner: "fuzz", tags: ["a", "b"] }
    }
  }),
  "prompts.list": (f) => ({ query: { workspace_id: f.workspaceId, ...PAGE } }),
  "prompts.update": (f) => ({
    params: { promptId: f.promptId },
    body: { string: "Hello {{q}}", parameters: { temperature: 1 }, template_metadata: { v: 2 } }
  }),
  "prompts.get": (f) => ({ params: { promptId: f.promptId } }),
  "prompts.listVersions": (f) => ({ params: { promptId: f.promptId } }),
  "prompts.getVersion": (f) => ({ params: { promptId: f.promptId, versionId: f.promptVersionId } }),
  "prompts.setVersionLabel": (f) => ({
    params: { promptId: f.promptId, versionId: "1" },
    body: { label_id: f.labelId }
  }),
  "labels.create": (f) => ({
    body: {
      name: "fuzz-example",
      description: "made by the fuzz test",
      color_code: "#12ab34",
      workspace_id: f.workspaceId
    }
  }),
  "labels.list": (f) => ({ query: { workspace_id: f.workspaceId, ...PAGE } }),
  "labels.get": (f) => ({ params: { id: f.labelId } }),
  "labels.update": (f) => ({ params: { id: f.labelId }, body: { description: "updated", color_code: null } }),
  "labels.delete": (f) => ({ params: { id: f.doomedLabelId } }),
  "trustPolicies.create": (f) => ({ body: { ...TRUST_POLICY, name: "fuzz-example", workspace_id: f.workspaceId } }),
  "trustPolicies.list": () => ({ query: PAGE }),
  "trustPolicies.get": (f) => ({ params: { id: f.trustPolicyId } }),
  "trustPolicies.update": (f) => ({
    params: { id: f.trustPolicyId },
    body: { ...TRUST_POLICY, name: "fuzz-updated", workspace_id: f.workspaceId, max_ttl_seconds: 60 }
  }),
  "trustPolicies.delete": (f) => ({ params: { id: f.doomedTrustPolicyId } }),
  "signIn.password": (f) => ({ body: { email: f.memberEmail, password: MEMBER_PASSWORD } }),
  "sessions.me": () => ({}),
  "sessions.list": () => ({}),
  "sessions.revoke": (f) => ({ params: { id: f.sessionId } }),
  "sessions.signOutEverywhere": () => ({}),
  // Made with the member's session (no key): its cookie, CSRF token and the gateway's own origin.
  "sessions.signOut": (f) => ({
    key: "",
    headers: { cookie: f.sessionCookie, "x-csrf-token": f.sessionCsrfToken, origin: f.baseUrl }
  }),
  "sessions.setPassword": (f) => ({ body: { user_id: f.memberId, password: "another fuzz password" } }),
  "signIn.secondFactor": (f) => ({ body: { challenge: f.secondFactorChallenge, code: f.secondFactorCode } }),
  "signInSettings.get": () => ({}),
  "signInSettings.update": () => ({ body: { require_second_factor: false } }),
  // The admin key stands for the organisation's owner: their second factor.
  "secondFactor.get": () => ({}),
  // Made with the member's session (no key): enrolling is a person's, signed in.
  "secondFactor.enrol": (f) => ({
    key: "",
    headers: { cookie: f.sessionCookie, "x-csrf-token": f.sessionCsrfToken, origin: f.baseUrl }
  }),
  "secondFactor.confirm": (f) => ({
    key: "",
    headers: { cookie: f.sessionCookie, "x-csrf-token": f.sessionCsrfToken, origin: f.baseUrl },
    body: { code: totpOf(f.memberTotpSecret).generate() }
  }),
  // The member's factor is pending: removing it needs no current code (any six digits).
  "secondFactor.disable": (f) => ({
    key: "",
    headers: { cookie: f.sessionCookie, "x-csrf-token": f.sessionCsrfToken, origin: f.baseUrl },
    body: { code: "000000" }
  }),
  "secretReferences.create": (f) => ({
    body: {
      ...SECRET_REFERENCE,
      name: "fuzz-example",
      description: "d",
      secret_key: "api_key",
      allowed_workspaces: [f.workspaceId],
      tags: { team: "fuzz" }
    }
  }),
  "secretReferences.list": () => ({ query: { manager_type: "hashicorp_vault", search: "fuzz", ...PAGE } }),
  "secretReferences.get": (f) => ({ params: { id: f.secretReferenceId } }),
  "secretReferences.update": (f) => ({
    params: { id: f.secretReferenceId },
    body: { description: "updated", secret_path: "secret/other", auth_config: { vault_namespace: "team" } }
  }),
  "secretReferences.delete": (f) => ({ params: { id: f.doomedSecretReferenceId } }),
  "integrations.create": () => ({
    body: {
      name: "Fuzz example integration",
      ai_provider_id: "bedrock",
      description: "d",
      configurations: {
        aws_auth_type: "assumedRole",
        aws_region: "us-east-1",
        aws_role_arn: "arn:aws:iam::123456789012:role/fuzz",
        aws_external_id: "fuzz"
      }
    }
  }),
  "integrations.list": (f) => ({ query: { workspace_id: f.workspaceId, type: "all", ...PAGE } }),
  "integrations.get": (f) => ({ params: { slug: f.aiIntegrationSlug } }),
  "integrations.update": (f) => ({
    params: { slug: f.aiIntegrationSlug },
    body: { name: "Fuzz AI renamed", description: "updated", configurations: { openai_organization: "org-fuzz" } }
  }),
  "integrations.delete": (f) => ({ params: { slug: f.doomedAiIntegrationSlug } }),
  "integrations.getWorkspaces": (f) => ({ params: { slug: f.aiIntegrationSlug } }),
  "integrations.updateWorkspaces": (f) => ({
    params: { slug: f.aiIntegrationSlug },
    body: {
      workspaces: [{
        id: f.workspaceId,
        enabled: true,
        usage_limits: [{ credit_limit: 10, periodic_reset: "monthly" }],
        rate_limits: [{ type: "requests", unit: "rpm", value: 60 }]
      }],
      override_existing_workspace_access: false
    }
  }),
  "integrations.getModels": (f) => ({ params: { slug: f.aiIntegrationSlug } }),
  "integrations.updateModels": (f) => ({
    params: { slug: f.aiIntegrationSlug },
    body: { models: [{ slug: "gpt-4o", enabled: true }], allow_all_models: false }
  }),
  "integrations.deleteModels": (f) => ({ params: { slug: f.aiIntegrationSlug }, query: { slugs: "fuzz-custom" } }),
  // The integration's destination is the local provider: its credential is tried there.
  "integrations.test": (f) => ({ params: { slug: f.aiIntegrationSlug } }),
  "providers.create": (f) => ({
    body: {
      name: "Fuzz example provider",
      integration_id: f.aiIntegrationSlug,
      workspace_id: f.workspaceId,
      note: "n",
      usage_limits: { credit_limit: 10, periodic_reset: "monthly", alert_threshold: 9 },
      rate_limits: [{ type: "requests", unit: "rpm", value: 60 }],
      expires_at: "2999-01-01T00:00:00Z"
    }
  }),
  "providers.list": (f) => ({ query: { workspace_id: f.workspaceId, ...PAGE } }),
  "providers.get": (f) => ({ params: { id: f.providerSlug }, query: { workspace_id: f.workspaceId } }),
  "providers.update": (f) => ({
    params: { id: f.providerSlug },
    query: { workspace_id: f.workspaceId },
    body: { name: "Fuzz provider renamed", note: null, expires_at: null }
  }),
  "providers.delete": (f) => ({ params: { id: f.doomedProviderId } }),
  "identityProviders.create": () => ({ body: { ...IDENTITY_PROVIDER, name: "Fuzz example SSO" } }),
  "identityProviders.list": () => ({ query: PAGE }),
  "identityProviders.get": (f) => ({ params: { id: f.identityProviderId } }),
  "identityProviders.update": (f) => ({
    params: { id: f.identityProviderId },
    body: { allowed_domains: ["example.org"], role_map: { staff: { workspaces: { default: "member" } } } }
  }),
  "identityProviders.delete": (f) => ({ params: { id: f.doomedIdentityProviderId } }),
  "scimTokens.create": () => ({ body: { name: "fuzz-example" } }),
  "scimTokens.list": () => ({ query: PAGE }),
  "scimTokens.get": (f) => ({ params: { id: f.scimTokenId } }),
  "scimTokens.revoke": (f) => ({ params: { id: f.doomedScimTokenId } }),
  "invites.create": (f) => ({
    body: { email: "fuzz-example@fuzz.test", role: "admin", workspaces: [{ id: f.workspaceId, role: "admin" }] }
  }),
  "invites.list": () => ({ query: { ...PAGE, status: "pending", role: "member" } }),
  "invites.get": (f) => ({ params: { id: f.inviteId } }),
  "invites.resend": (f) => ({ params: { id: f.inviteId } }),
  "invites.revoke": (f) => ({ params: { id: f.doomedInviteId } }),
  "inviteLinks.preview": (f) => ({ query: { token: f.shownInviteToken } }),
  "inviteLinks.accept": (f) => ({
    body: { token: f.acceptedInviteToken, password: "fuzz invited password", name: "Fuzz Invitee" }
  }),
  "prompts.delete": (f) => ({ params: { promptId: f.doomedPromptId } }),
  "prompts.makeDefault": (f) => ({ params: { promptId: f.promptId }, body: { version: 1 } }),
  "prompts.setLabel": (f) => ({ params: { promptId: f.promptId, label: "canary" }, body: { version: 1 } }),
  "promptRendering.render": (f) => ({
    params: { promptId: f.promptId },
    body: { variables: { tone: "kind", q: "hi" }, temperature: 0.2, max_tokens: 10 }
  }),
  "mcpRegistry.createIntegration": (f) => ({
    body: {
      name: "Fuzz example MCP",
      url: "https://mcp.example.com/mcp",
      auth_type: "headers",
      transport: "http",
      description: "d",
      configurations: { region: "eu", nested: { a: [1, 2] } },
      workspace_ids: [f.workspaceId]
    }
  }),
  "mcpRegistry.listIntegrations": (f) => ({
    query: { organisation_id: f.organisationId, type: "all", status: "active", search: "Fuzz", ...PAGE }
  }),
  "mcpRegistry.getIntegration": (f) => ({ params: { id: f.integrationId } }),
  "mcpRegistry.updateIntegration": (f) => ({
    params: { id: f.integrationId },
    body: { description: "updated by the fuzz test", configurations: { region: "us" } }
  }),
  "mcpRegistry.archiveIntegration": (f) => ({ params: { id: f.doomedIntegrationId } }),
  "mcpRegistry.createServer": (f) => ({
    body: { name: "Fuzz example server", mcp_integration_id: f.integrationId, workspace_id: f.workspaceId }
  }),
  "mcpRegistry.listServers": (f) => ({ query: { workspace_id: f.workspaceId, search: "Fuzz", ...PAGE } }),
  "mcpRegistry.getServer": (f) => ({ params: { mcpServerId: f.mcpServerId }, query: { workspace_id: f.workspaceId } }),
  "mcpRegistry.updateServer": (f) => ({
    params: { mcpServerId: f.mcpServerId },
    body: { name: "Fuzz renamed server", description: "Renamed by the fuzz example." }
  }),
  "mcpRegistry.deleteServer": (f) => ({ params: { mcpServerId: f.doomedMcpServerId } }),
  "mcpRegistry.listServerUserAccess": (f) => ({
    params: { mcpServerId: f.mcpServerId },
    query: { workspace_id: f.workspaceId, search: "a", page: "1", page_size: "10" }
  }),
  "mcpRegistry.updateServerUserAccess": (f) => ({
    params: { mcpServerId: f.mcpServerId },
    body: { user_access: [{ user_id: f.stayerId, enabled: false }], default_user_access: "allow" }
  }),
  "mcpRegistry.checkServerUserAccess": (f) => ({
    params: { mcpServerId: f.mcpServerId },
    query: { workspace_id: f.workspaceId }
  }),
  "mcpRegistry.listServerConnections": (f) => ({
    params: { mcpServerId: f.mcpServerId },
    query: { workspace_id: f.workspaceId, user_id: f.stayerId, ...PAGE }
  }),
  "mcpRegistry.listIntegrationWorkspaces": (f) => ({ params: { id: f.integrationId }, query: { version: "1" } }),
  "mcpRegistry.setIntegrationWorkspaces": (f) => ({
    params: { id: f.integrationId },
    body: { workspaces: [{ id: f.workspaceId, enabled: true }], global_workspace_access: { enabled: true } }
  }),
  "mcpConnectivity.testIntegration": (f) => ({ params: { id: f.liveIntegrationId } }),
  "mcpConnectivity.syncIntegration": (f) => ({ params: { id: f.liveIntegrationId }, body: {} }),
  "mcpConnectivity.integrationMetadata": (f) => ({ params: { id: f.liveIntegrationId } }),
  "mcpConnectivity.listServerCapabilities": (f) => ({
    params: { mcpServerId: f.liveServerId },
    query: { type: "tool", ...PAGE }
  }),
  "mcpConnectivity.testServer": (f) => ({ params: { mcpServerId: f.liveServerId } }),
  "mcpConnectivity.syncCapabilities": (f) => ({ params: { id: f.liveIntegrationId } }),
  "mcpConnectivity.listCapabilities": (f) => ({
    params: { id: f.liveIntegrationId },
    query: { type: "tool", search: "s", ...PAGE }
  }),
  "mcpConnectivity.setCapabilities": (f) => ({
    params: { id: f.liveIntegrationId },
    body: { capabilities: [{ name: "search", type: "tool", enabled: false }] }
  }),
  "mcpDirectory.listServers": (f) => ({
    query: {
      limit: "5",
      search: "Fuzz",
      updated_since: "2020-01-01T00:00:00.000Z",
      include_deleted: "true",
      workspace_id: f.workspaceId
    }
  }),
  "mcpDirectory.latestVersion": (f) => ({
    params: { serverName: f.liveServerName },
    query: { include_deleted: "false" }
  }),
  // The local provider answers every call with a JSON 200, which passes through.
  "promptCompletions.complete": (f) => ({
    key: f.workspaceKey,
    headers: { "x-service-virtual-key": f.virtualKeySlug },
    params: { promptId: f.promptId },
    body: { variables: { tone: "kind", q: "hi" }, temperature: 0.2, max_tokens: 10 }
  }),
  "promptCompletions.completeDraft": (f) => ({
    key: f.workspaceKey,
    headers: { "x-service-virtual-key": f.virtualKeySlug },
    params: { promptId: f.promptId },
    body: { draft: { model: "m2" }, request: { variables: { tone: "kind", q: "hi" } } }
  }),
  "fineTuning.listJobs": (f) => ({
    key: f.workspaceKey,
    headers: { "x-service-virtual-key": f.virtualKeySlug },
    query: { limit: "5" }
  }),
  "fineTuning.createJob": (f) => ({
    key: f.workspaceKey,
    headers: { "x-service-provider": `@${f.virtualKeySlug}` },
    body: {
      model: "gpt-4o-mini-2024-07-18",
      training_file: "file-abc",
      suffix: "fuzz",
      hyperparameters: { n_epochs: 2, batch_size: "auto" },
      method: { type: "supervised", supervised: { hyperparameters: { n_epochs: 2 } } },
      seed: 7,
      metadata: { team: "fuzz" }
    }
  }),
  "fineTuning.retrieveJob": (f) => ({
    key: f.workspaceKey,
    headers: { "x-service-virtual-key": f.virtualKeySlug },
    params: { fine_tuning_job_id: "ftjob-local" }
  }),
  "fineTuning.cancelJob": (f) => ({
    key: f.workspaceKey,
    headers: { "x-service-virtual-key": f.virtualKeySlug },
    params: { fine_tuning_job_id: "ftjob-local" }
  }),
  "fineTuning.listEvents": (f) => ({
    key: f.workspaceKey,
    headers: { "x-service-virtual-key": f.virtualKeySlug },
    params: { fine_tuning_job_id: "ftjob-local" },
    query: { limit: "5", after: "ftevent-0" }
  }),
  "fineTuning.listCheckpoints": (f) => ({
    key: f.workspaceKey,
    headers: { "x-service-virtual-key": f.virtualKeySlug },
    params: { fine_tuning_job_id: "ftjob-local" },
    query: { limit: "5" }
  }),
  "virtualKeys.create": (f) => ({
    body: { name: "Fuzz example key", provider: "openai", key: "sk-example", workspace_id: f.workspaceId }
  }),
  "virtualKeys.list": (f) => ({ query: { workspace_id: f.workspaceId, ...PAGE } }),
  "virtualKeys.get": (f) => ({ params: { id: f.virtualKeyId } }),
  "virtualKeys.update": (f) => ({
    params: { id: f.virtualKeySlug },
    query: { workspace_id: f.workspaceId },
    body: { name: "Fuzz main key", key: "sk-good" }
  }),
  "virtualKeys.delete": (f) => ({ params: { id: f.doomedVirtualKeyId } }),
  "configs.create": (f) => ({
    body: {
      name: "Fuzz example config",
      config: { virtual_key: f.virtualKeySlug, request_timeout: 5_000 },
      workspace_id: f.workspaceId
    }
  }),
  "configs.list": (f) => ({ query: { workspace_id: f.workspaceId, ...PAGE } }),
  "configs.get": (f) => ({ params: { id: f.configId } }),
  "configs.update": (f) => ({
    params: { id: f.configId },
    body: { name: "Fuzz direct config", config: { provider: "openai", api_key: "sk-good" } }
  }),
  "configs.delete": (f) => ({ params: { id: f.doomedConfigId } }),
  "configs.listVersions": (f) => ({ params: { id: f.configId } }),
  "collections.create": (f) => ({ body: { name: "Fuzz example collection", workspace_id: f.workspaceId } }),
  "collections.list": (f) => ({ query: { workspace_id: f.workspaceId, search: "fuzz", ...PAGE } }),
  "collections.get": (f) => ({ params: { collectionId: f.collectionId } }),
  "collections.update": (f) => ({ params: { collectionId: f.collectionId }, body: { name: "Fuzz renamed" } }),
  "collections.delete": (f) => ({ params: { collectionId: f.doomedCollectionId } })
}

/**
 * A provider on 127.0.0.1 that lists no jobs for anyone: every known provider points here, so fuzz traffic
 * never leaves the machine, and a provider's own refusal (passed through by design) never looks like ours.
 */
export const startLocalProvider = async (): Promise<
  { readonly baseUrl: string; readonly close: () => Promise<void> }
> => {
  // A list for listings; one job for the calls on a job (create, retrieve, cancel).
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://local").pathname
    const oneJob = request.method === "POST" || /^\/v1\/fine_tuning\/jobs\/[^/]+$/.test(path)
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify(
      oneJob
        ? { id: "ftjob-local", object: "fine_tuning.job", status: "running", model: "gpt-4o-mini-2024-07-18" }
        : { object: "list", data: [], has_more: false }
    ))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}
