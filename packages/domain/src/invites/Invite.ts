/**
 * Invitations (Portkey's `/admin/users/invites`): an organisation owner or admin invites an email with an
 * organisation role and workspace roles; the invitation is a single-use link that expires. Accepting it makes
 * the user, with those roles. One schema for the entity; what callers give derives from it, in the API's casing.
 * The link's token is never part of the entity: the store keeps only its SHA-256.
 */
import { Schema, Struct } from "effect"
import { OrganisationRole, WorkspaceRole } from "../access/AccessModel.ts"
import { MemberRole } from "../access/Users.ts"
import { Password } from "../sessions/Session.ts"
import { Email, Name } from "../shared/Rules.ts"
import { unsupportedFields } from "../shared/Unsupported.ts"

/** The organisation role an invitation gives: Portkey's `admin` or `member` (owners are made, not invited). */
export const InviteRole = Schema.Literals(["admin", "member"])
export type InviteRole = typeof InviteRole.Type

/** What the store keeps of an invitation's state; `expired` is a pending one past `expires_at`, decided on reading. */
export const StoredInviteStatus = Schema.Literals(["pending", "cancelled", "accepted"])
export type StoredInviteStatus = typeof StoredInviteStatus.Type

export const InviteStatus = Schema.Literals(["pending", "cancelled", "accepted", "expired"])
export type InviteStatus = typeof InviteStatus.Type

/** A workspace the invited person joins, and their role there. */
export const InviteWorkspace = Schema.Struct({ workspace_id: Schema.String, role: WorkspaceRole })
export type InviteWorkspace = typeof InviteWorkspace.Type

export class Invite extends Schema.Class<Invite>("Invite")({
  id: Schema.String,
  organisation_id: Schema.String,
  /** Lower case, as users' emails are kept. */
  email: Email,
  /** `admin` or `member` for an invitation; `owner` only for the first start's owner link (`user_id` set). */
  role: OrganisationRole,
  /**
   * The existing account the link sets up, when it is one (the first start's owner link: accepting it sets that
   * account's password, or binds it to the person an identity provider vouches for); null: accepting makes a user.
   */
  user_id: Schema.NullOr(Schema.String),
  workspaces: Schema.Array(InviteWorkspace),
  status: StoredInviteStatus,
  created_at: Schema.String,
  /** The link stops working at this time; resending makes a new link with a new expiry. */
  expires_at: Schema.String,
  accepted_at: Schema.NullOr(Schema.String),
  /** The user the invitation made, once accepted. */
  accepted_user_id: Schema.NullOr(Schema.String),
  /** The user who invited (Portkey's `invited_by`), and the key they used. */
  invited_by: Schema.NullOr(Schema.String),
  invited_by_api_key_id: Schema.NullOr(Schema.String),
  last_updated_at: Schema.String
}) {}

/** The status a reader sees at `now`: a pending invitation past its expiry is `expired`. */
export const statusAt = (invite: Invite, now: string): InviteStatus =>
  invite.status === "pending" && Date.parse(invite.expires_at) <= Date.parse(now) ? "expired" : invite.status

/** Portkey's fields of an invitation it documents and this gateway does not act on (it issues no key on accept). */
export const UNSUPPORTED_INVITE_FIELDS = ["workspace_api_key_details"] as const

/**
 * A new invitation, as Portkey's `CreateInvite`: the email, the organisation role, and the workspaces
 * (each by id or slug, Portkey's `id`) with a role (Portkey's workspace `admin` is our `manager`).
 */
export const CreateInvite = Schema.Struct({
  ...Struct.pick(Invite.fields, ["email"]),
  role: InviteRole,
  workspaces: Schema.Array(Schema.Struct({ id: Schema.String, role: MemberRole })).check(Schema.isMaxLength(100)),
  ...unsupportedFields(UNSUPPORTED_INVITE_FIELDS)
})
export type CreateInvite = typeof CreateInvite.Type

/** The filters of a listing of invitations. */
export const InviteFilter = Schema.Struct({
  role: Schema.optionalKey(InviteRole),
  email: Schema.optionalKey(Schema.String),
  status: Schema.optionalKey(InviteStatus)
})
export type InviteFilter = typeof InviteFilter.Type

/** Accepting an invitation: its link's token, and the name the person goes by (optional). */
export const AcceptInvite = Schema.Struct({
  token: Schema.String.check(Schema.isMaxLength(256)),
  name: Schema.optionalKey(Name)
})
export type AcceptInvite = typeof AcceptInvite.Type

/** Accepting an invitation by setting the new account's password (which signs the person in). */
export const AcceptInviteWithPassword = Schema.Struct({ ...AcceptInvite.fields, password: Password })
export type AcceptInviteWithPassword = typeof AcceptInviteWithPassword.Type

/** An invitation and the token of its link (shown once: on create and on resend). */
export interface IssuedInvite {
  readonly invite: Invite
  readonly token: string
}
