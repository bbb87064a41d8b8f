import { CreateInvite, Invite, InviteFilter, InviteStatus } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { ById, created, deletedOf, listOf, PagingQuery, v1Group } from "../Common.ts"

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
