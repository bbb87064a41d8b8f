/**
 * The rules of identity providers: what a caller may give for one (each refusal an `InvalidRequest` naming the
 * field), and how a person's groups at the provider map to roles (pure).
 */
import { Effect } from "effect"
import type { OrganisationRole, WorkspaceRole } from "../access/AccessModel.ts"
import { InvalidRequest } from "../shared/Errors.ts"
import { checkName, checkSlug } from "../shared/Rules.ts"
import { checkIssuerUrl } from "../trust-policies/TrustPolicyRules.ts"
import type { RoleMap } from "./IdentityProvider.ts"

const refuse = (message: string, param: string) => Effect.fail(InvalidRequest.of(message, param))

const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/

/** Email domains as the rule compares them: lower case, without a leading `@`; each must be a domain name. */
export const checkAllowedDomains = (
  domains: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>, InvalidRequest> =>
  Effect.forEach(domains, (given, i) => {
    const domain = given.trim().toLowerCase().replace(/^@/, "")
    return DOMAIN.test(domain)
      ? Effect.succeed(domain)
      : refuse(`allowed_domains[${i}] '${given}' is not a domain name.`, "allowed_domains")
  })

/** Every workspace a map names must be a workspace slug; a group name must not be empty. */
export const checkRoleMap = (roleMap: RoleMap): Effect.Effect<RoleMap, InvalidRequest> =>
  Effect.gen(function*() {
    for (const [group, entry] of Object.entries(roleMap)) {
      if (group.length === 0 || group.length > 255) {
        return yield* refuse("role_map's group names must be 1 to 255 characters.", "role_map")
      }
      for (const slug of Object.keys(entry.workspaces ?? {})) {
        yield* checkSlug(slug, undefined, `role_map.${group}.workspaces`)
      }
    }
    return roleMap
  })

/** Does the map make anyone an owner? Only an owner (or the operator) may configure that. */
export const grantsOwner = (roleMap: RoleMap): boolean =>
  Object.values(roleMap).some((entry) => entry.organisation_role === "owner")

export interface ProviderFields {
  readonly name: string
  readonly issuer: string
  readonly client_id: string
  readonly groups_claim: string
  readonly role_map: RoleMap
  readonly allowed_domains: ReadonlyArray<string>
}

/** The fields checked and normalised; the slug is checked by the caller (it has a default). */
export const checkProviderFields = <F extends ProviderFields>(fields: F): Effect.Effect<F, InvalidRequest> =>
  Effect.gen(function*() {
    yield* checkName(fields.name)
    yield* checkIssuerUrl(fields.issuer, "issuer")
    if (fields.client_id.length === 0 || fields.client_id.length > 255) {
      return yield* refuse("client_id must be 1 to 255 characters.", "client_id")
    }
    if (!/^[A-Za-z0-9_.:-]{1,100}$/.test(fields.groups_claim)) {
      return yield* refuse(
        "groups_claim must be a claim name: 1 to 100 letters, digits, '_', '.', ':' or '-'.",
        "groups_claim"
      )
    }
    const role_map = yield* checkRoleMap(fields.role_map)
    const allowed_domains = yield* checkAllowedDomains(fields.allowed_domains)
    return { ...fields, role_map, allowed_domains }
  })

export const checkClientSecret = (secret: string): Effect.Effect<string, InvalidRequest> =>
  secret.length === 0 || secret.length > 1000
    ? refuse("client_secret must be 1 to 1000 characters.", "client_secret")
    : Effect.succeed(secret)

/** A secret as answers show it: masked, with its last 4 characters when it is long enough to spare them. */
export const secretHint = (secret: string): string => secret.length >= 16 ? `****${secret.slice(-4)}` : "****"

const ORGANISATION_RANK: Record<OrganisationRole, number> = { member: 0, admin: 1, owner: 2 }
const WORKSPACE_RANK: Record<WorkspaceRole, number> = { member: 0, manager: 1 }

/**
 * The roles a person's groups give under the map. The map manages the organisation role when any entry names
 * one (the highest of the person's groups, else `member`), and each workspace it names (the highest role of
 * the person's groups there, else null: no membership). What the map does not name, it leaves alone.
 */
export interface MappedRoles {
  readonly organisationRole: OrganisationRole | null
  readonly workspaces: ReadonlyMap<string, WorkspaceRole | null>
}

export const mapRoles = (roleMap: RoleMap, groups: ReadonlyArray<string>): MappedRoles => {
  const entries = Object.entries(roleMap)
  const held = new Set(groups)
  let organisationRole: OrganisationRole | null = entries.some(([, e]) => e.organisation_role !== undefined)
    ? "member"
    : null
  const workspaces = new Map<string, WorkspaceRole | null>()
  for (const [, entry] of entries) {
    for (const slug of Object.keys(entry.workspaces ?? {})) workspaces.set(slug, null)
  }
  for (const [group, entry] of entries) {
    if (!held.has(group)) continue
    const role = entry.organisation_role
    if (
      role !== undefined && organisationRole !== null && ORGANISATION_RANK[role] > ORGANISATION_RANK[organisationRole]
    ) {
      organisationRole = role
    }
    for (const [slug, workspaceRole] of Object.entries(entry.workspaces ?? {})) {
      const current = workspaces.get(slug) ?? null
      if (current === null || WORKSPACE_RANK[workspaceRole] > WORKSPACE_RANK[current]) {
        workspaces.set(slug, workspaceRole)
      }
    }
  }
  return { organisationRole, workspaces }
}

/** The groups a claim holds: an array of strings, or one string (some providers send one group so). */
export const groupsOf = (claim: unknown): ReadonlyArray<string> =>
  typeof claim === "string"
    ? [claim]
    : Array.isArray(claim)
    ? claim.filter((group): group is string => typeof group === "string")
    : []

/**
 * The roles a person's groups give under several maps (an organisation's providers, for SCIM groups): each
 * map read as `mapRoles` reads it, and the highest role any of them gives kept; null where none manages it.
 */
export const mapRolesAll = (roleMaps: ReadonlyArray<RoleMap>, groups: ReadonlyArray<string>): MappedRoles => {
  let organisationRole: OrganisationRole | null = null
  const workspaces = new Map<string, WorkspaceRole | null>()
  for (const mapped of roleMaps.map((roleMap) => mapRoles(roleMap, groups))) {
    const role = mapped.organisationRole
    if (role !== null && (organisationRole === null || ORGANISATION_RANK[role] > ORGANISATION_RANK[organisationRole])) {
      organisationRole = role
    }
    for (const [slug, workspaceRole] of mapped.workspaces) {
      const current = workspaces.get(slug) ?? null
      if (workspaceRole !== null && (current === null || WORKSPACE_RANK[workspaceRole] > WORKSPACE_RANK[current])) {
        workspaces.set(slug, workspaceRole)
      } else if (!workspaces.has(slug)) workspaces.set(slug, null)
    }
  }
  return { organisationRole, workspaces }
}
