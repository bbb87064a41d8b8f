/**
 * The store contract: one suite of repository tests that every implementation of the ports must pass.
 * Call `storeContract(name, layer)` from an adapter's tests with a layer that builds a fresh store.
 */
import { Effect, Exit, type Layer, ManagedRuntime, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { OrganisationStore, UserStore, WorkspaceMemberStore, WorkspaceStore } from "../../src/access/AccessStores.ts"
import { ApiKeyStore } from "../../src/credentials/ApiKeyStore.ts"
import {
  ApiKey,
  McpIntegration,
  McpIntegrationStore,
  McpServer,
  McpServerStore,
  Organisation,
  Partial,
  PartialStore,
  PartialVersion,
  Prompt,
  PromptLabel,
  PromptStore,
  PromptVersion,
  User,
  Workspace,
  WorkspaceMember
} from "../../src/index.ts"
import { StoreTransaction } from "../../src/shared/StoreTransaction.ts"

export type Stores =
  | McpIntegrationStore
  | McpServerStore
  | PromptStore
  | PartialStore
  | OrganisationStore
  | WorkspaceStore
  | UserStore
  | WorkspaceMemberStore
  | ApiKeyStore
  | StoreTransaction

let counter = 0
const uid = () => `${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 10)}`
// Distinct, increasing timestamps so that creation order is unambiguous.
let clock = Date.parse("2026-01-01T00:00:00.000Z")
const at = () => new Date(clock += 1000).toISOString()

const organisation = () => {
  const now = at()
  return new Organisation({ id: uid(), name: "Org", created_at: now, last_updated_at: now })
}
const workspace = (organisationId: string, slug = `ws-${uid()}`) => {
  const now = at()
  return new Workspace({
    id: uid(),
    organisation_id: organisationId,
    name: `Workspace ${slug}`,
    slug,
    description: null,
    created_at: now,
    last_updated_at: now
  })
}
const user = (organisationId: string, email = `${uid()}@example.com`) => {
  const now = at()
  return new User({
    id: uid(),
    organisation_id: organisationId,
    email,
    name: null,
    role: "member",
    created_at: now,
    last_updated_at: now
  })
}
const apiKey = (
  organisationId: string,
  workspaceId: string | null,
  createdBy: { readonly userId: string | null; readonly keyId: string } | null = null
) => {
  const now = at()
  return new ApiKey({
    id: uid(),
    type: workspaceId === null ? "organisation-service" : "workspace-service",
    name: "key",
    description: "a key",
    organisation_id: organisationId,
    workspace_id: workspaceId,
    user_id: null,
    scopes: ["workspaces.read", "prompts.render"],
    status: "active",
    masked_key: "gwc_****abcd",
    created_at: now,
    created_by_user_id: createdBy?.userId ?? null,
    created_by_api_key_id: createdBy?.keyId ?? null,
    last_updated_at: now,
    expires_at: "2030-01-01T00:00:00.000Z"
  })
}

export const storeContract = <E>(name: string, makeLayer: () => Layer.Layer<Stores, E>) => {
  describe(`store contract: ${name}`, () => {
    let runtime: ManagedRuntime.ManagedRuntime<Stores, E>
    const run = <A, E2>(effect: Effect.Effect<A, E2, Stores>) => runtime.runPromise(effect)
    const exit = <A, E2>(effect: Effect.Effect<A, E2, Stores>) => runtime.runPromiseExit(effect)

    beforeAll(async () => {
      runtime = ManagedRuntime.make(makeLayer())
      await runtime.runPromise(Effect.void)
    }, 120_000)
    afterAll(() => runtime?.dispose())

    /** A fresh organisation for each test, so tests share the store but not their data. */
    const freshOrganisation = () =>
      run(Effect.gen(function*() {
        const org = organisation()
        yield* (yield* OrganisationStore).insert(org)
        return org
      }))

    it("answers the readiness ping", async () => {
      await run(Effect.flatMap(Effect.service(StoreTransaction), (t) => t.ping))
    })

    it("stores and reads organisations; first is the oldest", async () => {
      const org = await freshOrganisation()
      const got = await run(Effect.flatMap(Effect.service(OrganisationStore), (s) => s.get(org.id)))
      expect(Option.getOrThrow(got)).toEqual(org)
      const oldest = await run(Effect.flatMap(Effect.service(OrganisationStore), (s) => s.first))
      expect(Option.isSome(oldest)).toBe(true)
      expect(Option.getOrThrow(oldest).created_at <= org.created_at).toBe(true)
      const missing = await run(Effect.flatMap(Effect.service(OrganisationStore), (s) => s.get("no-such-id")))
      expect(Option.isNone(missing)).toBe(true)
    })

    it("keeps workspace slugs unique per organisation", async () => {
      const org = await freshOrganisation()
      const other = await freshOrganisation()
      const w = workspace(org.id, "team")
      await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.insert(w)))
      const duplicate = await exit(
        Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.insert(workspace(org.id, "team")))
      )
      expect(Exit.isFailure(duplicate)).toBe(true)
      expect(JSON.stringify(duplicate)).toContain("Conflict")
      await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.insert(workspace(other.id, "team"))))
      const bySlug = await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.findBySlug(org.id, "team")))
      expect(Option.getOrThrow(bySlug)).toEqual(w)
      const got = await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.get(w.id)))
      expect(Option.getOrThrow(got)).toEqual(w)
    })

    it("pages workspaces in creation order with an exact total, also past the end", async () => {
      const org = await freshOrganisation()
      const created = Array.from({ length: 7 }, () => workspace(org.id))
      await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => Effect.forEach(created, s.insert)))
      const pages = await run(
        Effect.flatMap(
          Effect.service(WorkspaceStore),
          (s) => Effect.forEach([0, 1, 2, 3], (page) => s.list(org.id, { limit: 3, offset: page * 3 }))
        )
      )
      expect(pages.map((p) => p.total)).toEqual([7, 7, 7, 7])
      expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1, 0])
      expect(pages.flatMap((p) => p.items.map((w) => w.id))).toEqual(created.map((w) => w.id))
    })

    it("keeps user emails unique per organisation, ignoring case", async () => {
      const org = await freshOrganisation()
      const u = user(org.id, "Person@Example.com")
      await run(Effect.flatMap(Effect.service(UserStore), (s) => s.insert(u)))
      const duplicate = await exit(
        Effect.flatMap(Effect.service(UserStore), (s) => s.insert(user(org.id, "person@example.com")))
      )
      expect(JSON.stringify(duplicate)).toContain("Conflict")
      const listed = await run(
        Effect.flatMap(Effect.service(UserStore), (s) => s.list(org.id, { limit: 10, offset: 0 }))
      )
      expect(listed.total).toBe(1)
      expect(listed.items[0].id).toBe(u.id)
    })

    it("adds members, changes their role, lists and removes them", async () => {
      const org = await freshOrganisation()
      const w = workspace(org.id)
      const [a, b] = [user(org.id), user(org.id)]
      await run(Effect.gen(function*() {
        yield* (yield* WorkspaceStore).insert(w)
        yield* (yield* UserStore).insert(a)
        yield* (yield* UserStore).insert(b)
        const members = yield* WorkspaceMemberStore
        yield* members.upsert(
          new WorkspaceMember({ workspace_id: w.id, user_id: a.id, role: "member", created_at: at() })
        )
        yield* members.upsert(
          new WorkspaceMember({ workspace_id: w.id, user_id: b.id, role: "member", created_at: at() })
        )
        yield* members.upsert(
          new WorkspaceMember({ workspace_id: w.id, user_id: a.id, role: "manager", created_at: at() })
        )
      }))
      const got = await run(Effect.flatMap(Effect.service(WorkspaceMemberStore), (s) => s.get(w.id, a.id)))
      expect(Option.getOrThrow(got).role).toBe("manager")
      const listed = await run(
        Effect.flatMap(Effect.service(WorkspaceMemberStore), (s) => s.list(w.id, { limit: 10, offset: 0 }))
      )
      expect(listed.items.map((m) => m.user_id)).toEqual([a.id, b.id])
      expect(listed.total).toBe(2)
      const removed = await run(Effect.flatMap(Effect.service(WorkspaceMemberStore), (s) => s.remove(w.id, b.id)))
      const again = await run(Effect.flatMap(Effect.service(WorkspaceMemberStore), (s) => s.remove(w.id, b.id)))
      expect([removed, again]).toEqual([true, false])
    })

    it("stores API keys by digest, lists them by organisation and workspace, and revokes them", async () => {
      const org = await freshOrganisation()
      const w = workspace(org.id)
      const admin = apiKey(org.id, null)
      const scoped = apiKey(org.id, w.id)
      await run(Effect.gen(function*() {
        yield* (yield* WorkspaceStore).insert(w)
        const keys = yield* ApiKeyStore
        yield* keys.insert({ key: admin, digest: `d-${admin.id}` })
        yield* keys.insert({ key: scoped, digest: `d-${scoped.id}` })
      }))
      const found = await run(Effect.flatMap(Effect.service(ApiKeyStore), (s) => s.findByDigest(`d-${scoped.id}`)))
      expect(Option.getOrThrow(found)).toEqual({ key: scoped, digest: `d-${scoped.id}` })
      const duplicate = await exit(
        Effect.flatMap(
          Effect.service(ApiKeyStore),
          (s) => s.insert({ key: apiKey(org.id, null), digest: `d-${admin.id}` })
        )
      )
      expect(JSON.stringify(duplicate)).toContain("Conflict")
      const all = await run(
        Effect.flatMap(Effect.service(ApiKeyStore), (s) => s.list(org.id, null, { limit: 10, offset: 0 }))
      )
      expect(all.items.map((k) => k.id)).toEqual([admin.id, scoped.id])
      const inWorkspace = await run(
        Effect.flatMap(Effect.service(ApiKeyStore), (s) => s.list(org.id, w.id, { limit: 10, offset: 0 }))
      )
      expect(inWorkspace.items.map((k) => k.id)).toEqual([scoped.id])
      const revokedAt = at()
      expect(await run(Effect.flatMap(Effect.service(ApiKeyStore), (s) => s.revoke(scoped.id, revokedAt)))).toBe(true)
      expect(await run(Effect.flatMap(Effect.service(ApiKeyStore), (s) => s.revoke("no-such-key", revokedAt)))).toBe(
        false
      )
      const revoked = await run(Effect.flatMap(Effect.service(ApiKeyStore), (s) => s.get(scoped.id)))
      expect(Option.getOrThrow(revoked)).toMatchObject({ status: "revoked", last_updated_at: revokedAt })
    })

    it("keeps who created each API key, and null for a key without a recorded creator", async () => {
      const org = await freshOrganisation()
      const w = workspace(org.id)
      const creator = user(org.id)
      const uncredited = apiKey(org.id, null)
      const byUser = apiKey(org.id, w.id, { userId: creator.id, keyId: uncredited.id })
      const byServiceKey = apiKey(org.id, w.id, { userId: null, keyId: byUser.id })
      await run(Effect.gen(function*() {
        yield* (yield* WorkspaceStore).insert(w)
        yield* (yield* UserStore).insert(creator)
        const keys = yield* ApiKeyStore
        for (const key of [uncredited, byUser, byServiceKey]) yield* keys.insert({ key, digest: `d-${key.id}` })
      }))
      const creators = (key: ApiKey) => [key.created_by_user_id, key.created_by_api_key_id]
      const expected = [[null, null], [creator.id, uncredited.id], [null, byUser.id]]
      const listed = await run(
        Effect.flatMap(Effect.service(ApiKeyStore), (s) => s.list(org.id, null, { limit: 10, offset: 0 }))
      )
      expect(listed.items.map(creators)).toEqual(expected)
      const read = await run(
        Effect.flatMap(
          Effect.service(ApiKeyStore),
          (s) =>
            Effect.forEach([uncredited, byUser, byServiceKey], (key) => Effect.map(s.get(key.id), Option.getOrThrow))
        )
      )
      expect(read.map(creators)).toEqual(expected)
      const found = await run(Effect.flatMap(Effect.service(ApiKeyStore), (s) => s.findByDigest(`d-${byUser.id}`)))
      expect(creators(Option.getOrThrow(found).key)).toEqual([creator.id, uncredited.id])
    })

    it("commits a unit of work whole, or rolls all of it back", async () => {
      const org = await freshOrganisation()
      const kept = workspace(org.id)
      const lost = [workspace(org.id), workspace(org.id)]
      await run(Effect.gen(function*() {
        const transaction = yield* StoreTransaction
        const workspaces = yield* WorkspaceStore
        yield* transaction.withTransaction(workspaces.insert(kept))
        const failed = yield* Effect.exit(transaction.withTransaction(Effect.gen(function*() {
          yield* workspaces.insert(lost[0])
          // Nested units of work join the enclosing one.
          yield* transaction.withTransaction(workspaces.insert(lost[1]))
          return yield* Effect.fail("boom")
        })))
        expect(Exit.isFailure(failed)).toBe(true)
      }))
      const listed = await run(
        Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.list(org.id, { limit: 10, offset: 0 }))
      )
      expect(listed.items.map((w) => w.id)).toEqual([kept.id])
    })

    it("runs after-commit effects once the unit of work commits, never after a rollback, at once outside one", async () => {
      const org = await freshOrganisation()
      const committed = workspace(org.id)
      const ran: Array<string> = []
      await run(Effect.gen(function*() {
        const transaction = yield* StoreTransaction
        const workspaces = yield* WorkspaceStore
        yield* transaction.afterCommit(Effect.sync(() => ran.push("outside")))
        expect(ran).toEqual(["outside"])
        yield* transaction.withTransaction(Effect.gen(function*() {
          yield* workspaces.insert(committed)
          // Registered in a nested unit of work, it waits for the enclosing one.
          yield* transaction.withTransaction(transaction.afterCommit(Effect.gen(function*() {
            // By now the change is committed: a read outside the unit of work sees it.
            const seen = yield* workspaces.get(committed.id)
            ran.push(Option.isSome(seen) ? "after commit, seen" : "after commit, unseen")
          })))
          expect(ran).toEqual(["outside"])
        }))
        yield* Effect.exit(transaction.withTransaction(Effect.andThen(
          transaction.afterCommit(Effect.sync(() => ran.push("rolled back"))),
          Effect.fail("boom")
        )))
      }))
      expect(ran).toEqual(["outside", "after commit, seen"])
    })

    it("rolls back a unit of work that ends in a conflict", async () => {
      const org = await freshOrganisation()
      const taken = workspace(org.id, "taken")
      const first = workspace(org.id)
      await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.insert(taken)))
      const result = await exit(Effect.gen(function*() {
        const workspaces = yield* WorkspaceStore
        yield* (yield* StoreTransaction).withTransaction(
          Effect.andThen(workspaces.insert(first), workspaces.insert(workspace(org.id, "taken")))
        )
      }))
      expect(JSON.stringify(result)).toContain("Conflict")
      const got = await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.get(first.id)))
      expect(Option.isNone(got)).toBe(true)
    })

    it("serialises check-then-act units of work that take the same named lock", async () => {
      const org = await freshOrganisation()
      const slug = `only-${uid()}`
      // Each unit checks that no workspace has the slug, then creates one under another slug: no constraint
      // stops the second, only the lock does.
      const attempt = Effect.gen(function*() {
        const transaction = yield* StoreTransaction
        const workspaces = yield* WorkspaceStore
        return yield* transaction.withTransaction(Effect.gen(function*() {
          yield* transaction.lock(`contract-${slug}`)
          const listed = yield* workspaces.list(org.id, { limit: 100, offset: 0 })
          if (listed.items.some((w) => w.name.startsWith(slug))) return false
          yield* Effect.sleep("20 millis")
          const w = workspace(org.id)
          yield* workspaces.insert(new Workspace({ ...w, name: `${slug} ${w.id}` }))
          return true
        }))
      })
      const results = await run(Effect.all(Array.from({ length: 6 }, () => attempt), { concurrency: "unbounded" }))
      expect(results.filter(Boolean)).toHaveLength(1)
    })

    it("stores prompts with numbered versions and labels, and deletes them whole", async () => {
      const org = await freshOrganisation()
      const w = workspace(org.id)
      await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.insert(w)))
      const now = at()
      const prompt = new Prompt({
        id: uid(),
        organisation_id: org.id,
        workspace_id: w.id,
        name: "P",
        slug: "p",
        published_version: 1,
        created_at: now,
        last_updated_at: now
      })
      const version = (n: number) =>
        new PromptVersion({
          id: uid(),
          prompt_id: prompt.id,
          version: n,
          string: `v${n} {{x}}`,
          parameters: { temperature: 0.5, nested: { a: [1, "b"] } },
          model: n === 1 ? null : "gpt-4o",
          type: "completion",
          is_raw_template: false,
          version_description: null,
          template_metadata: {},
          created_at: at()
        })
      const [v1, v2] = [version(1), version(2)]
      await run(Effect.gen(function*() {
        const store = yield* PromptStore
        yield* store.insert(prompt, v1)
        yield* store.addVersion(v2)
        yield* store.setLabel(
          new PromptLabel({ prompt_id: prompt.id, label: "production", version: 1, last_updated_at: at() })
        )
        yield* store.setLabel(
          new PromptLabel({ prompt_id: prompt.id, label: "production", version: 2, last_updated_at: at() })
        )
        yield* store.setPublished(prompt.id, 2, at())
      }))
      const duplicate = await exit(Effect.flatMap(Effect.service(PromptStore), (s) => s.addVersion(version(2))))
      expect(JSON.stringify(duplicate)).toContain("Conflict")
      const sameSlug = await exit(
        Effect.flatMap(
          Effect.service(PromptStore),
          (s) => s.insert(new Prompt({ ...prompt, id: uid() }), new PromptVersion({ ...v1, id: uid() }))
        )
      )
      expect(JSON.stringify(sameSlug)).toContain("Conflict")
      const read = await run(Effect.gen(function*() {
        const store = yield* PromptStore
        return {
          prompt: yield* store.get(prompt.id),
          bySlug: yield* store.findBySlug(org.id, "p"),
          latest: yield* store.latestVersion(prompt.id),
          v1: yield* store.getVersion(prompt.id, 1),
          versions: yield* store.versions(prompt.id),
          labels: yield* store.labels(prompt.id),
          listed: yield* store.list(org.id, w.id, { limit: 10, offset: 0 })
        }
      }))
      expect(Option.getOrThrow(read.prompt).published_version).toBe(2)
      expect(read.bySlug.map((p) => p.id)).toEqual([prompt.id])
      expect(Option.getOrThrow(read.latest)).toEqual(v2)
      expect(Option.getOrThrow(read.v1)).toEqual(v1)
      expect(read.versions.map((v) => v.version)).toEqual([1, 2])
      expect(read.labels.map((l) => [l.label, l.version])).toEqual([["production", 2]])
      expect(read.listed.total).toBe(1)
      expect(await run(Effect.flatMap(Effect.service(PromptStore), (s) => s.delete(prompt.id)))).toBe(true)
      const gone = await run(Effect.gen(function*() {
        const store = yield* PromptStore
        return {
          prompt: yield* store.get(prompt.id),
          versions: yield* store.versions(prompt.id),
          labels: yield* store.labels(prompt.id)
        }
      }))
      expect(Option.isNone(gone.prompt)).toBe(true)
      expect(gone.versions).toEqual([])
      expect(gone.labels).toEqual([])
    })

    it("stores partials by slug in their workspace, with versions", async () => {
      const org = await freshOrganisation()
      const w = workspace(org.id)
      await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.insert(w)))
      const now = at()
      const partial = new Partial({
        id: uid(),
        organisation_id: org.id,
        workspace_id: w.id,
        name: "Tone",
        slug: "tone",
        published_version: 1,
        created_at: now,
        last_updated_at: now
      })
      const v = (n: number) =>
        new PartialVersion({
          id: uid(),
          partial_id: partial.id,
          version: n,
          string: `tone ${n}`,
          version_description: null,
          created_at: at()
        })
      await run(Effect.gen(function*() {
        const store = yield* PartialStore
        yield* store.insert(partial, v(1))
        yield* store.addVersion(v(2))
        yield* store.setPublished(partial.id, 2, at())
      }))
      const read = await run(Effect.gen(function*() {
        const store = yield* PartialStore
        return {
          bySlug: yield* store.findBySlug(w.id, "tone"),
          v2: yield* store.getVersion(partial.id, 2),
          none: yield* store.getVersion(partial.id, 3),
          elsewhere: yield* store.findBySlug("other-workspace", "tone")
        }
      }))
      expect(Option.getOrThrow(read.bySlug).published_version).toBe(2)
      expect(Option.getOrThrow(read.v2).string).toBe("tone 2")
      expect(Option.isNone(read.none)).toBe(true)
      expect(Option.isNone(read.elsewhere)).toBe(true)
    })

    it("queries MCP integrations by level, visibility, status and search, paged in creation order", async () => {
      const org = await freshOrganisation()
      const [w1, w2] = [workspace(org.id), workspace(org.id)]
      await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => Effect.forEach([w1, w2], s.insert)))
      const make = (slug: string, fields: Readonly<Record<string, unknown>> = {}) => {
        const now = at()
        return new McpIntegration({
          id: uid(),
          organisation_id: org.id,
          name: `Integration ${slug.toUpperCase()}`,
          slug,
          owner_id: null,
          status: "active",
          url: "https://mcp.example.com",
          description: null,
          workspace_id: null,
          configurations: { a: 1 },
          auth_type: "none",
          transport: "http",
          global_workspace_access: true,
          workspace_ids: [],
          secret_mappings: [{ target_field: "t", secret_reference_id: "s", secret_key: "k", value_format: "string" }],
          created_at: now,
          last_updated_at: now,
          ...fields
        })
      }
      const all = [
        make("global"),
        make("only-w2", { global_workspace_access: false, workspace_ids: [w2.id] }),
        make("w1-own", { workspace_id: w1.id, global_workspace_access: false }),
        make("w2-own", { workspace_id: w2.id, global_workspace_access: false }),
        // A slug has no '%' (shared/Rules.ts): the name carries the LIKE wildcards the search must escape.
        make("archived_50", { status: "archived", name: "Integration ARCHIVED_50%" })
      ]
      await run(Effect.flatMap(Effect.service(McpIntegrationStore), (s) => Effect.forEach(all, s.insert)))
      type Query = Parameters<McpIntegrationStore["Service"]["list"]>[0]
      const query = (q: { readonly [K in keyof Query]?: Query[K] }, limit = 10, offset = 0) =>
        run(
          Effect.flatMap(Effect.service(McpIntegrationStore), (s) =>
            s.list({ organisationId: org.id, usableBy: null, level: "all", status: "active", search: null, ...q }, {
              limit,
              offset
            }))
        )
      const slugs = (page: { items: ReadonlyArray<McpIntegration> }) => page.items.map((i) => i.slug)
      expect(slugs(await query({}))).toEqual(["global", "only-w2", "w1-own", "w2-own"])
      expect(slugs(await query({ usableBy: w1.id }))).toEqual(["global", "w1-own"])
      expect(slugs(await query({ usableBy: w2.id }))).toEqual(["global", "only-w2", "w2-own"])
      expect(slugs(await query({ level: "organisation" }))).toEqual(["global", "only-w2"])
      expect(slugs(await query({ level: "workspace", usableBy: w2.id }))).toEqual(["w2-own"])
      expect(slugs(await query({ status: "archived" }))).toEqual(["archived_50"])
      expect(slugs(await query({ search: "W2" }))).toEqual(["only-w2", "w2-own"])
      expect(slugs(await query({ search: "_50%", status: "archived" }))).toEqual(["archived_50"])
      expect(slugs(await query({ search: "%" }))).toEqual([])
      const second = await query({}, 2, 2)
      expect([slugs(second), second.total]).toEqual([["w1-own", "w2-own"], 4])
      const past = await query({}, 2, 10)
      expect([slugs(past), past.total]).toEqual([[], 4])
      const read = await run(
        Effect.flatMap(Effect.service(McpIntegrationStore), (s) => s.findBySlug(org.id, "only-w2"))
      )
      expect(Option.getOrThrow(read)).toEqual(all[1])
      const duplicate = await exit(Effect.flatMap(Effect.service(McpIntegrationStore), (s) => s.insert(make("global"))))
      expect(JSON.stringify(duplicate)).toContain("Conflict")

      const mcpServer = new McpServer({
        id: uid(),
        organisation_id: org.id,
        workspace_id: w1.id,
        slug: "srv",
        name: "Server One",
        status: "active",
        description: null,
        mcp_integration_id: all[0].id,
        created_at: at()
      })
      await run(Effect.flatMap(Effect.service(McpServerStore), (s) => s.insert(mcpServer)))
      const again = await exit(
        Effect.flatMap(Effect.service(McpServerStore), (s) => s.insert(new McpServer({ ...mcpServer, id: uid() })))
      )
      expect(JSON.stringify(again)).toContain("Conflict")
      const found = await run(Effect.flatMap(Effect.service(McpServerStore), (s) => s.findBySlug(w1.id, "srv")))
      expect(Option.getOrThrow(found)).toEqual(mcpServer)
      const listed = await run(
        Effect.flatMap(Effect.service(McpServerStore), (s) => s.list(org.id, w1.id, "one", { limit: 5, offset: 0 }))
      )
      expect(listed.items.map((x) => x.id)).toEqual([mcpServer.id])
    })

    it("keeps integration totals exact through creates, archives, edits and rollbacks", async () => {
      const org = await freshOrganisation()
      const w1 = workspace(org.id)
      await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.insert(w1)))
      const make = (slug: string, workspaceId: string | null) =>
        new McpIntegration({
          id: uid(),
          organisation_id: org.id,
          name: slug,
          slug,
          owner_id: null,
          status: "active",
          url: "https://mcp.example.com",
          description: null,
          workspace_id: workspaceId,
          configurations: {},
          auth_type: "none",
          transport: "http",
          global_workspace_access: true,
          workspace_ids: [],
          secret_mappings: [],
          created_at: at(),
          last_updated_at: at()
        })
      const totals = () =>
        run(Effect.gen(function*() {
          const store = yield* McpIntegrationStore
          const total = (level: "all" | "workspace" | "organisation", status: "active" | "archived") =>
            Effect.map(
              store.list({ organisationId: org.id, usableBy: null, level, status, search: null }, {
                limit: 1,
                offset: 0
              }),
              (page) => page.total
            )
          return [
            yield* total("all", "active"),
            yield* total("organisation", "active"),
            yield* total("workspace", "active"),
            yield* total("all", "archived")
          ]
        }))
      const items = [make("a", null), make("b", null), make("c", w1.id)]
      await run(Effect.flatMap(Effect.service(McpIntegrationStore), (s) => Effect.forEach(items, s.insert)))
      expect(await totals()).toEqual([3, 2, 1, 0])
      await run(Effect.flatMap(
        Effect.service(McpIntegrationStore),
        (s) => s.update(new McpIntegration({ ...items[0], status: "archived" }))
      ))
      expect(await totals()).toEqual([2, 1, 1, 1])
      await run(Effect.flatMap(
        Effect.service(McpIntegrationStore),
        (s) => s.update(new McpIntegration({ ...items[1], description: "edited" }))
      ))
      expect(await totals()).toEqual([2, 1, 1, 1])
      await exit(Effect.gen(function*() {
        const transaction = yield* StoreTransaction
        const store = yield* McpIntegrationStore
        yield* transaction.withTransaction(Effect.andThen(store.insert(make("lost", null)), Effect.fail("boom")))
      }))
      expect(await totals()).toEqual([2, 1, 1, 1])
    })

    it("lets exactly one of many concurrent creates of the same slug succeed", async () => {
      const org = await freshOrganisation()
      const attempts = Array.from({ length: 12 }, () => workspace(org.id, "race"))
      const results = await run(
        Effect.flatMap(
          Effect.service(WorkspaceStore),
          (s) => Effect.forEach(attempts, (w) => Effect.exit(s.insert(w)), { concurrency: "unbounded" })
        )
      )
      expect(results.filter(Exit.isSuccess)).toHaveLength(1)
      const listed = await run(
        Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.list(org.id, { limit: 20, offset: 0 }))
      )
      expect(listed.items.filter((w) => w.slug === "race")).toHaveLength(1)
    })
  })
}
