/**
 * Properties of the access policy over generated principals, actions and targets. fast-check prints the
 * seed and the shrunk counterexample of any failure; rerun with `{ seed, path }` to replay it.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type Action,
  ActionNames,
  Actions,
  authorize,
  authorizeKeyCreation,
  type KeyCreation,
  type KeyUser,
  mayCreateKeyFor,
  requiredScope,
  type Target
} from "../src/access/Policy.ts"
import type { Principal } from "../src/access/Principal.ts"
import { type Scope, ScopeNames } from "../src/access/Scopes.ts"
import type { ApiKeyType } from "../src/credentials/ApiKey.ts"

const RUNS = { numRuns: 5000 }
const organisations = ["org-a", "org-b"] as const
const workspaces = ["ws-1", "ws-2", "ws-3"] as const

const scopeSet = fc.subarray([...ScopeNames] as Array<Scope>).map((s) => new Set<Scope>(s))

const principalArb: fc.Arbitrary<Principal> = fc.record({
  keyId: fc.constant("key"),
  keyType: fc.constantFrom<ApiKeyType>("organisation-service", "workspace-service", "workspace-user"),
  organisationId: fc.constantFrom(...organisations),
  workspaceId: fc.constantFrom(...workspaces),
  userId: fc.option(fc.constant("user"), { nil: null }),
  organisationRole: fc.constantFrom("owner", "admin", "member", null),
  workspaceRole: fc.constantFrom("manager", "member", null),
  scopes: scopeSet
}).map((p): Principal =>
  p.keyType === "organisation-service"
    ? { ...p, workspaceId: null }
    : p
)

const targetArb: fc.Arbitrary<Target> = fc.record({
  organisationId: fc.constantFrom(...organisations),
  workspaceId: fc.constantFrom(null, ...workspaces)
})

const actionArb = fc.constantFrom(...ActionNames)

const keyCreationArb = (principal: Principal): fc.Arbitrary<KeyCreation> =>
  fc.record({
    type: fc.constantFrom<ApiKeyType>("organisation-service", "workspace-service", "workspace-user"),
    organisationId: fc.constantFrom(principal.organisationId, ...organisations),
    workspaceId: fc.constantFrom(null, ...workspaces),
    scopes: fc.subarray([...ScopeNames] as Array<Scope>, { minLength: 1 })
  })

const reachOf = (action: Action) => Actions[action].reach

describe("authorize (properties)", () => {
  it("is total and deterministic", () => {
    fc.assert(
      fc.property(principalArb, actionArb, targetArb, (principal, action, target) => {
        const first = authorize(principal, action, target)
        expect(["Allowed", "Denied", "Hidden"]).toContain(first._tag)
        expect(authorize(principal, action, target)).toEqual(first)
      }),
      RUNS
    )
  })

  it("hides every target of another organisation", () => {
    fc.assert(
      fc.property(principalArb, actionArb, targetArb, (principal, action, target) => {
        const decision = authorize(principal, action, target)
        expect(decision._tag === "Hidden").toBe(principal.organisationId !== target.organisationId)
      }),
      RUNS
    )
  })

  it("never allows an action without its scope", () => {
    fc.assert(
      fc.property(principalArb, actionArb, targetArb, (principal, action, target) => {
        const scope = requiredScope(principal, action)
        if (authorize(principal, action, target)._tag === "Allowed" && scope !== null) {
          expect(principal.scopes.has(scope)).toBe(true)
        }
      }),
      RUNS
    )
  })

  it("keeps workspace keys in their own workspace", () => {
    fc.assert(
      fc.property(principalArb, actionArb, targetArb, (principal, action, target) => {
        if (principal.keyType === "organisation-service") return
        if (authorize(principal, action, target)._tag === "Allowed") {
          expect(target.organisationId).toBe(principal.organisationId)
          expect([null, principal.workspaceId]).toContain(target.workspaceId)
        }
      }),
      RUNS
    )
  })

  it("denies admin-only operations to every workspace key, and workspace-only ones to admin keys", () => {
    fc.assert(
      fc.property(principalArb, actionArb, targetArb, (principal, action, target) => {
        const decision = authorize(principal, action, target)
        const admin = principal.keyType === "organisation-service"
        if (reachOf(action) === "admin" && !admin) expect(decision._tag).not.toBe("Allowed")
        if (reachOf(action) === "workspace" && admin) expect(decision._tag).not.toBe("Allowed")
      }),
      RUNS
    )
  })
})

describe("authorizeKeyCreation (properties)", () => {
  const creation = principalArb.chain((principal) =>
    keyCreationArb(principal).map((request) => ({ principal, request }))
  )

  it("never yields a key more powerful than its creator", () => {
    fc.assert(
      fc.property(creation, ({ principal, request }) => {
        if (authorizeKeyCreation(principal, request)._tag !== "Allowed") return
        // Same organisation, scopes a subset of the creator's.
        expect(request.organisationId).toBe(principal.organisationId)
        for (const scope of request.scopes) expect(principal.scopes.has(scope)).toBe(true)
        // Reach no wider: only admin keys make admin keys, and workspace keys only for their own workspace.
        if (request.type === "organisation-service") expect(principal.keyType).toBe("organisation-service")
        if (principal.keyType !== "organisation-service") expect(request.workspaceId).toBe(principal.workspaceId)
      }),
      RUNS
    )
  })

  it("never lets a member create a key", () => {
    fc.assert(
      fc.property(creation, ({ principal, request }) => {
        const workspaceMember = principal.keyType === "workspace-user" && principal.workspaceRole !== "manager"
        const organisationMember = principal.keyType === "organisation-service" &&
          principal.organisationRole === "member"
        if (workspaceMember || organisationMember) {
          expect(authorizeKeyCreation(principal, request)._tag).not.toBe("Allowed")
        }
      }),
      RUNS
    )
  })

  it("matches the shape of the key: admin keys have no workspace, workspace keys have one", () => {
    fc.assert(
      fc.property(creation, ({ principal, request }) => {
        if (authorizeKeyCreation(principal, request)._tag === "Allowed") {
          expect(request.workspaceId === null).toBe(request.type === "organisation-service")
        }
      }),
      RUNS
    )
  })
})

describe("mayCreateKeyFor (properties)", () => {
  const keyUserArb: fc.Arbitrary<KeyUser> = fc.record({
    userId: fc.constantFrom("user", "someone else"),
    organisationId: fc.constantFrom(...organisations),
    organisationRole: fc.constantFrom("owner", "admin", "member"),
    workspaceRole: fc.constantFrom("manager", "member", null)
  })
  // The rule restated: organisation roles rank above workspace roles; a service key ranks as a manager.
  const rank = (organisationRole: string | null, workspaceRole: string | null) => {
    if (organisationRole === "owner") return 4
    if (organisationRole === "admin") return 3
    return workspaceRole === "manager" ? 2 : workspaceRole === "member" ? 1 : 0
  }
  const creatorRank = (p: Principal) =>
    p.keyType === "workspace-service" && p.userId === null ? 2 : rank(p.organisationRole, p.workspaceRole)

  it("never lets a key name a non-member, another organisation's user, or anyone ranked above it but itself", () => {
    fc.assert(
      fc.property(principalArb, keyUserArb, (creator, target) => {
        const organisationWide = creatorRank(creator) >= 3 ||
          (creator.keyType === "organisation-service" && creator.userId === null)
        const mayName = organisationWide || target.userId === creator.userId ||
          rank(target.organisationRole, target.workspaceRole) <= creatorRank(creator)
        const expected = target.organisationId !== creator.organisationId
          ? "Hidden"
          : target.workspaceRole === null
          ? "NotMember"
          : mayName
          ? "Allowed"
          : "Denied"
        expect(mayCreateKeyFor(creator, target)._tag).toBe(expected)
      }),
      RUNS
    )
  })
})

describe("the specification's tables, row by row", () => {
  const every = new Set<Scope>(ScopeNames)
  const admin = (organisationRole: Principal["organisationRole"]): Principal => ({
    keyId: "k",
    keyType: "organisation-service",
    organisationId: "org-a",
    workspaceId: null,
    userId: "u",
    organisationRole,
    workspaceRole: "manager",
    scopes: every
  })
  const workspaceUser = (workspaceRole: Principal["workspaceRole"]): Principal => ({
    keyId: "k",
    keyType: "workspace-user",
    organisationId: "org-a",
    workspaceId: "ws-1",
    userId: "u",
    organisationRole: "member",
    workspaceRole,
    scopes: every
  })
  const workspaceService: Principal = { ...workspaceUser(null), keyType: "workspace-service", userId: null }
  const allowed = (principal: Principal, request: Omit<KeyCreation, "organisationId" | "scopes">) =>
    authorizeKeyCreation(principal, { ...request, organisationId: "org-a", scopes: ["logs.view"] })._tag === "Allowed"
  const adminKey = { type: "organisation-service", workspaceId: null } as const
  const workspaceKey = (workspaceId: string) => ({ type: "workspace-user", workspaceId }) as const

  it.each([
    ["Organisation Owner", admin("owner"), true, true, true],
    ["Organisation Admin", admin("admin"), true, true, true],
    ["Workspace Manager", workspaceUser("manager"), false, true, false],
    ["Workspace Member", workspaceUser("member"), false, false, false]
  ])("role rules: %s", (_, principal, createsAdminKey, createsOwnWorkspaceKey, createsOtherWorkspaceKey) => {
    expect(allowed(principal, adminKey)).toBe(createsAdminKey)
    expect(allowed(principal, workspaceKey("ws-1"))).toBe(createsOwnWorkspaceKey)
    expect(allowed(principal, workspaceKey("ws-2"))).toBe(createsOtherWorkspaceKey)
  })

  const target = (workspaceId: string | null): Target => ({ organisationId: "org-a", workspaceId })
  const can = (principal: Principal, action: Action, workspaceId: string | null) =>
    authorize(principal, action, target(workspaceId))._tag === "Allowed"

  it.each(
    [
      // operation, action, admin key, workspace key (own workspace), workspace key (another workspace)
      ["Create or manage workspaces", "workspaces.create", true, false, false],
      ["Manage users and permissions", "users.create", true, false, false],
      ["Manage users and permissions", "members.create", true, false, false],
      ["Create or manage configs", "configs.create", true, true, false],
      ["Create or manage providers", "virtual_keys.create", true, true, false],
      ["Access analytics", "analytics.view", true, true, false],
      ["Create or update feedback", "feedback.create", false, true, false],
      ["Create or update feedback", "feedback.update", false, true, false]
    ] as const
  )("operation rules: %s (%s)", (_, action, byAdmin, byWorkspaceKey, elsewhere) => {
    expect(can(admin("admin"), action, action === "workspaces.create" || action.startsWith("users") ? null : "ws-1"))
      .toBe(byAdmin)
    expect(can(workspaceService, action, "ws-1")).toBe(byWorkspaceKey)
    expect(can(workspaceService, action, "ws-2")).toBe(elsewhere)
  })

  it("workspace-service keys (no user) act in their workspace but cannot touch another", () => {
    expect(allowed(workspaceService, workspaceKey("ws-1"))).toBe(true)
    expect(allowed(workspaceService, workspaceKey("ws-2"))).toBe(false)
    expect(allowed(workspaceService, adminKey)).toBe(false)
  })

  it("denials name the missing scope", () => {
    const lacking = { ...admin("owner"), scopes: new Set<Scope>() }
    const decision = authorize(lacking, "configs.create", target("ws-1"))
    expect(decision).toEqual({ _tag: "Denied", reason: expect.stringContaining("configs.create") })
  })
})
