import { describe, expect, it } from "vitest"
import { slugify } from "../src/access/AccessModel.ts"
import { authorize, type KeyUser, mayCreateKeyFor } from "../src/access/Policy.ts"
import type { Principal } from "../src/access/Principal.ts"
import type { Scope } from "../src/access/Scopes.ts"
import { unknownScopes } from "../src/access/Scopes.ts"

const principal = (overrides: Partial<Principal> = {}): Principal => ({
  keyId: "k",
  keyType: "workspace-service",
  organisationId: "org",
  workspaceId: "ws",
  userId: null,
  organisationRole: null,
  workspaceRole: null,
  scopes: new Set<Scope>(["workspaces.read", "workspaces.list", "workspaces.create"]),
  ...overrides
})

describe("authorize", () => {
  it("hides targets of another organisation", () => {
    expect(authorize(principal(), "workspaces.read", { organisationId: "other", workspaceId: "ws" })._tag).toBe(
      "Hidden"
    )
  })

  it("requires the action's scope and names it", () => {
    const decision = authorize(principal({ scopes: new Set() }), "workspaces.read", {
      organisationId: "org",
      workspaceId: "ws"
    })
    expect(decision).toEqual({ _tag: "Denied", reason: expect.stringContaining("workspaces.read") })
  })

  it("keeps workspace keys in their workspace and away from organisation actions", () => {
    const p = principal()
    expect(authorize(p, "workspaces.read", { organisationId: "org", workspaceId: "ws" })._tag).toBe("Allowed")
    expect(authorize(p, "workspaces.read", { organisationId: "org", workspaceId: "ws2" })._tag).toBe("Denied")
    expect(authorize(p, "workspaces.create", { organisationId: "org", workspaceId: null })._tag).toBe("Denied")
  })

  it("lets admin keys act on any workspace of their organisation", () => {
    const admin = principal({ keyType: "organisation-service", workspaceId: null })
    expect(authorize(admin, "workspaces.read", { organisationId: "org", workspaceId: "any" })._tag).toBe("Allowed")
    expect(authorize(admin, "workspaces.create", { organisationId: "org", workspaceId: null })._tag).toBe("Allowed")
  })
})

describe("mayCreateKeyFor: whose name a workspace/user key may carry", () => {
  const manager = principal({
    keyType: "workspace-user",
    userId: "m",
    organisationRole: "member",
    workspaceRole: "manager"
  })
  const target = (overrides: Partial<KeyUser> = {}): KeyUser => ({
    userId: "u",
    organisationId: "org",
    organisationRole: "member",
    workspaceRole: "member",
    ...overrides
  })

  it("refuses a manager naming an organisation owner or admin, even one who is a plain member here", () => {
    for (const organisationRole of ["owner", "admin"] as const) {
      const decision = mayCreateKeyFor(manager, target({ organisationRole, workspaceRole: "member" }))
      expect(decision).toEqual({ _tag: "Denied", reason: expect.stringContaining(`organisation ${organisationRole}`) })
    }
  })

  it("lets a manager name itself, another manager or a member", () => {
    expect(mayCreateKeyFor(manager, target({ userId: "m", workspaceRole: "manager" }))._tag).toBe("Allowed")
    expect(mayCreateKeyFor(manager, target({ workspaceRole: "manager" }))._tag).toBe("Allowed")
    expect(mayCreateKeyFor(manager, target())._tag).toBe("Allowed")
  })

  it("ranks a workspace service key as a manager", () => {
    const service = principal({ keyType: "workspace-service" })
    expect(mayCreateKeyFor(service, target({ workspaceRole: "manager" }))._tag).toBe("Allowed")
    expect(mayCreateKeyFor(service, target({ organisationRole: "admin" }))._tag).toBe("Denied")
  })

  it("lets owners, admins and user-less admin keys name any member", () => {
    const owner = target({ userId: "o", organisationRole: "owner" })
    for (
      const creator of [
        principal({ keyType: "organisation-service", workspaceId: null, userId: "a", organisationRole: "admin" }),
        principal({ keyType: "organisation-service", workspaceId: null }),
        principal({ keyType: "workspace-user", userId: "o2", organisationRole: "owner", workspaceRole: "manager" })
      ]
    ) {
      expect(mayCreateKeyFor(creator, owner)._tag).toBe("Allowed")
    }
  })

  it("refuses a user who is not a member of the workspace, whoever asks, and hides other organisations", () => {
    const admin = principal({
      keyType: "organisation-service",
      workspaceId: null,
      userId: "a",
      organisationRole: "owner"
    })
    expect(mayCreateKeyFor(admin, target({ workspaceRole: null }))._tag).toBe("NotMember")
    expect(mayCreateKeyFor(manager, target({ userId: "m", workspaceRole: null }))._tag).toBe("NotMember")
    expect(mayCreateKeyFor(admin, target({ organisationId: "other" }))._tag).toBe("Hidden")
  })
})

describe("scopes and slugs", () => {
  it("reports scope names missing from the catalogue", () => {
    expect(unknownScopes(["logs.view", "logs.eat", "prompts.render"])).toEqual(["logs.eat"])
  })

  it("slugifies display names", () => {
    expect(slugify("  Team Ünïcode / Ops  ")).toBe("team-unicode-ops")
    expect(slugify("!!!")).toBe("item")
  })
})
