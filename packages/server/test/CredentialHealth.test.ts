/**
 * Credential health (issue #29, point 5): an integration's credential tried at its provider (listing models) on
 * demand (`POST /v1/integrations/{slug}/test`, audited) and in the background every CREDENTIAL_HEALTH_INTERVAL_MS;
 * `active`, `failing` with the provider's error, or `expired`, with the last success and failure, shown on the
 * integration's and its providers' reads. An integration whose fake provider starts answering 401 reads `failing`
 * with the reason within one probe interval. The key goes only to the integration's own destination.
 */
import * as PrometheusMetrics from "effect/observability/PrometheusMetrics"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { providerRegistry } from "../src/App.ts"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import { availableStores, errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

/** The probe interval of this test: short, so a change is seen soon. */
const INTERVAL_MS = 400

/** Polls `read` until `done` holds of its answer, for at most `timeoutMs` (generous: the machine may be loaded). */
const eventually = async <A>(read: () => Promise<A>, done: (a: A) => boolean, timeoutMs = 30_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  let last = await read()
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms: ${JSON.stringify(last)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
    last = await read()
  }
  return last
}

describe.each(availableStores)("credential health on %s", (store) => {
  let server: TestServer
  /** The provider `openai`'s base URL. */
  let primary: FakeProvider
  /** The custom host of the integration whose key is revoked during the test. */
  let upstream: FakeProvider
  let workspaceKey: string

  const read = async (path: string, key?: string) =>
    jsonOf(await server.request(path, key === undefined ? {} : { key }))
  const modelCalls = (fake: FakeProvider) => fake.requests.filter((r) => r.url === "/v1/models")

  beforeAll(async () => {
    ;[primary, upstream] = await Promise.all([startFakeProvider("primary"), startFakeProvider("upstream")])
    server = await startTestServer({
      store,
      credentialHealthIntervalMs: INTERVAL_MS,
      providers: {
        registry: providerRegistry({
          providerBaseUrls: [["openai", primary.baseUrl]],
          upstreamTimeoutMs: 5_000,
          trustedCustomHosts: [upstream.host]
        }),
        masterKey: new Uint8Array(randomBytes(32))
      }
    })
    const integrations = [
      {
        name: "Probed",
        slug: "probed",
        ai_provider_id: "openai",
        key: "sk-good",
        configurations: { custom_host: upstream.baseUrl }
      },
      { name: "Plain", slug: "plain", ai_provider_id: "openai", key: "sk-good" },
      {
        name: "Old",
        slug: "old",
        ai_provider_id: "openai",
        key: "sk-expired",
        configurations: { custom_host: upstream.baseUrl }
      },
      {
        name: "Inside",
        slug: "inside",
        ai_provider_id: "openai",
        key: "sk-good",
        configurations: { custom_host: "http://10.1.2.3/v1" }
      },
      {
        name: "Bedrock",
        slug: "bedrock",
        ai_provider_id: "bedrock",
        configurations: {
          aws_auth_type: "assumedRole",
          aws_region: "us-east-1",
          aws_role_arn: "arn:aws:iam::123456789012:role/gw"
        }
      }
    ]
    for (const body of integrations) {
      const made = await server.send("POST", "/v1/integrations", body)
      expect(made.status, await made.clone().text()).toBe(201)
    }
    expect(
      (await server.send("PUT", "/v1/integrations/probed/workspaces", {
        workspaces: [{ id: server.workspaceId, enabled: true }]
      })).status
    ).toBe(200)
    expect(
      (await server.send("POST", "/v1/providers", {
        name: "Probed",
        slug: "probed",
        integration_id: "probed",
        workspace_id: server.workspaceId
      })).status
    ).toBe(201)
    workspaceKey = (await jsonOf(
      await server.send("POST", "/v1/api-keys/workspace/service", {
        name: "reader",
        workspace_id: server.workspaceId,
        scopes: ["virtual_keys.read", "workspace_integrations.read"]
      })
    )).key
  })
  afterAll(async () => {
    await server?.close()
    await Promise.all([primary, upstream].map((fake) => fake?.close()))
  })

  it("is active while the provider takes the key, and failing with its reason within one interval of a 401", async () => {
    const active = await eventually(() => read("/v1/integrations/probed"), (i) => i.credential_health !== undefined)
    expect(active.credential_health).toMatchObject({ status: "active", status_message: null, last_failure_at: null })
    expect(active.credential_health.last_success_at).toBe(active.credential_health.checked_at)

    // The provider's key is revoked there: from now on it answers 401.
    const revokedAt = Date.now()
    upstream.revoked.add("sk-good")
    const failing = await eventually(
      () => read("/v1/integrations/probed"),
      (i) => i.credential_health.status !== "active"
    )
    const seenAfter = Date.now() - revokedAt
    expect(failing.credential_health).toMatchObject({ status: "failing" })
    expect(failing.credential_health.status_message).toContain("401")
    expect(failing.credential_health.status_message).toContain("Incorrect API key provided")
    // The last success stays, the failure is new: the check after the revoke found it, one interval at most later
    // (plus the time of one check on a loaded machine).
    expect(Date.parse(failing.credential_health.last_success_at)).toBeLessThanOrEqual(revokedAt + 1_000)
    const failedAt = Date.parse(failing.credential_health.last_failure_at)
    expect(failedAt).toBeGreaterThanOrEqual(revokedAt - 1_000)
    expect(failedAt - revokedAt).toBeLessThan(INTERVAL_MS + 5_000)
    console.log(`credential health: failing seen ${seenAfter} ms after the revoke (interval ${INTERVAL_MS} ms)`)

    // Its provider's read shows the same, and so does the list (the page's health read in one go).
    const provider = await read(`/v1/providers/probed?workspace_id=${server.workspaceId}`, workspaceKey)
    expect(provider.credential_health).toMatchObject({ status: "failing" })
    const listed = await read("/v1/integrations")
    expect(listed.data.find((i: { slug: string }) => i.slug === "probed")?.credential_health).toMatchObject({
      status: "failing",
      last_success_at: failing.credential_health.last_success_at
    })

    upstream.revoked.delete("sk-good")
    const recovered = await eventually(
      () => read("/v1/integrations/probed"),
      (i) => i.credential_health.status === "active"
    )
    expect(recovered.credential_health.last_failure_at).toBe(failing.credential_health.last_failure_at)
  })

  it("sends each key only to its integration's destination", async () => {
    await eventually(async () => modelCalls(primary).length, (n) => n >= 1)
    // The integration without a custom host goes to the provider's base URL; the others to their own host.
    expect(new Set(modelCalls(primary).map((r) => r.authorization))).toEqual(new Set(["Bearer sk-good"]))
    expect(new Set(modelCalls(upstream).map((r) => r.authorization))).toEqual(
      new Set(["Bearer sk-good", "Bearer sk-expired"])
    )
  })

  it("reads expired when the provider says the key expired", async () => {
    const old = await eventually(() => read("/v1/integrations/old"), (i) => i.credential_health !== undefined)
    expect(old.credential_health).toMatchObject({ status: "expired", last_success_at: null })
    expect(old.credential_health.status_message).toContain("expired")
  })

  it("reads failing, without connecting, when the custom host leads inside", async () => {
    const inside = await eventually(() => read("/v1/integrations/inside"), (i) => i.credential_health !== undefined)
    expect(inside.credential_health.status).toBe("failing")
    expect(inside.credential_health.status_message).toContain("not a public address")
  })

  it("tests on demand, audited, and refuses types it cannot call and callers who may not change it", async () => {
    const tested = await server.send("POST", "/v1/integrations/plain/test", undefined)
    expect(tested.status).toBe(200)
    const answer = await jsonOf(tested)
    expect(answer).toMatchObject({ status: "active", status_message: null })
    expect(answer.integration_id).toBeUndefined()
    const records = (await jsonOf(
      await server.request("/v1/audit-logs?resource_type=integration&action=test&page_size=100")
    )).records as Array<Record<string, unknown>>
    expect(records[0]).toMatchObject({ response_status_code: 200, request_body: { status: "active" } })

    expect(await errorOf(await server.send("POST", "/v1/integrations/bedrock/test", undefined))).toMatchObject({
      status: 400
    })
    expect((await read("/v1/integrations/bedrock")).credential_health).toBeUndefined()
    const denied = await server.send("POST", "/v1/integrations/probed/test", undefined, workspaceKey)
    expect([403, 404]).toContain(denied.status)
    expect((await errorOf(await server.send("POST", "/v1/integrations/nope/test", undefined))).status).toBe(404)
  })

  it("counts checks by the status they found", async () => {
    const text = await server.runtime.runPromise(PrometheusMetrics.format())
    const count = (status: string) =>
      Number(
        new RegExp(`gateway_credential_health_checks_total\\{[^}]*status="${status}"[^}]*\\} (\\d+)`).exec(text)?.[1] ??
          0
      )
    expect(count("active")).toBeGreaterThan(0)
    expect(count("failing")).toBeGreaterThan(0)
    expect(count("expired")).toBeGreaterThan(0)
  })
})
