/**
 * Identity providers: the OpenID Connect issuers people of an organisation sign in with, and how a provider's
 * groups map to roles. One schema for the entity; what callers give to create or change one derives from it,
 * in the API's casing. The client secret is write-only: the entity keeps a hint of it, the store its ciphertext.
 */
import { Schema, Struct } from "effect"
import { OrganisationRole, WorkspaceRole } from "../access/AccessModel.ts"
import { Name, Slug } from "../shared/Rules.ts"

/** What one group of the provider grants: an organisation role, and roles in workspaces named by slug. */
export const RoleMapEntry = Schema.Struct({
  organisation_role: Schema.optionalKey(OrganisationRole),
  workspaces: Schema.optionalKey(Schema.Record(Schema.String, WorkspaceRole))
})
export type RoleMapEntry = typeof RoleMapEntry.Type

/** `{"<group>": {"organisation_role": "admin", "workspaces": {"<workspace slug>": "manager"}}}`. */
export const RoleMap = Schema.Record(Schema.String, RoleMapEntry)
export type RoleMap = typeof RoleMap.Type

/** Where a provider was configured: through the API (stored), or by the operator's environment (read-only). */
export const IdentityProviderSource = Schema.Literals(["api", "environment"])

export class IdentityProvider extends Schema.Class<IdentityProvider>("IdentityProvider")({
  id: Schema.String,
  organisation_id: Schema.String,
  /** Names the provider in its sign-in URL, `/auth/oidc/{slug}/start`: unique across the installation. */
  slug: Slug,
  /** What the sign-in page shows: "Sign in with {name}". */
  name: Name,
  /** The issuer URL; its discovery document is at `/.well-known/openid-configuration` below it. */
  issuer: Schema.String,
  client_id: Schema.String,
  /** The secret's last characters, masked: the secret itself is never answered. */
  client_secret_hint: Schema.String,
  /** The ID token (or userinfo) claim that lists the person's groups. */
  groups_claim: Schema.String,
  role_map: RoleMap,
  /** Email domains whose verified people are created at their first sign-in; empty: invitation only. */
  allowed_domains: Schema.Array(Schema.String),
  enabled: Schema.Boolean,
  source: IdentityProviderSource,
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/** A new provider: its fields a caller chooses, and the client secret (write-only). */
export const CreateIdentityProvider = Schema.Struct({
  ...Struct.pick(IdentityProvider.fields, ["name", "issuer", "client_id"]),
  client_secret: Schema.String,
  ...Struct.map(
    Struct.pick(IdentityProvider.fields, ["slug", "groups_claim", "role_map", "allowed_domains", "enabled"]),
    Schema.optionalKey
  )
})
export type CreateIdentityProvider = typeof CreateIdentityProvider.Type

/** A change: any of the fields of a new provider; those left out keep their value (the secret included). */
export const UpdateIdentityProvider = Schema.Struct(Struct.map(CreateIdentityProvider.fields, Schema.optionalKey))
export type UpdateIdentityProvider = typeof UpdateIdentityProvider.Type

/** What the public sign-in page is told of an enabled provider. */
export const SignInOption = Schema.Struct({
  ...Struct.pick(IdentityProvider.fields, ["slug", "name"]),
  /** Where a browser starts signing in with it. */
  start_url: Schema.String
})
export type SignInOption = typeof SignInOption.Type

/**
 * A sign-in under way, kept server-side between the redirect to the provider and its callback: found by the
 * digest of its `state`, taken once, and only before it expires.
 */
export class SignInFlow extends Schema.Class<SignInFlow>("SignInFlow")({
  state_digest: Schema.String,
  provider_id: Schema.String,
  nonce: Schema.String,
  code_verifier: Schema.String,
  /** The SHA-256 of the invitation link this sign-in accepts, when it started from one; null otherwise. */
  invite_token_hash: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  expires_at: Schema.String
}) {}
