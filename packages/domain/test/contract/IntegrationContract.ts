/**
 * The store contract for AI-provider integrations: slugs unique per organisation, found by id and slug, listed
 * by level and by the workspaces that may use them (their own, shared ones, globally open ones), replaced
 * (secrets as given, encrypted) and deleted.
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import {
  CredentialHealth,
  CredentialHealthStore,
  Integration,
  IntegrationStore,
  type StoredIntegration,
  WorkspaceStore
} from "../../src/index.ts"
import { at, type Harness, uid, workspace } from "./ContractHarness.ts"

export const integrationContract = ({ exit, freshOrganisation, run }: Harness) => {
  const integration = (
    organisationId: string,
    slug: string,
    fields: Partial<Integration> = {}
  ): StoredIntegration => {
    const now = at()
    return {
      record: new Integration({
        id: uid(),
        organisation_id: organisationId,
        workspace_id: null,
        name: `Integration ${slug}`,
        slug,
        ai_provider_id: "bedrock",
        description: null,
        status: "active",
        masked_key: null,
        configurations: {
          aws_auth_type: "accessKey",
          aws_region: "us-east-1",
          masked_aws_secret_access_key: "********"
        },
        secret_mappings: [],
        global_workspace_access_settings: null,
        workspaces: [],
        allow_all_models: true,
        models: [],
        created_at: now,
        last_updated_at: now,
        ...fields
      }),
      encryptedSecrets: { "configurations.aws_secret_access_key": "v1:sealed" }
    }
  }
  const integrations = <A, E>(use: (store: IntegrationStore["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(Effect.service(IntegrationStore), use)

  it("keeps slugs unique per organisation, lists by level and by who may use them, replaces and deletes", async () => {
    const [org, other] = [await freshOrganisation(), await freshOrganisation()]
    const [team, elsewhere] = [workspace(org.id), workspace(org.id)]
    await run(
      Effect.flatMap(Effect.service(WorkspaceStore), (s) => Effect.forEach([team, elsewhere], (w) => s.insert(w)))
    )
    const shared = integration(org.id, "shared", {
      workspaces: [
        { id: team.id, enabled: true, usage_limits: [{ credit_limit: 5 }], rate_limits: null },
        { id: elsewhere.id, enabled: false, usage_limits: null, rate_limits: null }
      ],
      models: [{ slug: "gpt-4o", enabled: true, is_custom: false }],
      allow_all_models: false
    })
    const global = integration(org.id, "global", { global_workspace_access_settings: { enabled: true } })
    const own = integration(org.id, "own", {
      workspace_id: elsewhere.id,
      ai_provider_id: "openai",
      masked_key: "sk-a****bcde",
      configurations: { openai_project: "p" },
      secret_mappings: [{ target_field: "key", secret_reference_id: "vault-openai", secret_key: null }]
    })
    const closed = integration(org.id, "closed")
    const foreign = integration(other.id, "shared")
    await run(Effect.forEach([shared, global, own, closed, foreign], (i) => integrations((s) => s.insert(i))))
    expect(JSON.stringify(await exit(integrations((s) => s.insert(integration(org.id, "shared")))))).toContain(
      "Conflict"
    )
    const page = { limit: 10, offset: 0 }
    const read = await run(integrations((s) =>
      Effect.all({
        one: s.get(own.record.id),
        bySlug: s.findBySlug(org.id, "shared"),
        all: s.list(org.id, { usableBy: null, level: "all" }, page),
        organisation: s.list(org.id, { usableBy: null, level: "organisation" }, page),
        workspace: s.list(org.id, { usableBy: null, level: "workspace" }, page),
        team: s.list(org.id, { usableBy: team.id, level: "all" }, page),
        elsewhere: s.list(org.id, { usableBy: elsewhere.id, level: "all" }, page),
        second: s.list(org.id, { usableBy: null, level: "all" }, { limit: 1, offset: 1 })
      })
    ))
    expect(Option.getOrThrow(read.one)).toEqual(own)
    expect(Option.getOrThrow(read.bySlug)).toEqual(shared)
    expect(read.all).toEqual({ items: [shared, global, own, closed].map((i) => i.record), total: 4 })
    expect(read.organisation.items.map((i) => i.slug)).toEqual(["shared", "global", "closed"])
    expect(read.workspace.items.map((i) => i.slug)).toEqual(["own"])
    expect(read.team.items.map((i) => i.slug)).toEqual(["shared", "global"])
    expect(read.elsewhere.items.map((i) => i.slug)).toEqual(["global", "own"])
    expect(read.second).toEqual({ items: [global.record], total: 4 })

    const replaced: StoredIntegration = {
      record: new Integration({
        ...shared.record,
        name: "Renamed",
        global_workspace_access_settings: { enabled: false }
      }),
      encryptedSecrets: { "configurations.aws_secret_access_key": "v1:resealed" }
    }
    expect(await run(integrations((s) => s.update(replaced)))).toBe(true)
    expect(
      JSON.stringify(
        await exit(
          integrations((s) => s.update({ ...replaced, record: new Integration({ ...replaced.record, slug: "own" }) }))
        )
      )
    ).toContain("Conflict")
    expect(Option.getOrThrow(await run(integrations((s) => s.get(shared.record.id))))).toEqual(replaced)
    expect(await run(integrations((s) => s.delete(shared.record.id)))).toBe(true)
    expect(await run(integrations((s) => s.delete(shared.record.id)))).toBe(false)
    expect(Option.isNone(await run(integrations((s) => s.findBySlug(org.id, "shared"))))).toBe(true)
  })
  it("walks the active integrations of every organisation by id, page by page, archived ones left out", async () => {
    const [org, other] = [await freshOrganisation(), await freshOrganisation()]
    const made = [
      integration(org.id, "walk-a"),
      integration(other.id, "walk-b"),
      integration(org.id, "walk-c", { status: "archived" }),
      integration(other.id, "walk-d")
    ]
    await run(Effect.forEach(made, (i) => integrations((s) => s.insert(i))))
    const walked: Array<string> = []
    let after: string | null = null
    while (true) {
      const from: string | null = after
      const page: ReadonlyArray<Integration> = await run(integrations((s) => s.listActive(from, 2)))
      walked.push(...page.map((i) => i.id))
      expect(page.every((i) => i.status === "active")).toBe(true)
      if (page.length < 2) break
      after = page[page.length - 1].id
    }
    expect(walked).toEqual([...walked].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
    expect(new Set(walked).size).toBe(walked.length)
    for (const i of [made[0], made[1], made[3]]) expect(walked).toContain(i.record.id)
    expect(walked).not.toContain(made[2].record.id)
  })

  it("keeps the last credential check of an integration, replaced by the next", async () => {
    const org = await freshOrganisation()
    const checked = integration(org.id, "checked", { ai_provider_id: "openai" })
    await run(integrations((s) => s.insert(checked)))
    const health = (fields: Partial<CredentialHealth>) =>
      new CredentialHealth({
        integration_id: checked.record.id,
        status: "active",
        status_message: null,
        checked_at: "2026-02-01T00:00:00.000Z",
        last_success_at: "2026-02-01T00:00:00.000Z",
        last_failure_at: null,
        ...fields
      })
    const store = <A, E>(use: (s: CredentialHealthStore["Service"]) => Effect.Effect<A, E>) =>
      Effect.flatMap(Effect.service(CredentialHealthStore), use)
    expect(Option.isNone(await run(store((s) => s.get(checked.record.id))))).toBe(true)
    await run(store((s) => s.put(health({}))))
    expect(Option.getOrThrow(await run(store((s) => s.get(checked.record.id))))).toEqual(health({}))
    const failing = health({
      status: "failing",
      status_message: "The provider answered 401: Incorrect API key provided",
      checked_at: "2026-02-01T00:05:00.000Z",
      last_failure_at: "2026-02-01T00:05:00.000Z"
    })
    await run(store((s) => s.put(failing)))
    expect(Option.getOrThrow(await run(store((s) => s.get(checked.record.id))))).toEqual(failing)

    // A list's page reads the health of all its integrations at once: the checked ones, and nothing for the others.
    const unchecked = integration(org.id, "unchecked", { ai_provider_id: "openai" })
    await run(integrations((s) => s.insert(unchecked)))
    const many = await run(store((s) => s.getMany([checked.record.id, unchecked.record.id, "no-such-integration"])))
    expect([...many.entries()]).toEqual([[checked.record.id, failing]])
    expect((await run(store((s) => s.getMany([])))).size).toBe(0)
  })
}
