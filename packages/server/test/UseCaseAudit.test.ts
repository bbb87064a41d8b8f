/**
 * Every administrative use case audits itself, whoever calls it: here with no HTTP at all, through
 * `GatewayControl.layer` and through `createGatewayControl().run`. Each call, allowed, denied or failed, leaves
 * exactly one record naming its use case and outcome; the log verifies afterwards. A change whose record
 * cannot be written is rolled back with it.
 */
import {
  ApiKeys,
  Audit,
  Bootstrap,
  Collections,
  Configs,
  CredentialHealthChecks,
  FineTuning,
  IdentityProviders,
  Integrations,
  Invites,
  LocalAccounts,
  McpConnectivity,
  McpRegistry,
  OidcSignIn,
  type Principal,
  Prompts,
  Providers,
  recordedStatusOf,
  RequestContext,
  Scim,
  ScimGroups,
  ScimTokens,
  SecretReferences,
  Sessions,
  successStatusOf,
  TOKEN_EXCHANGE_GRANT,
  TokenExchange,
  TrustPolicies,
  USE_CASES,
  type UseCaseName,
  Users,
  VirtualKeys,
  Workspaces
} from "@gateway-control/domain"
import { Effect, Exit, ManagedRuntime, Redacted } from "effect"
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as OTPAuth from "otpauth"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { layerDomain } from "../src/App.ts"
import { createGatewayControl, GatewayControl, type GatewayControlEngine } from "../src/index.ts"
import { memoryWithAuditSwitch } from "./support/AuditStores.ts"
import { startFakeProvider } from "./support/FakeProvider.ts"
import { startSdkMcpServer } from "./support/SdkMcpServer.ts"

type Services = GatewayControl.Services

/** Runs a program against an engine's domain services and answers how it ended. */
type Runner = <A, E>(program: Effect.Effect<A, E, Services>) => Promise<Exit.Exit<A, unknown>>

/** What the scenarios share: the admin (the bootstrap key), a key allowed almost nothing, and fixtures. */
interface World {
  readonly admin: Principal
  readonly weak: Principal
  readonly workspaceId: string
  readonly mcpUrl: string
  /** A fake OpenAI-compatible provider on 127.0.0.1 (a trusted custom host here). */
  readonly providerUrl: string
}

/** One call of a use case, and whether it should succeed. */
interface Call {
  readonly outcome: "allowed" | "denied" | "failed"
  readonly program: (world: World) => Effect.Effect<unknown, unknown, Services>
}

/** Render and completions are not administrative use cases: only refusals of them are recorded, over HTTP. */
type Administrative = Exclude<
  UseCaseName,
  "promptRendering.render" | "promptCompletions.complete" | "promptCompletions.completeDraft"
>

let counter = 0
const unique = (prefix: string) => `${prefix}-${++counter}`

const prompt = (world: World) =>
  Prompts.use((prompts) =>
    prompts.create(world.admin, {
      workspace_id: world.workspaceId,
      name: unique("Prompt"),
      string: "Hi {{who}}",
      model: "gpt-4o-mini"
    })
  )
const partial = (world: World) =>
  Prompts.use((prompts) =>
    prompts.createPartial(world.admin, { workspace_id: world.workspaceId, name: unique("Partial"), string: "x" })
  )
const label = (world: World) =>
  Prompts.use((prompts) => prompts.createLabel(world.admin, { workspace_id: world.workspaceId, name: unique("label") }))
const collection = (world: World) =>
  Collections.use((collections) =>
    collections.create(world.admin, { workspace_id: world.workspaceId, name: unique("Collection") })
  )
const integration = (world: World) =>
  McpRegistry.use((registry) =>
    registry.createIntegration(world.admin, {
      name: unique("Integration"),
      url: world.mcpUrl,
      transport: "http",
      auth_type: "none",
      workspace_id: world.workspaceId
    })
  )
const server = (world: World) =>
  Effect.flatMap(integration(world), (made) =>
    McpRegistry.use((registry) =>
      registry.createServer(world.admin, {
        name: unique("Server"),
        mcp_integration_id: made.id,
        workspace_id: world.workspaceId
      })
    ))
const virtualKey = (world: World) =>
  VirtualKeys.use((keys) =>
    keys.createVirtualKey(world.admin, {
      name: unique("Vk"),
      provider: "openai",
      key: "sk-test-1234567890",
      workspace_id: world.workspaceId
    })
  )
/** An organisation-level OpenAI integration. */
const aiIntegration = (world: World) =>
  Integrations.use((integrations) =>
    integrations.create(world.admin, { name: unique("Ai"), ai_provider_id: "openai", key: "sk-test-1234567890" })
  )
/** An integration of `world`, then `change` of it by `who` (the admin, or the key allowed almost nothing). */
const onAiIntegration = <A, E>(
  who: "admin" | "weak",
  change: (integrations: Integrations["Service"], principal: Principal, id: string) => Effect.Effect<A, E>
) =>
(world: World) =>
  Effect.flatMap(
    aiIntegration(world),
    (made) => Integrations.use((integrations) => change(integrations, world[who], made.id))
  )
/** A provider of the workspace on an organisation-level integration shared with it. */
const provider = (world: World) =>
  Effect.flatMap(aiIntegration(world), (made) =>
    Effect.flatMap(
      Integrations.use((i) => i.updateWorkspaces(world.admin, made.id, { global_workspace_access: { enabled: true } })),
      () =>
        Providers.use((p) =>
          p.create(world.admin, { name: unique("P"), integration_id: made.id, workspace_id: world.workspaceId })
        )
    ))
/** An issuer of workload tokens whose public key policies hold as a static JWK set. */
const issuer = generateKeyPair("ES256").then(async ({ privateKey, publicKey }) => ({
  privateKey,
  jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: "one", alg: "ES256" }] }
}))
const ISSUER = "https://issuer.audit.test"

const invite = (world: World) =>
  Invites.use((invites) =>
    invites.create(world.admin, {
      email: `${unique("invited")}@audit.test`,
      role: "member",
      workspaces: [{ id: world.workspaceId, role: "member" }]
    })
  )

const trustPolicy = (world: World) =>
  Effect.flatMap(Effect.promise(() => issuer), ({ jwks }) =>
    TrustPolicies.use((t) =>
      t.create(world.admin, {
        name: unique("Policy"),
        issuer: ISSUER,
        jwks,
        audience: "gateway",
        subject: "workload",
        workspace_id: world.workspaceId,
        scopes: ["prompts.render"],
        max_ttl_seconds: 60
      })
    ))

const identityProvider = (world: World) =>
  IdentityProviders.use((p) =>
    p.create(world.admin, {
      name: unique("SSO"),
      issuer: "https://sso.example.com",
      client_id: "gateway",
      client_secret: "a-client-secret"
    })
  )

/** A workspace key allowed provider calls, and the selection of the fake provider with the call's own key. */
const fineTuningCaller = (world: World) =>
  Effect.map(
    ApiKeys.use((k) =>
      Effect.flatMap(
        k.create(world.admin, {
          type: "workspace-service",
          name: unique("Fine-tuning"),
          scopes: ["completions.write"],
          workspace_id: world.workspaceId
        }),
        (made) => k.authenticate(made.plaintext)
      )
    ),
    (caller) => ({
      caller,
      selection: { provider: "openai", api_key: Redacted.make("sk-good"), custom_host: world.providerUrl }
    })
  )

const JOB = { model: "gpt-4o-mini-2024-07-18", training_file: "file-abc" }

const exchange = (world: World) =>
  Effect.flatMap(trustPolicy(world), () =>
    Effect.flatMap(
      Effect.promise(() =>
        issuer.then(({ privateKey }) =>
          new SignJWT({}).setProtectedHeader({ alg: "ES256", kid: "one" }).setIssuer(ISSUER).setAudience("gateway")
            .setSubject("workload").setExpirationTime("5m").sign(privateKey)
        )
      ),
      (token) =>
        TokenExchange.use((t) =>
          t.exchange({
            grant_type: TOKEN_EXCHANGE_GRANT,
            subject_token: token,
            subject_token_type: "urn:ietf:params:oauth:token-type:jwt"
          })
        )
    ))

const config = (world: World) =>
  Configs.use((configs) =>
    configs.createConfig(world.admin, {
      name: unique("Config"),
      config: { request_timeout: 5000 },
      workspace_id: world.workspaceId
    })
  )
const apiKey = (world: World) =>
  ApiKeys.use((keys) =>
    keys.create(world.admin, {
      type: "workspace-service",
      name: unique("Key"),
      scopes: ["prompts.render"],
      workspace_id: world.workspaceId
    })
  )
const user = (world: World) =>
  Users.use((users) => users.create(world.admin, { email: `${unique("u")}@audit.test`, role: "member" }))

const MISSING = "00000000-0000-4000-8000-000000000000"

/** The admin key's person signed in: a session, and the principal it acts as. */
const signedIn = (world: World) =>
  Sessions.use((sessions) =>
    Effect.flatMap(
      sessions.signIn({ user_id: world.admin.userId ?? MISSING, method: "password" }, { userAgent: null }),
      ({ token }) => Effect.map(sessions.authenticate(token, undefined), ({ principal }) => principal)
    )
  )

/** A new member of the organisation signed in: the principal their session acts as. */
const memberSignedIn = (world: World) =>
  Effect.flatMap(user(world), (member) =>
    Sessions.use((sessions) =>
      Effect.flatMap(
        sessions.signIn({ user_id: member.id, method: "password" }, { userAgent: null }),
        ({ token }) => Effect.map(sessions.authenticate(token, undefined), ({ principal }) => principal)
      )
    ))

/** A member signed in with a TOTP factor enrolled (pending), and the code their authenticator shows now. */
const enrolled = (world: World) =>
  Effect.flatMap(
    memberSignedIn(world),
    (principal) =>
      LocalAccounts.use((accounts) =>
        Effect.map(accounts.enrolTotp(principal), (enrolment) => ({
          principal,
          code: OTPAuth.URI.parse(enrolment.otpauth_uri).generate()
        }))
      )
  )

/** The principal of a new SCIM token of the organisation. */
const scimCaller = (world: World) =>
  ScimTokens.use((t) =>
    Effect.flatMap(t.create(world.admin, { name: unique("idp") }), (issued) => t.authenticate(issued.plaintext))
  )

/** A user provisioned over SCIM, and the SCIM token's principal that did it. */
const scimUser = (world: World) =>
  Effect.flatMap(scimCaller(world), (caller) =>
    Scim.use((s) =>
      Effect.map(
        s.createUser(caller, { userName: `${unique("scim")}@audit.test`, name: { formatted: "Ada Lovelace" } }),
        (created) => ({ caller, id: String(created.id) })
      )
    ))

/** A group made over SCIM with one member, and the SCIM token's principal that made it. */
const scimGroup = (world: World) =>
  Effect.flatMap(scimUser(world), ({ caller, id: userId }) =>
    ScimGroups.use((g) =>
      Effect.map(
        g.createGroup(caller, { displayName: unique("Group"), members: [{ value: userId }] }),
        (created) => ({ caller, id: String(created.id), userId })
      )
    ))

const REMOVE_MEMBERS = {
  schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  Operations: [{ op: "remove", path: "members" }]
}

const DEACTIVATE = {
  schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  Operations: [{ op: "replace", value: { active: false } }]
}

/** The operator's secrets file: one entry the `file` references below name, allowed to the local MCP server. */
const SECRETS_FILE = join(mkdtempSync(join(tmpdir(), "audit-secrets-")), "secrets.json")
writeFileSync(SECRETS_FILE, JSON.stringify({ "mcp-token": { value: "tok-audit-1", hosts: ["127.0.0.1"] } }))

const secretReference = (world: World, secretPath = "mcp-token") =>
  SecretReferences.use((r) =>
    r.create(world.admin, { name: unique("Secret"), manager_type: "file", secret_path: secretPath })
  )

/** A server whose integration sends a secret reference's value in a header; tested, so the value is used. */
const testWithReference = (world: World, secretPath: string) =>
  Effect.flatMap(secretReference(world, secretPath), (reference) =>
    Effect.flatMap(
      McpRegistry.use((registry) =>
        registry.createIntegration(world.admin, {
          name: unique("Integration"),
          url: world.mcpUrl,
          transport: "http",
          auth_type: "none",
          workspace_id: world.workspaceId,
          secret_mappings: [{
            target_field: "headers.X-Token",
            secret_reference_id: reference.slug,
            secret_key: "",
            value_format: "string"
          }]
        })
      ),
      (made) =>
        Effect.flatMap(
          McpRegistry.use((registry) =>
            registry.createServer(world.admin, {
              name: unique("Server"),
              mcp_integration_id: made.id,
              workspace_id: world.workspaceId
            })
          ),
          (created) => McpConnectivity.use((c) => c.testServer(world.admin, created.id))
        )
    ))

type Program = Effect.Effect<unknown, unknown, Services>

/** Allowed for the admin and denied for the weak key: the same call but for who makes it. */
const byEach = (act: (who: Principal, world: World) => Program): ReadonlyArray<Call> => [
  { outcome: "allowed", program: (w) => act(w.admin, w) },
  { outcome: "denied", program: (w) => act(w.weak, w) }
]

/**
 * The usual three calls on one resource: by the admin and by the weak key on a `fixture` made for the call, and by
 * the admin on a resource that is not there.
 */
const onFixture = <F>(
  fixture: (world: World) => Effect.Effect<F, unknown, Services>,
  idOf: (made: F) => string,
  act: (who: Principal, id: string, world: World) => Program
): ReadonlyArray<Call> => [
  ...byEach((who, w) => Effect.flatMap(fixture(w), (made) => act(who, idOf(made), w))),
  { outcome: "failed", program: (w) => act(w.admin, MISSING, w) }
]

const byId = (made: { readonly id: string }) => made.id

/** Each use case called allowed, denied (by the weak key) and failed (bad input, or a resource that is not there). */
const SCENARIOS: Record<Administrative, ReadonlyArray<Call>> = {
  "bootstrap.run": [
    // The store has its organisation already: a second bootstrap is refused, and recorded.
    {
      outcome: "failed",
      program: () => Bootstrap.use((b) => b.run({ organisationName: "Again", ownerEmail: "again@audit.test" }))
    }
  ],
  "workspaces.create": [
    ...byEach((who) => Workspaces.use((s) => s.create(who, { name: unique("Ws") }))),
    { outcome: "failed", program: (w) => Workspaces.use((s) => s.create(w.admin, { name: "" })) }
  ],
  "apiKeys.create": [
    { outcome: "allowed", program: apiKey },
    {
      outcome: "denied",
      program: (w) =>
        ApiKeys.use((k) => k.create(w.weak, { type: "organisation-service", name: "Nope", scopes: ["prompts.read"] }))
    },
    {
      outcome: "failed",
      program: (w) => ApiKeys.use((k) => k.create(w.admin, { type: "no/such", name: "Odd", scopes: [] }))
    }
  ],
  "apiKeys.update": onFixture(
    apiKey,
    ({ key }) => key.id,
    (who, id) => ApiKeys.use((k) => k.update(who, id, { name: "Renamed" }))
  ),
  "apiKeys.revoke": onFixture(
    apiKey,
    ({ key }) => key.id,
    (who, id) => ApiKeys.use((k) => k.revoke(who, id))
  ),
  "apiKeys.rotate": onFixture(
    apiKey,
    ({ key }) => key.id,
    (who, id) => ApiKeys.use((k) => k.rotate(who, id, {}))
  ),
  "users.create": [
    { outcome: "allowed", program: user },
    {
      outcome: "denied",
      program: (w) => Users.use((u) => u.create(w.weak, { email: `${unique("u")}@audit.test`, role: "member" }))
    },
    {
      outcome: "failed",
      program: (w) => Users.use((u) => u.create(w.admin, { email: "not an email", role: "member" }))
    }
  ],
  "users.addMember": onFixture(
    user,
    byId,
    (who, id, w) => Users.use((u) => u.addMember(who, w.workspaceId, { user_id: id, role: "member" }))
  ),
  "users.removeMember": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(user(w), (u) =>
          Users.use((users) =>
            Effect.andThen(
              users.addMember(w.admin, w.workspaceId, { user_id: u.id, role: "member" }),
              users.removeMember(w.admin, w.workspaceId, u.id)
            )
          ))
    },
    { outcome: "denied", program: (w) => Users.use((users) => users.removeMember(w.weak, w.workspaceId, MISSING)) },
    { outcome: "failed", program: (w) => Users.use((users) => users.removeMember(w.admin, w.workspaceId, MISSING)) }
  ],
  "users.addMembers": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(
          Effect.all([user(w), user(w)]),
          ([a, b]) =>
            Users.use((users) =>
              users.addMembers(w.admin, w.workspaceId, {
                users: [{ id: a.id, role: "member" }, { id: b.id, role: "admin" }]
              })
            )
        )
    },
    {
      outcome: "denied",
      program: (w) =>
        Effect.flatMap(
          user(w),
          (u) =>
            Users.use((users) => users.addMembers(w.weak, w.workspaceId, { users: [{ id: u.id, role: "member" }] }))
        )
    },
    {
      outcome: "failed",
      program: (w) =>
        Users.use((users) => users.addMembers(w.admin, w.workspaceId, { users: [{ id: MISSING, role: "member" }] }))
    }
  ],
  "users.updateMember": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(user(w), (u) =>
          Users.use((users) =>
            Effect.andThen(
              users.addMember(w.admin, w.workspaceId, { user_id: u.id, role: "member" }),
              users.updateMember(w.admin, w.workspaceId, u.id, { role: "manager" })
            )
          ))
    },
    {
      outcome: "denied",
      program: (w) => Users.use((users) => users.updateMember(w.weak, w.workspaceId, MISSING, { role: "member" }))
    },
    {
      outcome: "failed",
      program: (w) => Users.use((users) => users.updateMember(w.admin, w.workspaceId, MISSING, { role: "member" }))
    }
  ],
  "users.update": onFixture(
    user,
    byId,
    (who, id) => Users.use((u) => u.update(who, id, { role: "admin" }))
  ),
  "users.delete": onFixture(
    user,
    byId,
    (who, id) => Users.use((u) => u.remove(who, id))
  ),
  "workspaces.update": [
    {
      outcome: "allowed",
      program: (w) => Workspaces.use((s) => s.update(w.admin, w.workspaceId, { description: unique("described") }))
    },
    { outcome: "denied", program: (w) => Workspaces.use((s) => s.update(w.weak, w.workspaceId, { name: "Nope" })) },
    { outcome: "failed", program: (w) => Workspaces.use((s) => s.update(w.admin, w.workspaceId, { name: "" })) }
  ],
  "workspaces.delete": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(
          Workspaces.use((s) => s.create(w.admin, { name: unique("Ws") })),
          (made) => Workspaces.use((s) => s.remove(w.admin, made.id, { force: false }))
        )
    },
    { outcome: "denied", program: (w) => Workspaces.use((s) => s.remove(w.weak, w.workspaceId, { force: false })) },
    // The scenarios' workspace holds keys and prompts: refused without force.
    { outcome: "failed", program: (w) => Workspaces.use((s) => s.remove(w.admin, w.workspaceId, { force: false })) }
  ],
  "prompts.create": [
    { outcome: "allowed", program: prompt },
    {
      outcome: "denied",
      program: (w) =>
        Prompts.use((p) => p.create(w.weak, { workspace_id: w.workspaceId, name: unique("P"), string: "x" }))
    },
    {
      outcome: "failed",
      program: (w) => Prompts.use((p) => p.create(w.admin, { workspace_id: w.workspaceId, name: "", string: "x" }))
    }
  ],
  "prompts.update": onFixture(
    prompt,
    (v) => v.prompt_id,
    (who, id) => Prompts.use((p) => p.update(who, id, { string: "Yo" }))
  ),
  "prompts.makeDefault": [
    ...byEach((who, w) => Effect.flatMap(prompt(w), (v) => Prompts.use((p) => p.publish(who, v.prompt_id, 1)))),
    {
      outcome: "failed",
      program: (w) => Effect.flatMap(prompt(w), (v) => Prompts.use((p) => p.publish(w.admin, v.prompt_id, 99)))
    }
  ],
  "prompts.setLabel": [
    ...byEach((who, w) =>
      Effect.flatMap(prompt(w), (v) => Prompts.use((p) => p.setLabel(who, v.prompt_id, "production", 1)))
    ),
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(prompt(w), (v) => Prompts.use((p) => p.setLabel(w.admin, v.prompt_id, "production", 99)))
    }
  ],
  "prompts.setVersionLabel": [
    ...byEach((who, w) =>
      Effect.flatMap(
        Effect.all([prompt(w), label(w)]),
        ([v, l]) => Prompts.use((p) => p.setVersionLabel(who, v.prompt_id, v.id, l.id))
      )
    ),
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(prompt(w), (v) => Prompts.use((p) => p.setVersionLabel(w.admin, v.prompt_id, v.id, MISSING)))
    }
  ],
  "prompts.delete": onFixture(
    prompt,
    (v) => v.prompt_id,
    (who, id) => Prompts.use((p) => p.remove(who, id))
  ),
  "prompts.createPartial": [
    { outcome: "allowed", program: partial },
    {
      outcome: "denied",
      program: (w) =>
        Prompts.use((p) => p.createPartial(w.weak, { workspace_id: w.workspaceId, name: unique("Pa"), string: "x" }))
    },
    {
      outcome: "failed",
      program: (w) =>
        Prompts.use((p) => p.createPartial(w.admin, { workspace_id: w.workspaceId, name: "", string: "x" }))
    }
  ],
  "prompts.updatePartial": onFixture(
    partial,
    (made) => made.partial.id,
    (who, id) => Prompts.use((p) => p.updatePartial(who, id, { string: "y" }))
  ),
  "prompts.publishPartial": [
    ...byEach((who, w) =>
      Effect.flatMap(partial(w), ({ partial: made }) => Prompts.use((p) => p.publishPartial(who, made.id, 1)))
    ),
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(partial(w), ({ partial: made }) => Prompts.use((p) => p.publishPartial(w.admin, made.id, 99)))
    }
  ],
  "prompts.deletePartial": onFixture(
    partial,
    (made) => made.partial.id,
    (who, id) => Prompts.use((p) => p.deletePartial(who, id))
  ),
  "labels.create": [
    { outcome: "allowed", program: label },
    {
      outcome: "denied",
      program: (w) => Prompts.use((p) => p.createLabel(w.weak, { workspace_id: w.workspaceId, name: unique("l") }))
    },
    {
      outcome: "failed",
      program: (w) => Prompts.use((p) => p.createLabel(w.admin, { workspace_id: w.workspaceId, name: "" }))
    }
  ],
  "labels.update": onFixture(
    label,
    byId,
    (who, id) => Prompts.use((p) => p.updateLabel(who, id, { name: unique("l") }))
  ),
  "labels.delete": onFixture(
    label,
    byId,
    (who, id) => Prompts.use((p) => p.deleteLabel(who, id))
  ),
  "collections.create": [
    { outcome: "allowed", program: collection },
    {
      outcome: "denied",
      program: (w) => Collections.use((c) => c.create(w.weak, { workspace_id: w.workspaceId, name: unique("C") }))
    },
    {
      outcome: "failed",
      program: (w) => Collections.use((c) => c.create(w.admin, { workspace_id: MISSING, name: "C" }))
    }
  ],
  "collections.update": onFixture(
    collection,
    byId,
    (who, id) => Collections.use((c) => c.update(who, id, { name: "N" }))
  ),
  "collections.delete": onFixture(
    collection,
    byId,
    (who, id) => Collections.use((c) => c.remove(who, id))
  ),
  "mcpRegistry.createIntegration": [
    { outcome: "allowed", program: integration },
    {
      outcome: "denied",
      program: (w) =>
        McpRegistry.use((r) =>
          r.createIntegration(w.weak, {
            name: unique("I"),
            url: w.mcpUrl,
            transport: "http",
            auth_type: "none",
            workspace_id: w.workspaceId
          })
        )
    },
    {
      outcome: "failed",
      program: (w) =>
        McpRegistry.use((r) =>
          r.createIntegration(w.admin, {
            name: unique("I"),
            url: "not a url",
            transport: "http",
            auth_type: "none",
            workspace_id: w.workspaceId
          })
        )
    }
  ],
  "mcpRegistry.updateIntegration": onFixture(
    integration,
    byId,
    (who, id) => McpRegistry.use((r) => r.updateIntegration(who, id, { name: unique("I") }))
  ),
  "mcpRegistry.archiveIntegration": onFixture(
    integration,
    byId,
    (who, id) => McpRegistry.use((r) => r.archiveIntegration(who, id))
  ),
  "mcpRegistry.createServer": [
    { outcome: "allowed", program: server },
    {
      outcome: "denied",
      program: (w) =>
        Effect.flatMap(
          integration(w),
          (i) =>
            McpRegistry.use((r) =>
              r.createServer(w.weak, { name: unique("S"), mcp_integration_id: i.id, workspace_id: w.workspaceId })
            )
        )
    },
    {
      outcome: "failed",
      program: (w) =>
        McpRegistry.use((r) =>
          r.createServer(w.admin, { name: unique("S"), mcp_integration_id: MISSING, workspace_id: w.workspaceId })
        )
    }
  ],
  "mcpRegistry.updateServer": [
    ...byEach((who, w) =>
      Effect.flatMap(server(w), (s) => McpRegistry.use((r) => r.updateServer(who, s.id, { name: unique("S") })))
    ),
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(server(w), (s) => McpRegistry.use((r) => r.updateServer(w.admin, s.id, { name: "" })))
    }
  ],
  "mcpRegistry.deleteServer": onFixture(
    server,
    byId,
    (who, id) => McpRegistry.use((r) => r.deleteServer(who, id))
  ),
  "mcpRegistry.updateServerUserAccess": [
    ...byEach((who, w) =>
      Effect.flatMap(
        server(w),
        (s) => McpRegistry.use((r) => r.updateServerUserAccess(who, s.id, { default_user_access: "deny" }))
      )
    ),
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(
          server(w),
          (s) =>
            McpRegistry.use((r) =>
              r.updateServerUserAccess(w.admin, s.id, { user_access: [{ user_id: MISSING, enabled: true }] })
            )
        )
    }
  ],
  "mcpConnectivity.testIntegration": onFixture(
    integration,
    byId,
    (who, id) => McpConnectivity.use((c) => c.testIntegration(who, id))
  ),
  "mcpConnectivity.testServer": onFixture(
    server,
    byId,
    (who, id) => McpConnectivity.use((c) => c.testServer(who, id))
  ),
  "mcpConnectivity.syncCapabilities": onFixture(
    integration,
    byId,
    (who, id) => McpConnectivity.use((c) => c.syncCapabilities(who, id))
  ),
  "mcpConnectivity.setCapabilities": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(integration(w), (i) =>
          McpConnectivity.use((c) =>
            Effect.andThen(
              c.syncCapabilities(w.admin, i.id),
              c.setCapabilities(w.admin, i.id, [{ name: "search", type: "tool", enabled: false }])
            )
          ))
    },
    {
      outcome: "denied",
      program: (w) =>
        Effect.flatMap(
          integration(w),
          (i) =>
            McpConnectivity.use((c) =>
              c.setCapabilities(w.weak, i.id, [{ name: "search", type: "tool", enabled: false }])
            )
        )
    },
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(
          integration(w),
          (i) =>
            McpConnectivity.use((c) =>
              c.setCapabilities(w.admin, i.id, [{ name: "nothing", type: "tool", enabled: false }])
            )
        )
    }
  ],
  "virtualKeys.create": [
    { outcome: "allowed", program: virtualKey },
    {
      outcome: "denied",
      program: (w) =>
        VirtualKeys.use((k) =>
          k.createVirtualKey(w.weak, {
            name: unique("V"),
            provider: "openai",
            key: "sk-x",
            workspace_id: w.workspaceId
          })
        )
    },
    {
      outcome: "failed",
      program: (w) =>
        VirtualKeys.use((k) =>
          k.createVirtualKey(w.admin, {
            name: unique("V"),
            provider: "nobody",
            key: "sk-x",
            workspace_id: w.workspaceId
          })
        )
    }
  ],
  "virtualKeys.update": onFixture(
    virtualKey,
    byId,
    (who, id) => VirtualKeys.use((k) => k.updateVirtualKey(who, id, { name: unique("V") }))
  ),
  "virtualKeys.delete": onFixture(
    virtualKey,
    byId,
    (who, id) => VirtualKeys.use((k) => k.deleteVirtualKey(who, id))
  ),
  "configs.create": [
    { outcome: "allowed", program: config },
    {
      outcome: "denied",
      program: (w) =>
        Configs.use((c) => c.createConfig(w.weak, { name: unique("C"), config: {}, workspace_id: w.workspaceId }))
    },
    {
      outcome: "failed",
      program: (w) => Configs.use((c) => c.createConfig(w.admin, { name: "", config: {}, workspace_id: w.workspaceId }))
    }
  ],
  "configs.update": onFixture(
    config,
    byId,
    (who, id) => Configs.use((c) => c.updateConfig(who, id, { name: unique("C") }))
  ),
  "configs.delete": onFixture(
    config,
    byId,
    (who, id) => Configs.use((c) => c.deleteConfig(who, id))
  ),
  "invites.create": [
    { outcome: "allowed", program: invite },
    { outcome: "denied", program: (w) => Effect.flatMap(invite({ ...w, admin: w.weak }), () => Effect.void) },
    {
      outcome: "failed",
      program: (w) => Invites.use((i) => i.create(w.admin, { email: "not an email", role: "member", workspaces: [] }))
    }
  ],
  "invites.resend": [
    ...byEach((who, w) => Effect.flatMap(invite(w), ({ invite }) => Invites.use((i) => i.resend(who, invite.id)))),
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(
          invite(w),
          ({ invite }) =>
            Effect.andThen(
              Invites.use((i) => i.revoke(w.admin, invite.id)),
              Invites.use((i) => i.resend(w.admin, invite.id))
            )
        )
    }
  ],
  "invites.revoke": [
    ...byEach((who, w) => Effect.flatMap(invite(w), ({ invite }) => Invites.use((i) => i.revoke(who, invite.id)))),
    { outcome: "failed", program: (w) => Invites.use((i) => i.revoke(w.admin, "no-such-invite")) }
  ],
  "invites.accept": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(invite(w), ({ token }) => Invites.use((i) => i.accept({ token, name: "Ada Lovelace" })))
    },
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(
          invite(w),
          ({ token }) =>
            Invites.use((i) => i.acceptWithPassword({ token, password: "a long enough password" }, { userAgent: null }))
        )
    },
    { outcome: "failed", program: () => Invites.use((i) => i.accept({ token: "not-a-link" })) },
    {
      outcome: "failed",
      program: () =>
        Invites.use((i) =>
          i.acceptWithPassword({ token: "not-a-link", password: "a long enough password" }, { userAgent: null })
        )
    }
  ],
  "invites.ownerLink": [
    { outcome: "allowed", program: (w) => Invites.use((i) => i.ownerLink(w.admin.userId ?? MISSING)) },
    { outcome: "failed", program: () => Invites.use((i) => i.ownerLink(MISSING)) }
  ],
  "trustPolicies.create": [
    { outcome: "allowed", program: trustPolicy },
    {
      outcome: "denied",
      program: (w) => Effect.flatMap(trustPolicy({ ...w, admin: w.weak }), () => Effect.void)
    },
    {
      outcome: "failed",
      program: (w) =>
        TrustPolicies.use((t) =>
          t.create(w.admin, {
            name: "x",
            issuer: "http://issuer.example",
            audience: "a",
            subject: "s",
            workspace_id: w.workspaceId,
            scopes: ["prompts.render"],
            max_ttl_seconds: 60
          })
        )
    }
  ],
  "trustPolicies.update": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(
          trustPolicy(w),
          (p) => TrustPolicies.use((t) => t.update(w.admin, p.id, { ...p, max_ttl_seconds: 30 }))
        )
    },
    {
      outcome: "denied",
      program: (w) => Effect.flatMap(trustPolicy(w), (p) => TrustPolicies.use((t) => t.update(w.weak, p.id, p)))
    },
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(
          trustPolicy(w),
          (p) => TrustPolicies.use((t) => t.update(w.admin, p.id, { ...p, max_ttl_seconds: 7200 }))
        )
    }
  ],
  "trustPolicies.delete": onFixture(
    trustPolicy,
    byId,
    (who, id) => TrustPolicies.use((t) => t.delete(who, id))
  ),
  "scimTokens.create": [
    ...byEach((who) => ScimTokens.use((t) => t.create(who, { name: unique("idp") }))),
    { outcome: "failed", program: (w) => ScimTokens.use((t) => t.create(w.admin, { name: " " })) }
  ],
  "scimTokens.revoke": onFixture(
    (w) => ScimTokens.use((t) => t.create(w.admin, { name: unique("idp") })),
    (issued) => issued.token.id,
    (who, id) => ScimTokens.use((t) => t.revoke(who, id))
  ),
  "scim.createUser": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(
          scimCaller(w),
          (c) => Scim.use((s) => s.createUser(c, { userName: `${unique("s")}@audit.test` }))
        )
    },
    {
      outcome: "denied",
      program: (w) => Scim.use((s) => s.createUser(w.weak, { userName: `${unique("s")}@audit.test` }))
    },
    { outcome: "failed", program: (w) => Effect.flatMap(scimCaller(w), (c) => Scim.use((s) => s.createUser(c, {}))) }
  ],
  "scim.replaceUser": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(
          scimUser(w),
          ({ caller, id }) =>
            Effect.flatMap(Scim.use((s) => s.getUser(caller, id)), (user) =>
              Scim.use((s) => s.replaceUser(caller, id, { ...user, active: false })))
        )
    },
    {
      outcome: "denied",
      program: (w) => Effect.flatMap(scimUser(w), ({ id }) => Scim.use((s) => s.replaceUser(w.weak, id, {})))
    },
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(scimCaller(w), (c) => Scim.use((s) => s.replaceUser(c, MISSING, { userName: "a@audit.test" })))
    }
  ],
  "scim.patchUser": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(scimUser(w), ({ caller, id }) => Scim.use((s) => s.patchUser(caller, id, DEACTIVATE)))
    },
    {
      outcome: "denied",
      program: (w) => Effect.flatMap(scimUser(w), ({ id }) => Scim.use((s) => s.patchUser(w.weak, id, DEACTIVATE)))
    },
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(scimUser(w), ({ caller, id }) => Scim.use((s) => s.patchUser(caller, id, { Operations: "x" })))
    }
  ],
  "scim.deleteUser": [
    {
      outcome: "allowed",
      program: (w) => Effect.flatMap(scimUser(w), ({ caller, id }) => Scim.use((s) => s.deleteUser(caller, id)))
    },
    {
      outcome: "denied",
      program: (w) => Effect.flatMap(scimUser(w), ({ id }) => Scim.use((s) => s.deleteUser(w.weak, id)))
    },
    {
      outcome: "failed",
      program: (w) => Effect.flatMap(scimCaller(w), (c) => Scim.use((s) => s.deleteUser(c, MISSING)))
    }
  ],
  "scim.createGroup": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(scimCaller(w), (c) => ScimGroups.use((g) => g.createGroup(c, { displayName: unique("G") })))
    },
    {
      outcome: "denied",
      program: (w) => ScimGroups.use((g) => g.createGroup(w.weak, { displayName: unique("G") }))
    },
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(
          scimCaller(w),
          (c) => ScimGroups.use((g) => g.createGroup(c, { displayName: "G", members: [{ value: MISSING }] }))
        )
    }
  ],
  "scim.replaceGroup": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(
          scimGroup(w),
          ({ caller, id }) =>
            ScimGroups.use((g) => g.replaceGroup(caller, id, { displayName: unique("Renamed"), members: [] }))
        )
    },
    {
      outcome: "denied",
      program: (w) =>
        Effect.flatMap(
          scimGroup(w),
          ({ id }) => ScimGroups.use((g) => g.replaceGroup(w.weak, id, { displayName: unique("Renamed") }))
        )
    },
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(scimCaller(w), (c) => ScimGroups.use((g) => g.replaceGroup(c, MISSING, { displayName: "G" })))
    }
  ],
  "scim.patchGroup": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(
          scimGroup(w),
          ({ caller, id }) => ScimGroups.use((g) => g.patchGroup(caller, id, REMOVE_MEMBERS))
        )
    },
    {
      outcome: "denied",
      program: (w) =>
        Effect.flatMap(scimGroup(w), ({ id }) => ScimGroups.use((g) => g.patchGroup(w.weak, id, REMOVE_MEMBERS)))
    },
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(
          scimGroup(w),
          ({ caller, id }) => ScimGroups.use((g) => g.patchGroup(caller, id, { Operations: 1 }))
        )
    }
  ],
  "scim.deleteGroup": [
    {
      outcome: "allowed",
      program: (w) => Effect.flatMap(scimGroup(w), ({ caller, id }) => ScimGroups.use((g) => g.deleteGroup(caller, id)))
    },
    {
      outcome: "denied",
      program: (w) => Effect.flatMap(scimGroup(w), ({ id }) => ScimGroups.use((g) => g.deleteGroup(w.weak, id)))
    },
    {
      outcome: "failed",
      program: (w) => Effect.flatMap(scimCaller(w), (c) => ScimGroups.use((g) => g.deleteGroup(c, MISSING)))
    }
  ],
  "identityProviders.create": [
    { outcome: "allowed", program: identityProvider },
    { outcome: "denied", program: (w) => identityProvider({ ...w, admin: w.weak }) },
    {
      outcome: "failed",
      program: (w) =>
        IdentityProviders.use((p) =>
          p.create(w.admin, { name: "x", issuer: "ftp://nowhere", client_id: "x", client_secret: "y" })
        )
    }
  ],
  "identityProviders.update": onFixture(
    identityProvider,
    byId,
    (who, id) => IdentityProviders.use((i) => i.update(who, id, { enabled: false }))
  ),
  "identityProviders.delete": onFixture(
    identityProvider,
    byId,
    (who, id) => IdentityProviders.use((i) => i.delete(who, id))
  ),
  // A sign-in that succeeds needs an OpenID provider: OidcSignIn.test.ts signs in through a real one.
  "identityProviders.signIn": [
    {
      outcome: "failed",
      program: () =>
        OidcSignIn.use((s) => s.callback("?state=never-issued&code=x", { userAgent: null }, "never-issued"))
    }
  ],
  "integrations.create": [
    { outcome: "allowed", program: aiIntegration },
    { outcome: "denied", program: (w) => aiIntegration({ ...w, admin: w.weak }) },
    {
      outcome: "failed",
      program: (w) => Integrations.use((i) => i.create(w.admin, { name: unique("Ai"), ai_provider_id: "openai" }))
    }
  ],
  "integrations.update": [
    { outcome: "allowed", program: onAiIntegration("admin", (i, p, id) => i.update(p, id, { name: unique("Ai") })) },
    { outcome: "denied", program: onAiIntegration("weak", (i, p, id) => i.update(p, id, { name: unique("Ai") })) },
    {
      outcome: "failed",
      program: onAiIntegration(
        "admin",
        (i, p, id) => i.update(p, id, { configurations: { custom_host: "https://x.test" } })
      )
    }
  ],
  "integrations.test": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(
          Integrations.use((integrations) =>
            integrations.create(w.admin, {
              name: unique("Checked"),
              ai_provider_id: "openai",
              key: "sk-good",
              configurations: { custom_host: w.providerUrl }
            })
          ),
          (made) => CredentialHealthChecks.use((c) => c.test(w.admin, made.id))
        )
    },
    {
      outcome: "denied",
      program: (w) =>
        Effect.flatMap(aiIntegration(w), (made) => CredentialHealthChecks.use((c) => c.test(w.weak, made.id)))
    },
    { outcome: "failed", program: (w) => CredentialHealthChecks.use((c) => c.test(w.admin, MISSING)) }
  ],
  "integrations.delete": onFixture(
    aiIntegration,
    byId,
    (who, id) => Integrations.use((i) => i.delete(who, id))
  ),
  "integrations.updateWorkspaces": [
    {
      outcome: "allowed",
      program: onAiIntegration(
        "admin",
        (i, p, id) => i.updateWorkspaces(p, id, { global_workspace_access: { enabled: true } })
      )
    },
    {
      outcome: "denied",
      program: onAiIntegration(
        "weak",
        (i, p, id) => i.updateWorkspaces(p, id, { global_workspace_access: { enabled: true } })
      )
    },
    {
      outcome: "failed",
      program: onAiIntegration(
        "admin",
        (i, p, id) => i.updateWorkspaces(p, id, { workspaces: [{ id: MISSING, enabled: true }] })
      )
    }
  ],
  "integrations.updateModels": [
    {
      outcome: "allowed",
      program: onAiIntegration(
        "admin",
        (i, p, id) => i.updateModels(p, id, { models: [{ slug: "gpt-4o", enabled: true }] })
      )
    },
    {
      outcome: "denied",
      program: onAiIntegration(
        "weak",
        (i, p, id) => i.updateModels(p, id, { models: [{ slug: "gpt-4o", enabled: true }] })
      )
    },
    {
      outcome: "failed",
      program: onAiIntegration(
        "admin",
        (i, p, id) => i.updateModels(p, id, { models: [{ slug: "a", enabled: true }, { slug: "a", enabled: false }] })
      )
    }
  ],
  "integrations.deleteModels": [
    {
      outcome: "allowed",
      program: onAiIntegration("admin", (i, p, id) =>
        Effect.flatMap(
          i.updateModels(p, id, { models: [{ slug: "custom", enabled: true, is_custom: true }] }),
          () => i.deleteModels(p, id, ["custom"])
        ))
    },
    { outcome: "denied", program: onAiIntegration("weak", (i, p, id) => i.deleteModels(p, id, ["custom"])) },
    { outcome: "failed", program: onAiIntegration("admin", (i, p, id) => i.deleteModels(p, id, ["not-custom"])) }
  ],
  "fineTuning.createJob": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(
          fineTuningCaller(w),
          ({ caller, selection }) => FineTuning.use((f) => f.createJob(caller, selection, JOB))
        )
    },
    {
      outcome: "denied",
      program: (w) =>
        Effect.flatMap(
          fineTuningCaller(w),
          ({ selection }) => FineTuning.use((f) => f.createJob(w.weak, selection, JOB))
        )
    },
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(
          fineTuningCaller(w),
          ({ caller, selection }) =>
            FineTuning.use((f) => f.createJob(caller, selection, { training_file: "file-abc" }))
        )
    }
  ],
  "fineTuning.cancelJob": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(
          fineTuningCaller(w),
          ({ caller, selection }) => FineTuning.use((f) => f.cancelJob(caller, selection, "ftjob-primary-000"))
        )
    },
    {
      outcome: "denied",
      program: (w) =>
        Effect.flatMap(
          fineTuningCaller(w),
          ({ selection }) => FineTuning.use((f) => f.cancelJob(w.weak, selection, "ftjob-primary-000"))
        )
    },
    // The provider has no such job: its 404 is the call's outcome, and the record's.
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(
          fineTuningCaller(w),
          ({ caller, selection }) => FineTuning.use((f) => f.cancelJob(caller, selection, "ftjob-missing"))
        )
    }
  ],
  "providers.create": [
    { outcome: "allowed", program: provider },
    {
      outcome: "denied",
      program: (w) =>
        Effect.flatMap(
          aiIntegration(w),
          (made) =>
            Providers.use((p) =>
              p.create(w.weak, { name: unique("P"), integration_id: made.id, workspace_id: w.workspaceId })
            )
        )
    },
    {
      outcome: "failed",
      program: (w) =>
        Providers.use((p) =>
          p.create(w.admin, { name: unique("P"), integration_id: MISSING, workspace_id: w.workspaceId })
        )
    }
  ],
  "providers.update": [
    ...byEach((who, w) =>
      Effect.flatMap(provider(w), (made) => Providers.use((p) => p.update(who, made.id, { note: "n" })))
    ),
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(provider(w), (made) => Providers.use((p) => p.update(w.admin, made.id, { expires_at: "soon" })))
    }
  ],
  "providers.delete": onFixture(
    provider,
    byId,
    (who, id) => Providers.use((p) => p.delete(who, id))
  ),
  "secretReferences.create": [
    { outcome: "allowed", program: (w) => secretReference(w) },
    { outcome: "denied", program: (w) => secretReference({ ...w, admin: w.weak }) },
    {
      outcome: "failed",
      program: (w) =>
        SecretReferences.use((r) =>
          r.create(w.admin, { name: "Vault", manager_type: "hashicorp_vault", secret_path: "secret/x" })
        )
    }
  ],
  "secretReferences.update": [
    ...byEach((who, w) =>
      Effect.flatMap(
        secretReference(w),
        (made) => SecretReferences.use((r) => r.update(who, made.id, { secret_key: "token" }))
      )
    ),
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(
          secretReference(w),
          (made) => SecretReferences.use((r) => r.update(w.admin, made.id, { auth_config: { vault_addr: "x" } }))
        )
    }
  ],
  "secretReferences.delete": onFixture(
    secretReference,
    byId,
    (who, id) => SecretReferences.use((r) => r.delete(who, id))
  ),
  "secretReferences.use": [
    { outcome: "allowed", program: (w) => testWithReference(w, "mcp-token") },
    // The file has no such entry: the use is refused (400) and recorded.
    { outcome: "failed", program: (w) => testWithReference(w, "no-such-entry") }
  ],
  "tokenExchange.exchange": [
    { outcome: "allowed", program: exchange },
    {
      outcome: "failed",
      program: () => TokenExchange.use((t) => t.exchange({ grant_type: "password" }))
    }
  ],
  "sessions.signIn": [
    { outcome: "allowed", program: signedIn },
    {
      outcome: "failed",
      program: () => Sessions.use((s) => s.signIn({ user_id: MISSING, method: "password" }, { userAgent: null }))
    }
  ],
  "sessions.signOut": [
    { outcome: "allowed", program: (w) => Effect.flatMap(signedIn(w), (p) => Sessions.use((s) => s.signOut(p))) },
    // An API key has no session to end.
    { outcome: "failed", program: (w) => Sessions.use((s) => s.signOut(w.admin)) }
  ],
  "sessions.signOutEverywhere": [
    { outcome: "allowed", program: (w) => Sessions.use((s) => s.signOutEverywhere(w.admin)) },
    // A service key stands for no person.
    { outcome: "failed", program: (w) => Sessions.use((s) => s.signOutEverywhere(w.weak)) }
  ],
  "sessions.revoke": onFixture(
    signedIn,
    (p) => p.session?.id ?? MISSING,
    (who, id) => Sessions.use((s) => s.revoke(who, id))
  ),
  "signInSettings.update": [
    ...byEach((who) => LocalAccounts.use((a) => a.updateSettings(who, { require_second_factor: false }))),
    // Nothing to change.
    { outcome: "failed", program: (w) => LocalAccounts.use((a) => a.updateSettings(w.admin, {})) }
  ],
  "secondFactor.enrol": [
    {
      outcome: "allowed",
      program: (w) => Effect.flatMap(memberSignedIn(w), (p) => LocalAccounts.use((a) => a.enrolTotp(p)))
    },
    // An API key is no person signed in.
    { outcome: "failed", program: (w) => LocalAccounts.use((a) => a.enrolTotp(w.admin)) }
  ],
  "secondFactor.confirm": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(
          enrolled(w),
          ({ code, principal }) => LocalAccounts.use((a) => a.confirmTotp(principal, { code }))
        )
    },
    // Nothing was enrolled.
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(memberSignedIn(w), (p) => LocalAccounts.use((a) => a.confirmTotp(p, { code: "123456" })))
    }
  ],
  "secondFactor.disable": [
    {
      outcome: "allowed",
      program: (w) =>
        Effect.flatMap(
          enrolled(w),
          ({ code, principal }) => LocalAccounts.use((a) => a.disableTotp(principal, { code }))
        )
    },
    {
      outcome: "failed",
      program: (w) =>
        Effect.flatMap(memberSignedIn(w), (p) => LocalAccounts.use((a) => a.disableTotp(p, { code: "123456" })))
    }
  ],
  "sessions.setPassword": [
    ...byEach((who, w) =>
      Effect.flatMap(
        user(w),
        (u) => Sessions.use((s) => s.setPassword(who, { user_id: u.id, password: "correct horse battery" }))
      )
    ),
    {
      outcome: "failed",
      program: (w) => Sessions.use((s) => s.setPassword(w.admin, { user_id: MISSING, password: "correct horse" }))
    }
  ]
}

/** The newest records of the organisation and of the operator (a refused bootstrap belongs to no organisation). */
const newestRecords = (admin: Principal) =>
  Audit.use((audit) =>
    Effect.map(
      Effect.all([
        audit.list(admin, {}, { limit: 200, offset: 0 }),
        audit.listUnauthenticated({ limit: 200, offset: 0 })
      ]),
      ([own, operators]) => [...own.items, ...operators.items]
    )
  )

/** An embedder's own context for one call: its records carry `requestId`. */
const asCall = (requestId: string) =>
  Effect.provideService(RequestContext, {
    channel: "embedded",
    requestId,
    method: "EMBEDDED",
    uri: "",
    clientIp: null,
    operator: null
  })

const must = async <A>(exit: Exit.Exit<A, unknown>): Promise<A> => {
  if (Exit.isSuccess(exit)) return exit.value
  throw new Error(`expected success, got ${JSON.stringify(exit.cause)}`)
}

const everyUseCase = (name: string, open: () => Promise<{ run: Runner; close: () => Promise<void> }>) =>
  describe(`every administrative use case through ${name}, with no HTTP`, () => {
    let run: Runner
    let close: () => Promise<void>
    let world: World
    let mcpClose: () => Promise<void>
    let providerClose: () => Promise<void>

    beforeAll(async () => {
      const mcp = await startSdkMcpServer()
      mcpClose = () => mcp.close()
      const provider = await startFakeProvider("primary")
      providerClose = () => provider.close()
      ;({ close, run } = await open())
      const boot = await must(
        await run(Bootstrap.use((b) => b.run({ organisationName: "Audited", ownerEmail: "owner@audit.test" })))
      )
      const admin = await must(await run(ApiKeys.use((k) => k.authenticate(boot.api_key))))
      const weakKey = await must(
        await run(
          ApiKeys.use((k) =>
            k.create(admin, {
              type: "workspace-service",
              name: "Weak",
              scopes: ["prompts.render"],
              workspace_id: boot.workspace_id
            })
          )
        )
      )
      const weak = await must(await run(ApiKeys.use((k) => k.authenticate(weakKey.plaintext))))
      world = { admin, weak, workspaceId: boot.workspace_id, mcpUrl: mcp.httpUrl, providerUrl: provider.baseUrl }
    }, 60_000)

    afterAll(async () => {
      await close?.()
      await mcpClose?.()
      await providerClose?.()
    })

    for (const [useCase, calls] of Object.entries(SCENARIOS) as Array<[Administrative, ReadonlyArray<Call>]>) {
      for (const call of calls) {
        it(`${useCase}, ${call.outcome}: one record naming it and its outcome`, async () => {
          const requestId = unique("call")
          const exit = await run(call.program(world).pipe(asCall(requestId)))
          if (call.outcome === "allowed") expect(Exit.isSuccess(exit), JSON.stringify(exit)).toBe(true)
          else expect(Exit.isFailure(exit)).toBe(true)
          // Fixtures (a prompt to update, a key to revoke) are use cases too, of other kinds, in the same call.
          const { action, resourceType } = USE_CASES[useCase]
          const records = (await must(await run(newestRecords(world.admin)))).filter((r) =>
            r.request_id === requestId && r.action === action && r.resource_type === resourceType
          )
          expect(records, `records of ${useCase}`).toHaveLength(1)
          const record = records[0]!
          expect(record.method).toBe("EMBEDDED")
          expect(record.uri).toBe(`embedded:${useCase}`)
          const status = Exit.isSuccess(exit)
            ? successStatusOf(USE_CASES[useCase])
            : recordedStatusOf(
              Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail")?.error : undefined
            )
          expect(record.response_status_code).toBe(status)
          if (call.outcome === "denied") expect([403, 404]).toContain(status)
          // 401: a sign-in refused (identityProviders.signIn).
          if (call.outcome === "failed") expect([400, 401, 404, 409]).toContain(status)
        })
      }
    }

    it("leaves a log that verifies", async () => {
      const verdict = await must(await run(Audit.use((audit) => audit.verify())))
      expect(verdict).toMatchObject({ ok: true })
    })
  })

everyUseCase("GatewayControl.layer", async () => {
  const runtime = ManagedRuntime.make(GatewayControl.layer({
    store: "memory",
    trustedCustomHosts: ["127.0.0.1"],
    mcpSecretsFile: SECRETS_FILE
  }))
  return {
    run: (program) => runtime.runPromiseExit(program),
    close: () => runtime.dispose()
  }
})

everyUseCase("createGatewayControl().run", async () => {
  const engine: GatewayControlEngine = await createGatewayControl({
    store: "memory",
    trustedCustomHosts: ["127.0.0.1"],
    mcpSecretsFile: SECRETS_FILE
  })
  return {
    run: (program) => engine.run(Effect.exit(program)),
    close: () => engine.close()
  }
})

describe("a use case whose record cannot be written", () => {
  it("changes nothing: the change and its record commit together or not at all", async () => {
    const { auditDown, store } = memoryWithAuditSwitch()
    const runtime = ManagedRuntime.make(layerDomain(store))
    try {
      const boot = await runtime.runPromise(
        Bootstrap.use((b) => b.run({ organisationName: "Rollback", ownerEmail: "o@rb.test" }))
      )
      const admin = await runtime.runPromise(ApiKeys.use((k) => k.authenticate(boot.api_key)))
      auditDown(true)
      const exit = await runtime.runPromiseExit(
        Workspaces.use((w) => w.create(admin, { name: "Unrecorded", slug: "unrecorded" })).pipe(
          Effect.provideService(RequestContext, {
            channel: "embedded",
            requestId: "rollback-1",
            method: "EMBEDDED",
            uri: "test",
            clientIp: null,
            operator: null
          })
        )
      )
      auditDown(false)
      expect(Exit.isFailure(exit)).toBe(true)
      const listed = await runtime.runPromise(Workspaces.use((w) => w.list(admin, { limit: 100, offset: 0 })))
      expect(listed.items.map((w) => w.slug)).not.toContain("unrecorded")
    } finally {
      await runtime.dispose()
    }
  })
})
