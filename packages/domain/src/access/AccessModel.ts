/**
 * Organisations, workspaces, users and workspace memberships: who exists, and in which role.
 */
import { Schema } from "effect"
import { Email, Name, Slug } from "../shared/Rules.ts"

export const OrganisationRole = Schema.Literals(["owner", "admin", "member"])
export type OrganisationRole = typeof OrganisationRole.Type

export const WorkspaceRole = Schema.Literals(["manager", "member"])
export type WorkspaceRole = typeof WorkspaceRole.Type

export class Organisation extends Schema.Class<Organisation>("Organisation")({
  id: Schema.String,
  name: Name,
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

export class Workspace extends Schema.Class<Workspace>("Workspace")({
  id: Schema.String,
  organisation_id: Schema.String,
  name: Name,
  slug: Slug,
  description: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

export class User extends Schema.Class<User>("User")({
  id: Schema.String,
  organisation_id: Schema.String,
  email: Email,
  name: Schema.NullOr(Name),
  role: OrganisationRole,
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

export class WorkspaceMember extends Schema.Class<WorkspaceMember>("WorkspaceMember")({
  workspace_id: Schema.String,
  user_id: Schema.String,
  role: WorkspaceRole,
  created_at: Schema.String,
  /** When the role last changed; the membership's creation until then. */
  last_updated_at: Schema.String
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

/**
 * A user's name as Portkey's `first_name` and `last_name`: its first word, and the rest. A part that would be
 * empty is absent.
 */
export const nameParts = (name: string | null): { readonly first_name?: string; readonly last_name?: string } => {
  const words = (name ?? "").trim().split(/\s+/).filter((word) => word.length > 0)
  if (words.length === 0) return {}
  return words.length === 1 ? { first_name: words[0] } : { first_name: words[0], last_name: words.slice(1).join(" ") }
}
