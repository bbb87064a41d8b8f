/**
 * The store contract for trust policies (names unique per organisation, found by issuer across organisations,
 * replaced and deleted), and for the workload a credential issued by token exchange stands for.
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { WorkspaceStore } from "../../src/access/AccessStores.ts"
import { ApiKey, ApiKeyStore, TrustPolicy, TrustPolicyStore } from "../../src/index.ts"
import { apiKey, at, type Harness, uid, workspace } from "./ContractHarness.ts"

export const trustPolicyContract = ({ exit, freshOrganisation, run }: Harness) => {
  const policy = (organisationId: string, workspaceId: string, name: string, issuer: string) => {
    const now = at()
    return new TrustPolicy({
      id: uid(),
      organisation_id: organisationId,
      workspace_id: workspaceId,
      name,
      issuer,
      jwks_uri: null,
      jwks: { keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y", kid: "one" }] },
      audience: "gateway",
      subject: null,
      subject_pattern: "repo:org/*:ref:refs/heads/main",
      claims: { repository_owner: "org", run_attempt: 1, protected: true },
      scopes: ["prompts.render"],
      rate_limits: [{ type: "requests", unit: "rpm", value: 60 }],
      max_ttl_seconds: 900,
      created_at: now,
      created_by_user_id: null,
      created_by_api_key_id: "k",
      last_updated_at: now
    })
  }
  const policies = <A, E>(use: (store: TrustPolicyStore["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(Effect.service(TrustPolicyStore), use)

  it("keeps names unique per organisation, finds policies by issuer in any organisation, replaces and deletes", async () => {
    const [org, other] = [await freshOrganisation(), await freshOrganisation()]
    const [w, v] = [workspace(org.id), workspace(other.id)]
    const issuer = `https://${uid()}.example`
    const first = policy(org.id, w.id, "ci", issuer)
    const second = policy(other.id, v.id, "ci", issuer)
    const elsewhere = policy(org.id, w.id, "k8s", "https://k8s.example")
    await run(Effect.gen(function*() {
      yield* Effect.forEach([w, v], (yield* WorkspaceStore).insert)
      for (const p of [first, second, elsewhere]) yield* policies((s) => s.insert(p))
    }))
    expect(JSON.stringify(await exit(policies((s) => s.insert(policy(org.id, w.id, "ci", issuer)))))).toContain(
      "Conflict"
    )
    const read = await run(policies((s) =>
      Effect.all({
        one: s.get(first.id),
        byIssuer: s.findByIssuer(issuer),
        listed: s.list(org.id, { limit: 10, offset: 0 })
      })
    ))
    expect(Option.getOrThrow(read.one)).toEqual(first)
    expect(read.byIssuer.map((p) => p.id)).toEqual([first.id, second.id])
    expect(read.listed).toEqual({ items: [first, elsewhere], total: 2 })

    const replaced = new TrustPolicy({ ...first, jwks: null, jwks_uri: `${issuer}/keys`, max_ttl_seconds: 60 })
    expect(await run(policies((s) => s.update(replaced)))).toBe(true)
    expect(JSON.stringify(await exit(policies((s) => s.update(new TrustPolicy({ ...replaced, name: "k8s" }))))))
      .toContain(
        "Conflict"
      )
    expect(Option.getOrThrow(await run(policies((s) => s.get(first.id))))).toEqual(replaced)
    expect(await run(policies((s) => s.delete(first.id)))).toBe(true)
    expect(await run(policies((s) => s.delete(first.id)))).toBe(false)
    expect(Option.isNone(await run(policies((s) => s.get(first.id))))).toBe(true)
  })

  it("keeps the workload a credential stands for", async () => {
    const org = await freshOrganisation()
    const w = workspace(org.id)
    const key = new ApiKey({
      ...apiKey(org.id, w.id),
      workload: { trust_policy_id: uid(), issuer: "https://token.actions.githubusercontent.com", subject: "repo:o/r" }
    })
    const found = await run(Effect.gen(function*() {
      yield* (yield* WorkspaceStore).insert(w)
      const store = yield* ApiKeyStore
      yield* store.insert({ key, digest: `d-${key.id}` })
      return yield* store.get(key.id)
    }))
    expect(Option.getOrThrow(found)).toEqual(key)
  })
}
