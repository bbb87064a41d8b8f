import { describe, expect, it } from "vitest"
import { slugify } from "../src/AccessModel.ts"
import { authorize } from "../src/Policy.ts"
import type { Principal } from "../src/Principal.ts"
import type { Scope } from "../src/Scopes.ts"
import { unknownScopes } from "../src/Scopes.ts"

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

describe("scopes and slugs", () => {
  it("reports scope names missing from the catalogue", () => {
    expect(unknownScopes(["logs.view", "logs.eat", "prompts.render"])).toEqual(["logs.eat"])
  })

  it("slugifies display names", () => {
    expect(slugify("  Team Ünïcode / Ops  ")).toBe("team-unicode-ops")
    expect(slugify("!!!")).toBe("item")
  })
})
