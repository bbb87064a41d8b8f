/**
 * The store contract for organisations, workspaces, users, members and API keys.
 */
import { Effect, Exit, Option } from "effect"
import { expect, it } from "vitest"
import {
  type MemberFilter,
  OrganisationStore,
  UserStore,
  WorkspaceMemberStore,
  WorkspaceStore
} from "../../src/access/AccessStores.ts"
import { ApiKeyStore } from "../../src/credentials/ApiKeyStore.ts"
import { ApiKey, User, Workspace, WorkspaceMember } from "../../src/index.ts"
import { apiKey, at, type Harness, uid, user, workspace } from "./ContractHarness.ts"

/** A new row's creation and last change: one instant. */
const stamps = () => {
  const now = at()
  return { created_at: now, last_updated_at: now }
}

export const accessContract = ({ exit, freshOrganisation, run }: Harness) => {
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
        new WorkspaceMember({ workspace_id: w.id, user_id: a.id, role: "member", ...stamps() })
      )
      yield* members.upsert(
        new WorkspaceMember({ workspace_id: w.id, user_id: b.id, role: "member", ...stamps() })
      )
      yield* members.upsert(
        new WorkspaceMember({ workspace_id: w.id, user_id: a.id, role: "manager", ...stamps() })
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
    const memberOf = await run(Effect.flatMap(Effect.service(WorkspaceMemberStore), (s) => s.workspacesOf(a.id)))
    expect(memberOf).toEqual([w.id])
  })

  it("filters lists in the store (Portkey's filters), paging and counting only what the filter keeps", async () => {
    const org = await freshOrganisation()
    const other = await freshOrganisation()
    const named = (name: string, organisationId = org.id) => new Workspace({ ...workspace(organisationId), name })
    const [alpha, beta, lone] = [named("Alpha team"), named("Beta team"), named("alpha")]
    const admins = [0, 1, 2].map((i) => new User({ ...user(org.id, `admin-${i}-${uid()}@example.com`), role: "admin" }))
    const [plain, elsewhere] = [user(org.id, `plain-${uid()}@example.com`), user(other.id)]
    await run(Effect.gen(function*() {
      const workspaces = yield* WorkspaceStore
      for (const w of [alpha, beta, lone, named("Gamma team", other.id)]) yield* workspaces.insert(w)
      const users = yield* UserStore
      for (const u of [...admins, plain, elsewhere]) yield* users.insert(u)
      const members = yield* WorkspaceMemberStore
      for (const [u, role] of [[admins[0], "manager"], [admins[1], "member"], [plain, "manager"]] as const) {
        yield* members.upsert(new WorkspaceMember({ workspace_id: alpha.id, user_id: u.id, role, ...stamps() }))
      }
    }))
    const page = (limit: number, offset = 0) => ({ limit, offset })
    const ids = (listed: { readonly items: ReadonlyArray<{ readonly id: string }> }) => listed.items.map((w) => w.id)

    const teams = await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) =>
      s.list(org.id, page(1, 1), {
        name: "team"
      })))
    expect({ ids: ids(teams), total: teams.total }).toEqual({ ids: [beta.id], total: 2 })
    const withCase = await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) =>
      s.list(org.id, page(10), {
        name: "alpha"
      })))
    expect(ids(withCase)).toEqual([lone.id])
    const exact = await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) =>
      s.list(org.id, page(10), {
        exact_name: "Alpha team",
        name: "team"
      })))
    expect({ ids: ids(exact), total: exact.total }).toEqual({ ids: [alpha.id], total: 1 })

    const adminPages = await run(
      Effect.flatMap(
        Effect.service(UserStore),
        (s) => Effect.forEach([0, 1], (n) => s.list(org.id, page(2, n * 2), { role: "admin" }))
      )
    )
    expect(adminPages.map((p) => p.total)).toEqual([3, 3])
    expect(adminPages.flatMap(ids)).toEqual(admins.map((u) => u.id))
    const byEmail = await run(Effect.flatMap(Effect.service(UserStore), (s) =>
      s.list(org.id, page(10), {
        email: plain.email
      })))
    expect({ ids: ids(byEmail), total: byEmail.total }).toEqual({ ids: [plain.id], total: 1 })
    const none = await run(Effect.flatMap(Effect.service(UserStore), (s) =>
      s.list(org.id, page(10), {
        role: "admin",
        email: plain.email
      })))
    expect(none).toEqual({ items: [], total: 0 })

    const managers = await run(
      Effect.flatMap(Effect.service(WorkspaceMemberStore), (s) => s.list(alpha.id, page(1, 1), { role: "manager" }))
    )
    expect({ users: managers.items.map((m) => m.user_id), total: managers.total }).toEqual({
      users: [plain.id],
      total: 2
    })
    const memberByEmail = await run(
      Effect.flatMap(
        Effect.service(WorkspaceMemberStore),
        (s) => s.list(alpha.id, page(10), { email: admins[1].email })
      )
    )
    expect(memberByEmail.items.map((m) => m.user_id)).toEqual([admins[1].id])
    const managerByEmail = await run(
      Effect.flatMap(
        Effect.service(WorkspaceMemberStore),
        (s) => s.list(alpha.id, page(10), { role: "manager", email: admins[1].email })
      )
    )
    expect(managerByEmail).toEqual({ items: [], total: 0 })
  })

  it("pages a workspace's members by part of their email or name, in any case, and by who they are", async () => {
    const org = await freshOrganisation()
    const w = workspace(org.id)
    const tag = uid()
    const ada = new User({ ...user(org.id, `ada-${tag}@example.com`), name: "Ada LOVELACE" })
    const bob = new User({ ...user(org.id, `bob-${tag}@Lovelace.example`), name: null })
    const cy = new User({ ...user(org.id, `cy-${tag}@example.com`), name: "Cy 100%_off" })
    const outsider = new User({ ...user(org.id, `lovelace-${tag}@example.com`), name: "Lovelace" })
    await run(Effect.gen(function*() {
      yield* (yield* WorkspaceStore).insert(w)
      const users = yield* UserStore
      for (const u of [ada, bob, cy, outsider]) yield* users.insert(u)
      const members = yield* WorkspaceMemberStore
      for (const u of [ada, bob, cy]) {
        yield* members.upsert(new WorkspaceMember({ workspace_id: w.id, user_id: u.id, role: "member", ...stamps() }))
      }
    }))
    const listed = (filter: MemberFilter, limit = 10, offset = 0) =>
      run(Effect.flatMap(Effect.service(WorkspaceMemberStore), (s) => s.list(w.id, { limit, offset }, filter))).then(
        (page) => ({ users: page.items.map((m) => m.user_id), total: page.total })
      )
    // The name's case and the email's domain both match; the outsider matches but is no member.
    expect(await listed({ search: "lovelace" })).toEqual({ users: [ada.id, bob.id], total: 2 })
    expect(await listed({ search: "LoveLace" }, 1, 1)).toEqual({ users: [bob.id], total: 2 })
    // A search's % and _ are text, not patterns.
    expect(await listed({ search: "0%_o" })).toEqual({ users: [cy.id], total: 1 })
    expect(await listed({ search: "%" })).toEqual({ users: [cy.id], total: 1 })
    expect(await listed({ userIds: [cy.id, ada.id, outsider.id] })).toEqual({ users: [ada.id, cy.id], total: 2 })
    expect(await listed({ userIds: [] })).toEqual({ users: [], total: 0 })
    expect(await listed({ exceptUserIds: [ada.id] })).toEqual({ users: [bob.id, cy.id], total: 2 })
    expect(await listed({ exceptUserIds: [] })).toEqual({ users: [ada.id, bob.id, cy.id], total: 3 })
    expect(await listed({ search: "example.com", exceptUserIds: [cy.id] })).toEqual({ users: [ada.id], total: 1 })
  })

  it("updates a workspace, and a deleted one reads as absent everywhere", async () => {
    const org = await freshOrganisation()
    const w = workspace(org.id)
    const kept = workspace(org.id)
    await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => Effect.forEach([w, kept], s.insert)))
    const renamed = new Workspace({ ...w, name: "Renamed", description: "now described", last_updated_at: at() })
    const updated = await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.update(renamed)))
    expect(updated).toBe(true)
    const got = await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.get(w.id)))
    expect(Option.getOrThrow(got)).toMatchObject({ name: "Renamed", description: "now described" })
    const holdings = await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.holdings(w.id)))
    expect(Object.values(holdings).every((n) => n === 0)).toBe(true)
    const removed = await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.remove(w.id, at())))
    expect(removed).toBe(true)
    const after = await run(
      Effect.flatMap(Effect.service(WorkspaceStore), (s) =>
        Effect.all([
          s.get(w.id),
          s.findBySlug(org.id, w.slug),
          s.list(org.id, { limit: 10, offset: 0 }),
          s.remove(w.id, at())
        ]))
    )
    expect([Option.isNone(after[0]), Option.isNone(after[1]), after[2].items.map((x) => x.id), after[3]]).toEqual([
      true,
      true,
      [kept.id],
      false
    ])
  })

  it("changes a user's role and email, and removes a user with their memberships", async () => {
    const org = await freshOrganisation()
    const w = workspace(org.id)
    const u = user(org.id)
    await run(Effect.gen(function*() {
      yield* (yield* WorkspaceStore).insert(w)
      yield* (yield* UserStore).insert(u)
      yield* (yield* WorkspaceMemberStore).upsert(
        new WorkspaceMember({ workspace_id: w.id, user_id: u.id, role: "member", ...stamps() })
      )
    }))
    const changed = await run(
      Effect.flatMap(
        Effect.service(UserStore),
        (s) => s.update(new User({ ...u, role: "admin", last_updated_at: at() }))
      )
    )
    expect(changed).toBe(true)
    expect(Option.getOrThrow(await run(Effect.flatMap(Effect.service(UserStore), (s) => s.get(u.id)))).role).toBe(
      "admin"
    )
    // Another email: found by it (lower case), no longer by the old one; one another user has is a Conflict.
    const other = user(org.id)
    const moved = await run(Effect.gen(function*() {
      const users = yield* UserStore
      yield* users.insert(other)
      const changed = yield* users.changeEmail(u.id, `Moved-${u.email}`, at())
      const missing = yield* users.changeEmail(uid(), "nobody@example.test", at())
      const taken = yield* Effect.flip(users.changeEmail(u.id, other.email, at()))
      return {
        changed,
        missing,
        taken: taken._tag,
        byNew: yield* users.findByEmail(org.id, `moved-${u.email}`),
        byOld: yield* users.findByEmail(org.id, u.email),
        byOther: yield* users.findByEmail(org.id, other.email)
      }
    }))
    expect([moved.changed, moved.missing, moved.taken]).toEqual([true, false, "Conflict"])
    expect(Option.getOrThrow(moved.byNew)).toMatchObject({ id: u.id, email: `moved-${u.email}`, role: "admin" })
    expect(Option.isNone(moved.byOld)).toBe(true)
    expect(Option.getOrThrow(moved.byOther).id).toBe(other.id)
    const removed = await run(Effect.flatMap(Effect.service(UserStore), (s) => s.remove(u.id)))
    const again = await run(Effect.flatMap(Effect.service(UserStore), (s) => s.remove(u.id)))
    expect([removed, again]).toEqual([true, false])
    expect(Option.isNone(await run(Effect.flatMap(Effect.service(UserStore), (s) => s.get(u.id))))).toBe(true)
    expect(await run(Effect.flatMap(Effect.service(WorkspaceMemberStore), (s) => s.workspacesOf(u.id)))).toEqual([])
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
    expect(Option.getOrThrow(found)).toEqual({ key: scoped, digest: `d-${scoped.id}`, previousDigest: null })
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

  it("updates an API key's name, description, scopes and expiry, keeping its digest", async () => {
    const org = await freshOrganisation()
    const key = apiKey(org.id, null)
    await run(Effect.flatMap(Effect.service(ApiKeyStore), (s) => s.insert({ key, digest: `digest-${key.id}` })))
    const changed = new ApiKey({
      ...key,
      name: "renamed",
      description: null,
      scopes: ["workspaces.read"],
      expires_at: null,
      last_updated_at: at()
    })
    const result = await run(Effect.gen(function*() {
      const store = yield* ApiKeyStore
      return {
        updated: yield* store.update(changed),
        missing: yield* store.update(new ApiKey({ ...changed, id: uid() })),
        byId: yield* store.get(key.id),
        byDigest: yield* store.findByDigest(`digest-${key.id}`)
      }
    }))
    expect([result.updated, result.missing]).toEqual([true, false])
    expect(Option.getOrThrow(result.byId)).toEqual(changed)
    expect(Option.getOrThrow(result.byDigest).key).toEqual(changed)
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
        (s) => Effect.forEach([uncredited, byUser, byServiceKey], (key) => Effect.map(s.get(key.id), Option.getOrThrow))
      )
    )
    expect(read.map(creators)).toEqual(expected)
    const found = await run(Effect.flatMap(Effect.service(ApiKeyStore), (s) => s.findByDigest(`d-${byUser.id}`)))
    expect(creators(Option.getOrThrow(found).key)).toEqual([creator.id, uncredited.id])
  })
}
