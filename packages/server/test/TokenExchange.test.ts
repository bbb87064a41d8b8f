/**
 * Keyless workloads: trust policies, and RFC 8693 token exchange against an issuer on 127.0.0.1 whose tokens the
 * test mints (`LocalIssuer`). A matching token gets a working, short-lived credential; every refusal is an RFC
 * 6749 error, issues nothing and is recorded; the issuer's keys are fetched once per rotation.
 */
import { Audit, JWT_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from "@gateway-control/domain"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { providerRegistry } from "../src/App.ts"
import { type LocalIssuer, startLocalIssuer } from "./support/LocalIssuer.ts"
import { makeMovableClock } from "./support/MovableClock.ts"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const AUDIENCE = "gateway-control"
const COOLDOWN_MS = 1_000
const clock = makeMovableClock()
let issuer: LocalIssuer
let server: TestServer

beforeAll(async () => {
  issuer = await startLocalIssuer(AUDIENCE)
  server = await startTestServer({
    clock: clock.clock,
    providers: {
      // The issuer is on loopback: only the hosts the operator lists may be (TRUSTED_CUSTOM_HOSTS).
      registry: providerRegistry({
        providerBaseUrls: [],
        upstreamTimeoutMs: 30_000,
        trustedCustomHosts: [new URL(issuer.issuer).host]
      }),
      masterKey: new Uint8Array(randomBytes(32)),
      workloadTokens: { cooldownMs: COOLDOWN_MS }
    }
  })
})
afterAll(async () => {
  await server?.close()
  await issuer?.close()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let counter = 0
const createPolicy = async (fields: Record<string, unknown>, key?: string) =>
  server.send("POST", "/v1/admin/trust-policies", {
    name: `policy ${++counter}`,
    issuer: issuer.issuer,
    jwks_uri: issuer.jwksUri,
    audience: AUDIENCE,
    workspace_id: server.workspaceId,
    scopes: ["prompts.list", "workspaces.read"],
    max_ttl_seconds: 600,
    ...fields
  }, key)

const exchange = (fields: Record<string, string>, contentType = "application/x-www-form-urlencoded") =>
  fetch(`${server.baseUrl}/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": contentType },
    body: new URLSearchParams(fields).toString()
  })

const tokenRequest = (token: string, extra: Record<string, string> = {}) => ({
  grant_type: TOKEN_EXCHANGE_GRANT,
  subject_token: token,
  subject_token_type: JWT_TOKEN_TYPE,
  ...extra
})

/** Keys of the organisation: a refused exchange must leave their number as it was. */
const keyCount = async () => (await jsonOf(await server.request("/v1/api-keys?page_size=1"))).total as number

/** The operator's records of calls by no known key (refused exchanges belong to no organisation). */
const operatorRecords = () =>
  server.runtime.runPromise(Audit.use((audit) => audit.listUnauthenticated({ limit: 50, offset: 0 })))

let ciPolicyId: string

describe("a matching token", () => {
  it("gets a credential with the policy's scopes, rate limits and lifetime, usable as any API key", async () => {
    const created = await createPolicy({
      subject_pattern: "system:serviceaccount:ci:*",
      claims: { "kubernetes.io/namespace": "ci" },
      rate_limits: [{ type: "requests", unit: "rpm", value: 100 }]
    })
    expect(created.status).toBe(201)
    ciPolicyId = (await jsonOf(created)).id

    const token = await issuer.mint({ "kubernetes.io/namespace": "ci" })
    const answer = await exchange(tokenRequest(token))
    expect(answer.status).toBe(200)
    expect(answer.headers.get("cache-control")).toBe("no-store")
    const issued = await jsonOf(answer)
    expect(issued).toEqual({
      access_token: expect.stringMatching(/^gwc_/),
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
      token_type: "Bearer",
      expires_in: 600,
      scope: "prompts.list workspaces.read"
    })

    const credential: string = issued.access_token
    for (
      const headers of [
        { "x-service-api-key": credential },
        { "x-portkey-api-key": credential },
        { authorization: `Bearer ${credential}` }
      ]
    ) {
      expect((await fetch(`${server.baseUrl}/v1/prompts`, { headers })).status).toBe(200)
    }
    const scopes = await jsonOf(await server.request("/v1/scopes", { key: credential }))
    expect(scopes.key).toMatchObject({
      type: "workspace-service",
      workspace_id: server.workspaceId,
      scopes: expect.arrayContaining(["prompts.list", "workspaces.read"])
    })
    expect(scopes.key.scopes).toHaveLength(2)
    const key = await jsonOf(await server.request(`/v1/api-keys/${scopes.key.id}`))
    expect(key.workload).toEqual({
      trust_policy_id: ciPolicyId,
      issuer: issuer.issuer,
      subject: "system:serviceaccount:ci:builder"
    })
    expect(key.rate_limits).toEqual([{ type: "requests", unit: "rpm", value: 100 }])
    const lifetime = Date.parse(key.expires_at) - Date.parse(key.created_at)
    // expires_at is set from the exchange's clock reading, created_at a moment later when the key is made.
    expect(lifetime).toBeGreaterThan(599_000)
    expect(lifetime).toBeLessThanOrEqual(600_000)
    // Stored as a digest like every key: reads show the masked form only.
    expect(JSON.stringify(key)).not.toContain(credential)

    // A scope the policy does not give is refused like any key's, and the call is audited as the workload's.
    const refused = await server.send("POST", "/v1/prompts", { name: "x", string: "y" }, credential)
    expect(refused.status).toBe(403)
    const records = await jsonOf(
      await server.request(`/v1/audit-logs?workload_subject=${encodeURIComponent("system:serviceaccount:ci:builder")}`)
    )
    const actions = records.records.map((r: any) => [r.action, r.resource_type, r.response_status_code])
    expect(actions).toContainEqual(["create", "prompt", 403])
    expect(actions).toContainEqual(["exchange", "api_key", 200])
    for (const record of records.records) {
      expect(record).toMatchObject({
        workload_issuer: issuer.issuer,
        workload_subject: "system:serviceaccount:ci:builder"
      })
      expect(JSON.stringify(record)).not.toContain(token)
    }
    const exchangeRecord = records.records.find((r: any) => r.action === "exchange")
    expect(exchangeRecord).toMatchObject({ user_type: "workload", resource_id: scopes.key.id })
    const others = await jsonOf(await server.request("/v1/audit-logs?workload_subject=someone-else"))
    expect(others.total).toBe(0)
  })

  it("may ask for fewer scopes, never more (invalid_scope)", async () => {
    const token = await issuer.mint({ "kubernetes.io/namespace": "ci" })
    const narrow = await jsonOf(await exchange(tokenRequest(token, { scope: "prompts.list" })))
    expect(narrow.scope).toBe("prompts.list")
    const before = await keyCount()
    const wider = await exchange(tokenRequest(token, { scope: "prompts.list prompts.delete" }))
    expect(wider.status).toBe(400)
    expect(await jsonOf(wider)).toEqual({
      error: "invalid_scope",
      error_description: "The trust policy does not grant: prompts.delete."
    })
    expect(await keyCount()).toBe(before)
  })

  it("finds the issuer's keys through OIDC discovery when the policy names none", async () => {
    expect(
      (await createPolicy({
        jwks_uri: undefined,
        audience: "discovered",
        subject: "repo:org/repo:ref:refs/heads/main"
      })).status
    )
      .toBe(201)
    const token = await issuer.mint({ aud: "discovered", sub: "repo:org/repo:ref:refs/heads/main" })
    expect((await exchange(tokenRequest(token))).status).toBe(200)
    expect(issuer.discoveryFetches()).toBe(1)
  })
})

describe("a refused token gets an RFC 6749 error, nothing issued, and a record without the token", () => {
  const refusals: ReadonlyArray<readonly [string, () => Promise<string>, string]> = [
    ["a wrong audience", () => issuer.mint({ aud: "someone-else", "kubernetes.io/namespace": "ci" }), "audience"],
    [
      "an unknown issuer",
      () => issuer.mint({ iss: "https://unknown.example", "kubernetes.io/namespace": "ci" }),
      "No trust policy accepts tokens of this issuer."
    ],
    [
      "a bad signature",
      async () => issuer.mint({ "kubernetes.io/namespace": "ci" }, { key: await issuer.strangerKey() }),
      "signature"
    ],
    [
      "an expired token",
      () => issuer.mint({ exp: Math.floor(Date.now() / 1000) - 120, "kubernetes.io/namespace": "ci" }),
      "expired"
    ],
    [
      "a sub outside the pattern",
      () => issuer.mint({ sub: "system:serviceaccount:prod:deployer", "kubernetes.io/namespace": "ci" }),
      "subject"
    ],
    ["a claim that differs", () => issuer.mint({ "kubernetes.io/namespace": "prod" }), "claims"]
  ]
  for (const [what, mint, says] of refusals) {
    it(`refuses ${what}`, async () => {
      const token = await mint()
      const before = await keyCount()
      const answer = await exchange(tokenRequest(token))
      expect(answer.status).toBe(400)
      const body = await jsonOf(answer)
      expect(body.error).toBe("invalid_grant")
      expect(body.error_description).toContain(says)
      expect(await keyCount()).toBe(before)
      const record = (await operatorRecords()).items[0]!
      expect(record).toMatchObject({ action: "exchange", resource_type: "api_key", response_status_code: 400 })
      expect(JSON.stringify(record)).not.toContain(token)
    })
  }

  it("answers malformed requests in OAuth's terms", async () => {
    const token = await issuer.mint({ "kubernetes.io/namespace": "ci" })
    const cases: ReadonlyArray<readonly [Record<string, string>, string, string?]> = [
      [{ ...tokenRequest(token), grant_type: "client_credentials" }, "unsupported_grant_type"],
      [{ grant_type: TOKEN_EXCHANGE_GRANT, subject_token_type: JWT_TOKEN_TYPE }, "invalid_request"],
      [tokenRequest(token, { subject_token_type: "urn:ietf:params:oauth:token-type:saml2" }), "invalid_request"],
      [tokenRequest("not-a-jwt"), "invalid_grant"],
      [tokenRequest(token), "invalid_request", "application/json"]
    ]
    for (const [fields, error, contentType] of cases) {
      const answer = await exchange(fields, contentType)
      expect(answer.status).toBe(400)
      expect((await jsonOf(answer)).error).toBe(error)
    }
    const twice = await fetch(`${server.baseUrl}/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `${new URLSearchParams(tokenRequest(token))}&scope=a&scope=b`
    })
    expect((await jsonOf(twice)).error).toBe("invalid_request")
  })
})

describe("the issuer's keys", () => {
  it("are fetched once when the issuer rotates its key (unknown kid), and not again within the cooldown", async () => {
    const claims = { "kubernetes.io/namespace": "ci" }
    // Made first: an RSA key takes a while to generate, and the cooldown below is measured in real time.
    const unpublished = { ...(await issuer.strangerKey()), kid: "never-published" }
    expect((await exchange(tokenRequest(await issuer.mint(claims)))).status).toBe(200)
    const before = issuer.jwksFetches()
    await issuer.rotate()
    await sleep(COOLDOWN_MS + 50)
    // Several workloads with new tokens at once: one fetch between them.
    const answers = await Promise.all(
      Array.from({ length: 4 }, async () => exchange(tokenRequest(await issuer.mint(claims))))
    )
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200])
    expect(issuer.jwksFetches()).toBe(before + 1)
    // Known keys now: no fetch. A kid nobody published, inside the cooldown: refused, no fetch either.
    expect((await exchange(tokenRequest(await issuer.mint(claims)))).status).toBe(200)
    const forged = await issuer.mint(claims, { key: unpublished })
    expect((await exchange(tokenRequest(forged))).status).toBe(400)
    expect(issuer.jwksFetches()).toBe(before + 1)
  })
})

describe("the issued credential", () => {
  it("stops working at its expiry", async () => {
    expect(
      (await createPolicy({ audience: "short", subject: "system:serviceaccount:ci:short", max_ttl_seconds: 2 }))
        .status
    ).toBe(201)
    const issued = await jsonOf(
      await exchange(tokenRequest(await issuer.mint({ aud: "short", sub: "system:serviceaccount:ci:short" })))
    )
    expect(issued.expires_in).toBe(2)
    expect((await server.request("/v1/prompts", { key: issued.access_token })).status).toBe(200)
    clock.advance(2_500)
    const expired = await server.request("/v1/prompts", { key: issued.access_token })
    expect(expired.status).toBe(401)
    expect((await errorOf(expired)).message).toContain("expired")
  })
})

describe("trust policies", () => {
  it("never give a workload scopes the policy's writer lacks (refused, naming them)", async () => {
    const weaker = await server.send("POST", "/v1/api-keys/organisation/service", {
      name: "weaker admin",
      scopes: ["workspace_service_api_keys.create", "prompts.list", "api_keys.list"]
    })
    const { key } = await jsonOf(weaker)
    const refused = await createPolicy({ subject: "ci", scopes: ["prompts.list", "prompts.delete"] }, key)
    expect(refused.status).toBe(403)
    expect((await errorOf(refused)).message).toContain("prompts.delete")
    expect((await createPolicy({ subject: "ci", scopes: ["prompts.list"] }, key)).status).toBe(201)
    const before = (await jsonOf(await server.request("/v1/admin/trust-policies"))).total
    expect((await createPolicy({ subject: "ci", scopes: ["prompts.delete"] }, key)).status).toBe(403)
    expect((await jsonOf(await server.request("/v1/admin/trust-policies"))).total).toBe(before)
  })

  it("refuse what is not safe to trust, naming the field", async () => {
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [{ subject: "x", issuer: "http://issuer.example" }, "issuer"],
      [{ subject: "x", jwks_uri: "ftp://issuer.example/keys" }, "jwks_uri"],
      [{ subject: "x", max_ttl_seconds: 3601 }, "max_ttl_seconds"],
      [{ subject_pattern: "**" }, "subject_pattern"],
      [{ subject: "x", subject_pattern: "x*" }, "subject_pattern"],
      [{ audience: "neither" }, "subject"],
      [{ subject: "x", claims: { sub: "y" } }, "claims.sub"],
      [{ subject: "x", jwks_uri: undefined, jwks: { keys: [{ kty: "oct", k: "c2VjcmV0" }] } }, "jwks.keys[0]"],
      [
        { subject: "x", jwks_uri: undefined, jwks: { keys: [{ kty: "RSA", n: "AQAB", e: "AQAB", d: "AQAB" }] } },
        "jwks.keys[0]"
      ],
      [
        { subject: "x", jwks_uri: undefined, jwks: { keys: [{ kty: "EC", crv: "P-256", x: "AA", y: "AA" }] } },
        "jwks.keys[0]"
      ]
    ]
    for (const [fields, param] of cases) {
      const answer = await createPolicy(fields)
      expect(answer.status, JSON.stringify(fields)).toBe(400)
      expect((await errorOf(answer)).param).toBe(param)
    }
  })

  it("are read, replaced and deleted by owners' and admins' admin keys; a deleted one exchanges nothing", async () => {
    const created = await jsonOf(await createPolicy({ audience: "crud", subject: "crud" }))
    const one = await jsonOf(await server.request(`/v1/admin/trust-policies/${created.id}`))
    expect(one).toMatchObject({ id: created.id, object: "trust-policy", subject: "crud", claims: {} })
    const replaced = await server.send("PUT", `/v1/admin/trust-policies/${created.id}`, {
      name: one.name,
      issuer: one.issuer,
      jwks_uri: one.jwks_uri,
      audience: "crud",
      subject: "crud",
      workspace_id: server.workspaceId,
      scopes: ["prompts.list"],
      max_ttl_seconds: 60
    })
    expect(replaced.status).toBe(200)
    const token = await issuer.mint({ aud: "crud", sub: "crud" })
    expect((await jsonOf(await exchange(tokenRequest(token)))).expires_in).toBe(60)

    const workspaceKey = await jsonOf(
      await server.send("POST", "/v1/api-keys/workspace/service", {
        name: "ws",
        scopes: ["api_keys.list", "workspace_service_api_keys.create"],
        workspace_id: server.workspaceId
      })
    )
    expect((await server.request("/v1/admin/trust-policies", { key: workspaceKey.key })).status).toBe(403)

    expect((await server.send("DELETE", `/v1/admin/trust-policies/${created.id}`, undefined)).status).toBe(200)
    expect((await server.request(`/v1/admin/trust-policies/${created.id}`)).status).toBe(404)
    expect((await jsonOf(await exchange(tokenRequest(token)))).error).toBe("invalid_grant")
  })
})

describe("the audit log", () => {
  it("still verifies with workload records in it", async () => {
    const verdict = await server.runtime.runPromise(Audit.use((audit) => audit.verify()))
    expect(verdict).toMatchObject({ ok: true })
  })
})
