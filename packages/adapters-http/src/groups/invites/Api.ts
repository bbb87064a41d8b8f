import {
  AcceptInviteWithPassword,
  CreateInvite,
  Invite,
  InviteFilter,
  InviteStatus,
  Organisation,
  Workspace,
  WorkspaceRole
} from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { RequestInputRules } from "../../InputRules.ts"
import { ById, created, deletedOf, listOf, PagingQuery, v1Group } from "../Common.ts"
import { SignedInBody } from "../sessions/Api.ts"

/** An invitation as Portkey's `Invite` schema describes it, with ours beside (`workspaces` by id and role). */
export const InviteAnswer = Schema.Struct({
  ...Struct.omit(Invite.fields, ["status"]),
  status: InviteStatus,
  object: Schema.Literal("invite")
})

/** A new link, shown once: Portkey's `SuccessInvite` (`invite_link`), and resend's `inviteLink`. */
export const IssuedInviteAnswer = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("invite"),
  invite_link: Schema.String,
  inviteLink: Schema.String,
  expires_at: Schema.String
})

/** What an invitation link's page shows before the person accepts: no token, no secret. */
export const InvitePreviewBody = Schema.Struct({
  object: Schema.Literal("invite"),
  ...Struct.pick(Invite.fields, ["id", "email", "role", "expires_at"]),
  organisation: Schema.Struct(Struct.pick(Organisation.fields, ["id", "name"])),
  workspaces: Schema.Array(
    Schema.Struct({ ...Struct.pick(Workspace.fields, ["id", "slug", "name"]), role: WorkspaceRole })
  )
})

/** An invitation link's token, as the link's page sends it (from the link's fragment). */
const InviteToken = { token: Schema.String.check(Schema.isMaxLength(256)) }

/** Portkey's SDKs page with `pageSize` and `currentPage`; ours are accepted too. */
const InviteListQuery = {
  ...PagingQuery,
  pageSize: PagingQuery.page_size,
  currentPage: PagingQuery.current_page,
  ...InviteFilter.fields
}

export class InvitesGroup extends v1Group(
  HttpApiGroup.make("invites")
    .add(
      HttpApiEndpoint.post("create", "/admin/users/invites", {
        payload: CreateInvite,
        success: created(IssuedInviteAnswer),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Invites an email with an organisation role (admin or member) and workspace roles (each workspace by id " +
          "or slug). Answers the single-use link, once; it expires after 7 days. No mail " +
          "is sent: hand the link to the person."
      ),
      HttpApiEndpoint.get("list", "/admin/users/invites", {
        query: InviteListQuery,
        success: listOf(InviteAnswer),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "The organisation's invitations, oldest first; filtered by role, email, status."
      ),
      HttpApiEndpoint.get("get", "/admin/users/invites/:id", {
        params: ById,
        success: InviteAnswer,
        error: CommonErrors
      }),
      HttpApiEndpoint.post("resend", "/admin/users/invites/:id/resend", {
        params: ById,
        success: IssuedInviteAnswer,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "A new link for a pending (or expired) invitation, with a new expiry: the old link stops working."
      ),
      HttpApiEndpoint.delete("revoke", "/admin/users/invites/:id", {
        params: ById,
        success: deletedOf("invite"),
        error: CommonErrors
      }).annotate(OpenApi.Description, "Revokes a pending invitation: its link stops working (status cancelled).")
    )
) {}

/**
 * The invitation link's own endpoints, for whoever holds the link (no key: the link is the credential): what it
 * invites to, and accepting it by setting a password. Accepting by single sign-on goes through the browser:
 * `GET /auth/oidc/{provider}/start?invite={token}`.
 */
export class InviteLinksGroup extends HttpApiGroup.make("inviteLinks")
  .add(
    HttpApiEndpoint.get("preview", "/auth/invite", {
      query: InviteToken,
      success: InvitePreviewBody,
      error: CommonErrors
    }).annotate(
      OpenApi.Description,
      "What an invitation link invites to: the email, the organisation, the role and the workspaces. A link " +
        "that is unknown, used, revoked or expired answers 404."
    ),
    HttpApiEndpoint.post("accept", "/auth/invite", {
      payload: AcceptInviteWithPassword,
      success: SignedInBody,
      error: CommonErrors
    }).annotate(
      OpenApi.Description,
      "Accepts an invitation by setting the new account's password (12 characters or more): makes the user with " +
        "the invitation's roles and signs them in (a session, its cookie and CSRF token). Single use; a link that " +
        "is unknown, used, revoked or expired answers 404 and makes nobody."
    )
  )
  .middleware(RequestInputRules)
  .prefix("/v1")
{}
