/**
 * Organisations, workspaces, users and workspace memberships: who exists, and in which role.
 */
import { Schema } from "effect"

export const OrganisationRole = Schema.Literals(["owner", "admin", "member"])
export type OrganisationRole = typeof OrganisationRole.Type

export const WorkspaceRole = Schema.Literals(["manager", "member"])
export type WorkspaceRole = typeof WorkspaceRole.Type

/** Slugs used in URLs and templates. */
export const Slug = Schema.String.check(
  Schema.isPattern(/^[a-zA-Z0-9_-]+$/, { message: "Expected letters, digits, '_' or '-'" }),
  Schema.isMaxLength(255)
)

export class Organisation extends Schema.Class<Organisation>("Organisation")({
  id: Schema.String,
  name: Schema.String,
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

export class Workspace extends Schema.Class<Workspace>("Workspace")({
  id: Schema.String,
  organisation_id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  description: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

export class User extends Schema.Class<User>("User")({
  id: Schema.String,
  organisation_id: Schema.String,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  role: OrganisationRole,
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

export class WorkspaceMember extends Schema.Class<WorkspaceMember>("WorkspaceMember")({
  workspace_id: Schema.String,
  user_id: Schema.String,
  role: WorkspaceRole,
  created_at: Schema.String
}) {}

/** Turns a display name into a slug candidate: lower case, runs of other characters become one '-'. */
export const slugify = (name: string): string => {
  const slug = name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
  return slug.length > 0 ? slug : "item"
}
