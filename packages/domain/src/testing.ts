/**
 * Generators for property-testing the access policy, for this repository's tests and for services that
 * embed the engine and want to property-test their own use of it (`@gateway-control/domain/testing`).
 *
 * The domain imports only `effect`, so these are Effect's own `Arbitrary` values (run them with
 * `Arbitrary.checkEffect`), plus the finite parts as plain data for exhaustive enumeration. Every principal
 * here is one the system can produce: it is built by `principalOf`, the function `ApiKeys.authenticate` uses,
 * from a stored key of a shape the service stores (an admin key has no workspace, a workspace/user key a
 * user who is a member of its workspace, a workspace service key no user).
 */
import { Arbitrary, Schema } from "effect"
import { OrganisationRole, WorkspaceRole } from "./access/AccessModel.ts"
import { type Action, ActionNames, type OpenTo, Target } from "./access/Policy.ts"
import { type Principal, principalOf } from "./access/Principal.ts"
import { type Scope, ScopeNames } from "./access/Scopes.ts"
import type { ApiKeyType } from "./credentials/ApiKey.ts"

/** A stored key's kind with its user's standing: everything about a principal that is not an id or a scope. */
export interface PrincipalShape {
  readonly keyType: ApiKeyType
  /** The key's user's organisation role; null for a key without a user. */
  readonly userRole: OrganisationRole | null
  /** The key's user's membership of the key's workspace; null when none. */
  readonly membership: WorkspaceRole | null
}

const organisationRoles: ReadonlyArray<OrganisationRole> = OrganisationRole.literals
const workspaceRoles: ReadonlyArray<WorkspaceRole> = WorkspaceRole.literals

/** Every shape of principal the system can produce; finite, for exhaustive tests. */
export const PrincipalShapes: ReadonlyArray<PrincipalShape> = [
  ...[null, ...organisationRoles].map((userRole): PrincipalShape => ({
    keyType: "organisation-service",
    userRole,
    membership: null
  })),
  // A workspace service key carries no user: `newKeyUser` gives it none.
  { keyType: "workspace-service", userRole: null, membership: null },
  ...organisationRoles.flatMap((userRole) =>
    workspaceRoles.map((membership): PrincipalShape => ({ keyType: "workspace-user", userRole, membership }))
  )
]

/** Where a principal's key lives and who it is: the ids. */
export interface Place {
  readonly keyId: string
  readonly organisationId: string
  /** The workspace of a workspace key; ignored for an admin key. */
  readonly workspaceId: string
  /** The key's user, when the shape has one. */
  readonly userId: string
  /** When the key expires; never when absent. */
  readonly expiresAt?: string | null | undefined
}

/** The principal `ApiKeys.authenticate` resolves for a key of this shape, place and scopes. */
export const principalFrom = (shape: PrincipalShape, place: Place, scopes: Iterable<Scope>): Principal => {
  const principal = principalOf(
    {
      id: place.keyId,
      type: shape.keyType,
      organisation_id: place.organisationId,
      workspace_id: shape.keyType === "organisation-service" ? null : place.workspaceId,
      user_id: shape.userRole === null ? null : place.userId,
      scopes: [...scopes],
      expires_at: place.expiresAt ?? null
    },
    shape.userRole,
    shape.membership
  )
  if (principal === undefined) throw new Error(`A key of shape ${JSON.stringify(shape)} does not authenticate.`)
  return principal
}

/** Non-empty text: names and ids. */
export const ids: Arbitrary.Arbitrary<string> = Arbitrary.schema(Schema.String.check(Schema.isMinLength(1)))

/** One of the given values. */
export const oneOf = <const A>(values: ReadonlyArray<A>): Arbitrary.Arbitrary<A> =>
  Arbitrary.map(
    Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: values.length - 1 }))),
    (i) => values[i]!
  )

/** Any set of scopes. */
export const scopeSets: Arbitrary.Arbitrary<ReadonlySet<Scope>> = Arbitrary.map(
  Arbitrary.array(oneOf(ScopeNames)),
  (scopes) => new Set(scopes)
)

export const actions: Arbitrary.Arbitrary<Action> = oneOf(ActionNames)

export const shapes: Arbitrary.Arbitrary<PrincipalShape> = oneOf(PrincipalShapes)

/** Values in one of the given organisations and, where they have one, one of the given workspaces. */
export type Placed<A> = (
  organisationIds: ReadonlyArray<string>,
  workspaceIds: ReadonlyArray<string>
) => Arbitrary.Arbitrary<A>

/** An organisation and a workspace drawn from the given ones, for `Arbitrary.all`. */
const placeIn = (organisationIds: ReadonlyArray<string>, workspaceIds: ReadonlyArray<string>) => ({
  organisationId: oneOf(organisationIds),
  workspaceId: oneOf(workspaceIds)
})

/** A principal the system can produce, in one of the given organisations and workspaces. */
export const principals: Placed<Principal> = (organisationIds, workspaceIds) =>
  Arbitrary.map(
    Arbitrary.all({
      shape: shapes,
      keyId: ids,
      userId: ids,
      ...placeIn(organisationIds, workspaceIds),
      scopes: scopeSets
    }),
    ({ scopes, shape, ...place }) => principalFrom(shape, place, scopes)
  )

/** Who an organisation-level resource may be open to, over the given workspaces. */
export const openTos = (workspaceIds: ReadonlyArray<string>): Arbitrary.Arbitrary<OpenTo> =>
  Arbitrary.map(
    Arbitrary.all({ every: oneOf([true, false]), some: Arbitrary.array(oneOf(workspaceIds)) }),
    ({ every, some }): OpenTo => (every ? "every-workspace" : some)
  )

/** A target in one of the given organisations: a workspace-level one, or an organisation-level one. */
export const targets: Placed<Target> = (organisationIds, workspaceIds) =>
  Arbitrary.map(
    Arbitrary.all({
      workspaceLevel: oneOf([true, false]),
      ...placeIn(organisationIds, workspaceIds),
      openTo: openTos(workspaceIds)
    }),
    ({ openTo, organisationId, workspaceId, workspaceLevel }) =>
      workspaceLevel ? Target.workspace(organisationId, workspaceId) : Target.shared(organisationId, openTo)
  )
