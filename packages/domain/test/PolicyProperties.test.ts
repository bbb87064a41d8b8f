/**
 * The access policy against an independent reference: a small model of the specification's two tables
 * (roles × key creation, operations × key kind; spec "Authentication"), written here from the spec's words
 * and not from `Actions`. `authorize` is compared with it exhaustively over the finite domain; Effect's
 * `Arbitrary` covers the infinite parts (ids, scope sets). Then two semantic properties: a key never does
 * what its creator may not (no escalation), and a scope never takes a permission away (monotonicity).
 */
import { Arbitrary, Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  authorizeKeyCreation,
  authorizeKeyRotation,
  authorizeKeyWrite,
  type KeyFacts,
  type KeyUser,
  type KeyWrite,
  newKeyExpiry,
  newKeyUser
} from "../src/access/KeyPolicy.ts"
import { type Action, ActionNames, authorize, type Decision, type Target, Target as T } from "../src/access/Policy.ts"
import type { Principal } from "../src/access/Principal.ts"
import { type Scope, ScopeNames } from "../src/access/Scopes.ts"
import type { ApiKeyType } from "../src/credentials/ApiKey.ts"
import {
  actions,
  oneOf,
  principalFrom,
  principals,
  type PrincipalShape,
  PrincipalShapes,
  scopeSets,
  targets
} from "../src/testing.ts"

// ---------------------------------------------------------------------------------------------------------
// The reference model

/** The spec's operation rows, and its role rows for key creation, that each action falls under. */
type Operation =
  | "organisation" // Manage organisation settings / workspaces / users and permissions: admin key only
  | "owner" // making an owner: owners only (no escalation)
  | "workspace resource" // configs, providers, analytics and the like: admin key all workspaces, workspace key its own
  | "workspace key only" // Create or update feedback (and model calls): workspace keys only
  | "create admin key" // role table: owners and admins
  | "create workspace key" // role table: owners and admins any workspace, managers their workspace, members none

const operationOf = (action: Action): Operation => {
  if (
    action === "users.create.owner" || action === "users.update.owner" || action === "users.delete.owner" ||
    // A provider whose role map makes owners is a second path to owner: an owner's to write.
    action === "identity_providers.create.owner" || action === "identity_providers.update.owner"
  ) {
    return "owner"
  }
  // Rotating a key issues a secret with its powers: the role rows of creating one.
  if (action === "api_keys.create.organisation_service" || action === "api_keys.rotate.organisation_service") {
    return "create admin key"
  }
  if (
    action.startsWith("api_keys.create.") || action.startsWith("api_keys.rotate.") || action === "api_keys.delete" ||
    action === "api_keys.update" ||
    // Deciding who may use a workspace's MCP server: the same role row (owners and admins, managers, no members).
    action === "mcp_servers.user_access.update"
  ) {
    return "create workspace key"
  }
  if (action.startsWith("feedback.") || action === "completions.write") return "workspace key only"
  const organisationWide = [
    "workspaces.create",
    "workspaces.update",
    "workspaces.delete",
    "users.create",
    "users.read",
    "users.list",
    "users.update",
    "users.delete",
    "members.create",
    "members.update",
    "members.delete",
    "audit_logs.list",
    // Trust policies are the organisation's standing orders to issue workspace keys to workloads.
    "trust_policies.create",
    "trust_policies.read",
    "trust_policies.list",
    "trust_policies.update",
    "trust_policies.delete",
    // Secret references are the organisation's logins to its own secret managers.
    "secret_references.create",
    "secret_references.read",
    "secret_references.list",
    "secret_references.update",
    "secret_references.delete",
    // Identity providers let people sign in and give them roles: managing users and permissions.
    "identity_providers.create",
    "identity_providers.read",
    "identity_providers.list",
    "identity_providers.update",
    "identity_providers.delete",
    // SCIM tokens provision the organisation's users.
    "scim_tokens.create",
    "scim_tokens.read",
    "scim_tokens.list",
    "scim_tokens.revoke",
    // Sign-in settings: whether the organisation's people may sign in by password, and with a second factor.
    "sign_in_settings.read",
    "sign_in_settings.update",
    "mcp_integrations.create.organisation",
    "mcp_integrations.update.organisation",
    // An organisation-level AI-provider integration is the organisation's credential.
    "integrations.create.organisation",
    "integrations.update.organisation",
    "integrations.delete.organisation",
    // Organisation labels are open to every workspace; changing them is the organisation's business.
    "labels.create.organisation",
    "labels.update.organisation",
    "labels.delete.organisation"
  ]
  return organisationWide.includes(action) ? "organisation" : "workspace resource"
}

/** The scope names: the action's own name, but for these, named after what they act on (Scopes.ts). */
const scopesOf = (action: Action, admin: boolean, workspaceReachable: boolean): ReadonlyArray<Scope> => {
  if (action === "scopes.list") return []
  const perKind = (verb: string, kind = "mcp_integrations"): ReadonlyArray<Scope> => {
    const organisation = `organisation_${kind}.${verb}` as Scope
    const workspace = `workspace_${kind}.${verb}` as Scope
    return !admin ? [workspace] : workspaceReachable ? [organisation, workspace] : [organisation]
  }
  const renamed: Partial<Record<Action, ReadonlyArray<Scope>>> = {
    "users.create": ["organisation_users.create"],
    "users.create.owner": ["organisation_users.create"],
    "users.read": ["organisation_users.read"],
    "users.list": ["organisation_users.list"],
    "users.update": ["organisation_users.update"],
    "users.update.owner": ["organisation_users.update"],
    "users.delete": ["organisation_users.delete"],
    "users.delete.owner": ["organisation_users.delete"],
    "members.create": ["workspace_users.create"],
    "members.read": ["workspace_users.read"],
    "members.update": ["workspace_users.update"],
    "members.delete": ["workspace_users.delete"],
    "members.list": ["workspace_users.list"],
    "api_keys.create.organisation_service": ["organisation_service_api_keys.create"],
    "api_keys.create.workspace_service": ["workspace_service_api_keys.create"],
    "api_keys.create.workspace_user": ["workspace_user_api_keys.create"],
    "api_keys.rotate.organisation_service": ["organisation_service_api_keys.rotate"],
    "api_keys.rotate.workspace_service": ["workspace_service_api_keys.rotate"],
    "api_keys.rotate.workspace_user": ["workspace_user_api_keys.rotate"],
    "api_keys.read": ["api_keys.list"],
    // Writing a trust policy issues workspace service keys; reading it lists keys; deleting it revokes the source.
    "trust_policies.create": ["workspace_service_api_keys.create"],
    "trust_policies.update": ["workspace_service_api_keys.create"],
    "trust_policies.read": ["api_keys.list"],
    "trust_policies.list": ["api_keys.list"],
    "trust_policies.delete": ["api_keys.delete"],
    // Identity providers create users and set their roles: the organisation users' scopes.
    "identity_providers.create": ["organisation_users.create"],
    "identity_providers.create.owner": ["organisation_users.create"],
    "identity_providers.read": ["organisation_users.read"],
    "identity_providers.list": ["organisation_users.list"],
    "identity_providers.update": ["organisation_users.update"],
    "identity_providers.update.owner": ["organisation_users.update"],
    "identity_providers.delete": ["organisation_users.delete"],
    // A SCIM token manages users: creating one is creating users, reading it listing them, revoking it removing them.
    "scim_tokens.create": ["organisation_users.create"],
    "scim_tokens.read": ["organisation_users.list"],
    "scim_tokens.list": ["organisation_users.list"],
    "scim_tokens.revoke": ["organisation_users.delete"],
    "sign_in_settings.read": ["organisation_users.read"],
    "sign_in_settings.update": ["organisation_users.update"],
    "mcp_integrations.create.organisation": ["organisation_mcp_integrations.create"],
    "mcp_integrations.create.workspace": ["workspace_mcp_integrations.create"],
    "mcp_integrations.update.organisation": ["organisation_mcp_integrations.create"],
    "mcp_integrations.update.workspace": perKind("create"),
    "mcp_integrations.read": perKind("read"),
    "mcp_integrations.list": perKind("list"),
    "integrations.create.organisation": ["organisation_integrations.create"],
    "integrations.update.organisation": ["organisation_integrations.update"],
    "integrations.delete.organisation": ["organisation_integrations.delete"],
    "integrations.create.workspace": perKind("create", "integrations"),
    "integrations.update.workspace": perKind("update", "integrations"),
    "integrations.delete.workspace": perKind("delete", "integrations"),
    "integrations.read": perKind("read", "integrations"),
    "integrations.list": perKind("list", "integrations"),
    // Providers replace virtual keys: their scopes.
    "providers.create": ["virtual_keys.create"],
    "providers.read": ["virtual_keys.read"],
    "providers.list": ["virtual_keys.list"],
    "providers.update": ["virtual_keys.update"],
    "providers.delete": ["virtual_keys.delete"],
    // Renaming or deleting a server: as creating one.
    "mcp_servers.update": ["mcp_servers.create"],
    "mcp_servers.delete": ["mcp_servers.create"],
    "mcp_servers.user_access.update": ["mcp_servers.create"],
    // Labels belong to prompts: the prompts scope of the same verb.
    ...Object.fromEntries(
      ["create", "update", "delete"].flatMap((verb) =>
        ["organisation", "workspace"].map((level) => [`labels.${verb}.${level}`, [`prompts.${verb}` as Scope]])
      )
    ),
    "labels.read": ["prompts.read"],
    "labels.list": ["prompts.list"]
  }
  return renamed[action] ?? [action as Scope]
}

/** What a workspace key can see: its workspace, and organisation-level things open to it. */
const visible = (p: Principal, target: Target) =>
  p.organisationId === target.organisationId && (
    p.keyType === "organisation-service" ||
    (target.level === "workspace"
      ? target.workspaceId === p.workspaceId
      : target.openTo === "every-workspace" || target.openTo.includes(p.workspaceId!))
  )

const reachableByWorkspaceKeys = (target: Target) =>
  target.level === "workspace" || target.openTo === "every-workspace" || target.openTo.length > 0

type Tag = Decision["_tag"]

const reference = (p: Principal, action: Action, target: Target): Tag => {
  if (!visible(p, target)) return "Hidden"
  const admin = p.keyType === "organisation-service"
  const scopes = scopesOf(action, admin, reachableByWorkspaceKeys(target))
  if (scopes.length > 0 && !scopes.some((s) => p.scopes.has(s))) return "Denied"
  // Role rows: owners and admins stand as managers everywhere; a service key without a user as a manager.
  const ownerOrAdmin = p.organisationRole === "owner" || p.organisationRole === "admin"
  const organisationOk = admin && p.organisationRole !== "member"
  const manager = p.keyType === "workspace-service" || ownerOrAdmin || p.workspaceRole === "manager"
  switch (operationOf(action)) {
    case "organisation":
    case "create admin key":
      return organisationOk ? "Allowed" : "Denied"
    case "owner":
      return admin && p.organisationRole === "owner" ? "Allowed" : "Denied"
    case "workspace key only":
      return admin ? "Denied" : "Allowed"
    case "create workspace key":
      return (admin ? organisationOk : manager) ? "Allowed" : "Denied"
    case "workspace resource":
      return "Allowed"
  }
}

// ---------------------------------------------------------------------------------------------------------
// The finite domain

const ALL = new Set<Scope>(ScopeNames)
const ORG = "org-a"
const OTHER_ORG = "org-b"
const OWN = "ws-1"
const OTHER = "ws-2"

const place = (organisationId: string) => ({ keyId: "key", organisationId, workspaceId: OWN, userId: "user" })

const targetsIn = (organisationId: string): ReadonlyArray<Target> => [
  T.workspace(organisationId, OWN),
  T.workspace(organisationId, OTHER),
  T.organisation(organisationId),
  T.shared(organisationId, [OWN]),
  T.shared(organisationId, [OTHER]),
  T.shared(organisationId, [])
]
const finiteTargets = [...targetsIn(ORG), ...targetsIn(OTHER_ORG)]

const without = (scopes: ReadonlyArray<Scope>) => new Set(ScopeNames.filter((s) => !scopes.includes(s)))

describe("authorize against the reference model, exhaustively", () => {
  it("agrees on every action × principal shape × same/other organisation and workspace × scopes present/absent", () => {
    const disagreements: Array<string> = []
    let cases = 0
    for (const action of ActionNames) {
      for (const shape of PrincipalShapes) {
        // The action's scopes, for either key kind; every subset of them present, the rest absent.
        const candidates = [...new Set([...scopesOf(action, true, true), ...scopesOf(action, false, true)])]
        const subsets = candidates.reduce<Array<Array<Scope>>>(
          (acc, scope) => [...acc, ...acc.map((subset) => [...subset, scope])],
          [[]]
        )
        for (const present of subsets) {
          const scopes = without(candidates.filter((s) => !present.includes(s)))
          const principal = principalFrom(shape, place(ORG), scopes)
          for (const target of finiteTargets) {
            cases++
            const actual = authorize(principal, action, target)._tag
            const expected = reference(principal, action, target)
            if (actual !== expected) {
              disagreements.push(
                `${action} ${JSON.stringify(shape)} ${JSON.stringify(target)} ` +
                  `scopes:[${present.join(",")}]: ${actual}, reference ${expected}`
              )
            }
          }
        }
      }
    }
    expect(cases).toBeGreaterThanOrEqual(ActionNames.length * PrincipalShapes.length * 2 * finiteTargets.length)
    expect(disagreements).toEqual([])
  })

  it("agrees over generated ids and scope sets", async () => {
    const result = await Effect.runPromise(Arbitrary.checkEffect(
      Arbitrary.all({
        principal: principals([ORG, OTHER_ORG], [OWN, OTHER]),
        action: actions,
        target: targets([ORG, OTHER_ORG], [OWN, OTHER])
      }),
      ({ action, principal, target }) =>
        authorize(principal, action, target)._tag === reference(principal, action, target),
      { runs: 3000 }
    ))
    expect(Arbitrary.formatCheckFailure(result)).toBeUndefined()
  })
})

// ---------------------------------------------------------------------------------------------------------
// No escalation, semantically

const allows = (p: Principal, action: Action, target: Target) => authorize(p, action, target)._tag === "Allowed"

/** A user of ORG who could carry keys, of each standing: the user a key acts as, and its principal's shape. */
interface Carrier {
  readonly id: string
  readonly shape: PrincipalShape
}

/** Who a key of this kind may act as: nobody (a service key), the creator's own user, or another of any standing. */
const carriersOf = (creator: Principal, type: ApiKeyType): ReadonlyArray<Carrier> => {
  if (type === "workspace-service") return [{ id: "none", shape: { keyType: type, userRole: null, membership: null } }]
  const others = PrincipalShapes.filter((s) => s.keyType === type)
  const own = creator.userId === null || creator.organisationRole === null ? [] : type === "organisation-service"
    ? [{ keyType: type, userRole: creator.organisationRole, membership: null } as PrincipalShape]
    : (["manager", "member"] as const).map((membership): PrincipalShape => ({
      keyType: type,
      userRole: creator.organisationRole,
      membership
    }))
  return [
    ...own.map((shape) => ({ id: creator.userId!, shape })),
    ...others.map((shape) => ({ id: shape.userRole === null ? "none" : "other", shape }))
  ]
}

/** The user a key of this shape acts as, as the store holds them; null for none. */
const keyUserOf = (carrier: Carrier): KeyUser | null =>
  carrier.shape.userRole === null ? null : {
    userId: carrier.id,
    organisationId: ORG,
    organisationRole: carrier.shape.userRole,
    workspaceRole: carrier.shape.membership
  }

/** A stored key of this carrier's shape, scopes and expiry. */
const keyFactsOf = (
  carrier: Carrier,
  workspaceId: string | null,
  scopes: Iterable<Scope>,
  expiresAt: string | null
): KeyFacts => ({
  id: "new",
  type: carrier.shape.keyType,
  organisation_id: ORG,
  workspace_id: workspaceId,
  user_id: carrier.shape.userRole === null ? null : carrier.id,
  scopes: [...scopes],
  expires_at: expiresAt
})

/** The principal the server resolves for that key. */
const principalOfKey = (carrier: Carrier, key: KeyFacts, scopes: Iterable<Scope>): Principal =>
  principalFrom(carrier.shape, {
    keyId: key.id,
    organisationId: ORG,
    workspaceId: key.workspace_id ?? OWN,
    userId: carrier.id,
    expiresAt: key.expires_at
  }, scopes)

/**
 * Every key `creator` may create, with the principal the server will resolve for it: the key as the server
 * builds it (its user by `newKeyUser`, its expiry by `newKeyExpiry`), allowed by `authorizeKeyWrite`.
 */
const keysCreatableBy = (creator: Principal, requested: ReadonlySet<Scope>): ReadonlyArray<Principal> => {
  const keys: Array<Principal> = []
  const types: ReadonlyArray<ApiKeyType> = ["organisation-service", "workspace-service", "workspace-user"]
  for (const type of types) {
    for (const workspaceId of type === "organisation-service" ? [null] : [OWN, OTHER]) {
      for (const carrier of carriersOf(creator, type)) {
        const named = carrier.shape.userRole === null ? null : carrier.id
        // What the server stores: an admin key naming no one acts as its creator's user.
        const userId = newKeyUser(creator, type, named)
        if (userId !== named) continue
        const key = keyFactsOf(carrier, workspaceId, requested, newKeyExpiry(creator, null))
        if (authorizeKeyWrite(creator, { op: "create", key, user: keyUserOf(carrier) })._tag !== "Allowed") continue
        keys.push(principalOfKey(carrier, key, requested))
      }
    }
  }
  return keys
}

/**
 * The one sanctioned difference: feedback and model calls are for workspace keys only (spec), so an admin
 * key acts there through a workspace key it creates. It holds the scope and sees the target, nothing more.
 */
const throughWorkspaceKeyOnly = (creator: Principal, action: Action, target: Target) =>
  operationOf(action) === "workspace key only" && creator.keyType === "organisation-service" &&
  visible(creator, target) && scopesOf(action, false, true).every((s) => creator.scopes.has(s))

const escalations = (creator: Principal, requested: ReadonlySet<Scope>): Array<string> =>
  keysCreatableBy(creator, requested).flatMap((key) =>
    ActionNames.flatMap((action) =>
      finiteTargets
        .filter((target) => allows(key, action, target) && !allows(creator, action, target))
        .filter((target) => !throughWorkspaceKeyOnly(creator, action, target))
        .map((target) =>
          `${creator.keyType}/${creator.organisationRole}/${creator.workspaceRole} made ` +
          `${key.keyType}/${key.organisationRole}/${key.workspaceRole}, which may ${action} on ${
            JSON.stringify(target)
          }`
        )
    )
  )

describe("no escalation: a key never does what its creator may not", () => {
  it("holds for every creator shape, with every scope", () => {
    const found = PrincipalShapes.flatMap((shape) => escalations(principalFrom(shape, place(ORG), ALL), ALL))
    expect(found).toEqual([])
  })

  it("every creator shape that the role table lets create keys does create some (so the property is not vacuous)", () => {
    const creators = PrincipalShapes.map((shape) => principalFrom(shape, place(ORG), ALL))
    const makers = creators.filter((creator) => keysCreatableBy(creator, ALL).length > 0)
    // Workspace/user keys of owners and admins appear twice: as plain members and as managers, both managers.
    expect(makers.map((p) => `${p.keyType}/${p.organisationRole}/${p.workspaceRole}`)).toEqual([
      "organisation-service/null/null",
      "organisation-service/owner/manager",
      "organisation-service/admin/manager",
      "workspace-service/null/null",
      "workspace-user/owner/manager",
      "workspace-user/owner/manager",
      "workspace-user/admin/manager",
      "workspace-user/admin/manager",
      "workspace-user/member/manager"
    ])
  })

  it("holds over generated scope sets for creator and key", async () => {
    const result = await Effect.runPromise(Arbitrary.checkEffect(
      Arbitrary.all({ principal: principals([ORG], [OWN]), requested: scopeSets }),
      ({ principal, requested }) =>
        escalations(principal, new Set([...requested].filter((s) => principal.scopes.has(s)))).length === 0,
      { runs: 300 }
    ))
    expect(Arbitrary.formatCheckFailure(result)).toBeUndefined()
  })
})

describe("monotonicity", () => {
  it("adding a scope never turns Allowed into Denied", async () => {
    const result = await Effect.runPromise(Arbitrary.checkEffect(
      Arbitrary.all({
        principal: principals([ORG, OTHER_ORG], [OWN, OTHER]),
        action: actions,
        target: targets([ORG, OTHER_ORG], [OWN, OTHER]),
        extra: scopeSets
      }),
      ({ action, extra, principal, target }) =>
        !allows(principal, action, target) ||
        allows({ ...principal, scopes: new Set([...principal.scopes, ...extra]) }, action, target),
      { runs: 3000 }
    ))
    expect(Arbitrary.formatCheckFailure(result)).toBeUndefined()
  })
})

// ---------------------------------------------------------------------------------------------------------
// Rotation and key changes: no escalation either

/** The principal with each kind's create scope swapped for its rotate scope. */
const createToRotate = (p: Principal): Principal => ({
  ...p,
  scopes: new Set(
    [...p.scopes].map((s) => s.endsWith("_api_keys.create") ? s.replace(/create$/, "rotate") as Scope : s)
  )
})

describe("rotation", () => {
  it("decides as creation does, with the rotate scope in place of the create scope", () => {
    const disagreements: Array<string> = []
    const types: ReadonlyArray<ApiKeyType> = ["organisation-service", "workspace-service", "workspace-user"]
    for (const shape of PrincipalShapes) {
      for (const scopes of [ALL, without(["workspace_service_api_keys.create", "prompts.render"])]) {
        const creator = principalFrom(shape, place(ORG), scopes)
        for (const type of types) {
          for (const workspaceId of [null, OWN, OTHER]) {
            for (const organisationId of [ORG, OTHER_ORG]) {
              const request = { type, organisationId, workspaceId, scopes: ["prompts.render" as Scope] }
              const created = authorizeKeyCreation(creator, request)._tag
              const rotated = authorizeKeyRotation(createToRotate(creator), request)._tag
              if (created !== rotated) disagreements.push(`${JSON.stringify(shape)} ${type} ${workspaceId}`)
            }
          }
        }
      }
    }
    expect(disagreements).toEqual([])
  })

  it("needs the kind's rotate scope: the create scope alone does not rotate", () => {
    const admin = principalFrom(PrincipalShapes[0]!, place(ORG), without(["workspace_service_api_keys.rotate"]))
    const request = { type: "workspace-service" as const, organisationId: ORG, workspaceId: OWN, scopes: [] }
    expect(authorizeKeyCreation(admin, request)._tag).toBe("Allowed")
    expect(authorizeKeyRotation(admin, request)._tag).toBe("Denied")
  })
})

describe("key changes", () => {
  const admin = principalFrom(PrincipalShapes[0]!, place(ORG), without(["prompts.render"]))
  const service: Carrier = { id: "none", shape: { keyType: "workspace-service", userRole: null, membership: null } }
  const key = keyFactsOf(service, OWN, ["prompts.read"], null)
  const update = (changed: Partial<KeyFacts>, flags: { scopes?: boolean; rateLimits?: boolean } = {}) =>
    authorizeKeyWrite(admin, {
      op: "update",
      key: { ...key, ...changed.id === undefined ? {} : { id: changed.id } },
      user: null,
      changed: { ...key, ...changed },
      scopesChanged: flags.scopes ?? false,
      rateLimitsChanged: flags.rateLimits ?? false
    })._tag

  it("never give a key a scope the changing key lacks", () => {
    expect(update({ scopes: ["prompts.render"] }, { scopes: true })).toBe("Denied")
    expect(update({ scopes: ["prompts.read"] }, { scopes: true })).toBe("Allowed")
  })

  it("never let a key lift its own rate limits", () => {
    expect(update({ id: admin.keyId ?? undefined }, { rateLimits: true })).toBe("Denied")
    expect(update({}, { rateLimits: true })).toBe("Allowed")
    expect(update({ id: admin.keyId ?? undefined })).toBe("Allowed")
  })

  it("never change whom a key acts as, or where it lives", () => {
    expect(update({ user_id: "someone" })).toBe("Denied")
    expect(update({ workspace_id: OTHER })).toBe("Denied")
  })
})

// ---------------------------------------------------------------------------------------------------------
// Whom a key acts as, and how long it lives: every key write

const SOON = "2030-01-01T00:00:00.000Z"
const LATER = "2031-01-01T00:00:00.000Z"
const EXPIRIES: ReadonlyArray<string | null> = [null, SOON, LATER]
const OPS: ReadonlyArray<KeyWrite["op"]> = ["create", "rotate", "update", "revoke"]

/** The write `op` of a key acting as `carrier`; an update sets its expiry to `expiresAt` and leaves the rest. */
const writeOf = (
  op: KeyWrite["op"],
  carrier: Carrier,
  workspaceId: string | null,
  expiresAt: string | null
): KeyWrite => {
  const key = keyFactsOf(carrier, workspaceId, ["prompts.read"], op === "update" ? SOON : expiresAt)
  const user = keyUserOf(carrier)
  return op === "update"
    ? { op, key, user, changed: { ...key, expires_at: expiresAt }, scopesChanged: false, rateLimitsChanged: false }
    : { op, key, user }
}

/** Every write of every key kind, acting as every carrier, with every expiry, by `actor`; with its decision. */
const writesBy = (actor: Principal) =>
  (["organisation-service", "workspace-service", "workspace-user"] as const).flatMap((type) =>
    carriersOf(actor, type).flatMap((carrier) =>
      EXPIRIES.flatMap((expiresAt) =>
        OPS.map((op) => {
          const write = writeOf(op, carrier, type === "organisation-service" ? null : OWN, expiresAt)
          return { carrier, write, decision: authorizeKeyWrite(actor, write)._tag }
        })
      )
    )
  )

/** The key a write leaves working, if any: as created, rotated or changed. */
const resulting = (write: KeyWrite): KeyFacts | undefined =>
  write.op === "revoke" ? undefined : write.op === "update" ? write.changed : write.key

/** Why an allowed write breaks the rules: a key that outlives its writer, or acts as more than it. */
const breaches = (actor: Principal): Array<string> =>
  writesBy(actor).filter(({ decision }) => decision === "Allowed").flatMap(({ carrier, write }) => {
    const found: Array<string> = []
    const result = resulting(write)
    const label = `${actor.keyType}/${actor.organisationRole}/${actor.expiresAt} ${write.op} ` +
      `${write.key.type} acting as ${JSON.stringify(carrier.shape)}`
    if (
      result !== undefined && actor.expiresAt !== null &&
      (result.expires_at === null || result.expires_at > actor.expiresAt)
    ) {
      found.push(`${label} leaves a key expiring ${result.expires_at}`)
    }
    // Acting as the key's user: that user, through such a key holding the writer's own scopes, may do nothing
    // the writer may not (but for the workspace-only actions an admin key reaches through workspace keys).
    const actingAs = principalOfKey(carrier, { ...write.key, workspace_id: write.key.workspace_id }, actor.scopes)
    for (const action of ActionNames) {
      for (const target of finiteTargets) {
        if (
          allows(actingAs, action, target) && !allows(actor, action, target) &&
          !throughWorkspaceKeyOnly(actor, action, target)
        ) {
          found.push(`${label} acts as one who may ${action} on ${JSON.stringify(target)}`)
        }
      }
    }
    return found
  })

describe("every key write: never acting as more than the writer, never outliving it", () => {
  const actors = PrincipalShapes.flatMap((shape) =>
    [null, SOON].map((expiresAt) => principalFrom(shape, { ...place(ORG), expiresAt }, ALL))
  )

  it("holds for every writer shape and expiry, every write, key kind, user and expiry", () => {
    expect(actors.flatMap(breaches)).toEqual([])
  })

  it("allows each kind of write, and refuses some for whom they act as and some for how long they live", () => {
    const all = actors.flatMap((actor) => writesBy(actor).map((w) => ({ actor, ...w })))
    for (const op of OPS) expect(all.some((w) => w.write.op === op && w.decision === "Allowed"), op).toBe(true)
    // An organisation admin's admin key may not rotate, change or revoke an owner's admin key (finding 8).
    const adminsKey = actors.find((a) => a.keyType === "organisation-service" && a.organisationRole === "admin")!
    const ownersKey = writesBy(adminsKey).filter(({ carrier, write }) =>
      write.key.type === "organisation-service" && carrier.shape.userRole === "owner" && write.key.expires_at === null
    )
    expect(ownersKey.length).toBeGreaterThan(0)
    expect(ownersKey.every(({ decision }) => decision !== "Allowed")).toBe(true)
    // A key expiring SOON neither makes nor leaves a key expiring later or never (finding 7).
    const expiring = all.filter(({ actor, write }) => {
      const result = resulting(write)
      return actor.expiresAt === SOON && result !== undefined && result.expires_at !== SOON
    })
    expect(expiring.length).toBeGreaterThan(0)
    expect(expiring.every(({ decision }) => decision !== "Allowed")).toBe(true)
  })

  it("holds over generated writers' scope sets", async () => {
    const result = await Effect.runPromise(Arbitrary.checkEffect(
      Arbitrary.all({ principal: principals([ORG], [OWN]), expiresAt: oneOf([null, SOON]) }),
      ({ expiresAt, principal }) => breaches({ ...principal, expiresAt }).length === 0,
      { runs: 100 }
    ))
    expect(Arbitrary.formatCheckFailure(result)).toBeUndefined()
  })
})
