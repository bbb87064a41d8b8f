import { describe, expect, it } from "vitest"
import { slugify } from "../src/access/AccessModel.ts"
import { type KeyUser, mayCreateKeyFor } from "../src/access/KeyPolicy.ts"
import { authorize, Target } from "../src/access/Policy.ts"
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
  expiresAt: null,
  ...overrides
})

describe("authorize", () => {
  it("hides targets of another organisation", () => {
    expect(authorize(principal(), "workspaces.read", Target.workspace("other", "ws"))._tag).toBe("Hidden")
  })

  it("requires the action's scope and names it", () => {
    const decision = authorize(principal({ scopes: new Set() }), "workspaces.read", Target.workspace("org", "ws"))
    expect(decision).toEqual({ _tag: "Denied", reason: expect.stringContaining("workspaces.read") })
  })

  it("keeps workspace keys in their workspace (another is hidden) and away from organisation actions", () => {
    const p = principal()
    expect(authorize(p, "workspaces.read", Target.workspace("org", "ws"))._tag).toBe("Allowed")
    expect(authorize(p, "workspaces.read", Target.workspace("org", "ws2"))._tag).toBe("Hidden")
    expect(authorize(p, "workspaces.create", Target.organisation("org"))._tag).toBe("Denied")
  })

  it("shows workspace keys the organisation-level resources open to their workspace, and no others", () => {
    const p = principal({ scopes: new Set(["workspace_mcp_integrations.read"]) })
    expect(authorize(p, "mcp_integrations.read", Target.shared("org", ["ws"]))._tag).toBe("Allowed")
    expect(authorize(p, "mcp_integrations.read", Target.shared("org", "every-workspace"))._tag).toBe("Allowed")
    expect(authorize(p, "mcp_integrations.read", Target.shared("org", ["ws2"]))._tag).toBe("Hidden")
  })

  it("lets admin keys act on any workspace of their organisation", () => {
    const admin = principal({ keyType: "organisation-service", workspaceId: null })
    expect(authorize(admin, "workspaces.read", Target.workspace("org", "any"))._tag).toBe("Allowed")
    expect(authorize(admin, "workspaces.create", Target.organisation("org"))._tag).toBe("Allowed")
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
    expect(mayCreateKeyFor(admin, target({ workspaceRole: null }))._tag).toBe("UnfitUser")
    expect(mayCreateKeyFor(manager, target({ userId: "m", workspaceRole: null }))._tag).toBe("UnfitUser")
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
