import { type Invite, Invites, type IssuedInvite, statusAt } from "@gateway-control/domain"
import { DateTime, Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

/** The console's page for accepting an invitation; the token rides in the fragment, which no request carries. */
export const INVITE_PAGE = "/console/invite"

const answer = (invite: Invite, now: string) => ({
  ...invite,
  status: statusAt(invite, now),
  object: "invite" as const
})

/** The link, on the address the caller reached this server by: the token after `#`, never sent to a server. */
const issuedAnswer = ({ invite, token }: IssuedInvite) =>
  Effect.map(Effect.service(HttpServerRequest.HttpServerRequest), (request) => {
    const host = request.headers["host"] ?? "127.0.0.1"
    const link = `http://${host}${INVITE_PAGE}#${token}`
    return {
      id: invite.id,
      object: "invite" as const,
      invite_link: link,
      inviteLink: link,
      expires_at: invite.expires_at
    }
  })

const now = Effect.map(DateTime.now, DateTime.formatIso)

export const InvitesHandlers = HttpApiBuilder.group(
  GatewayApi,
  "invites",
  withService(Invites, (handlers, invites) =>
    handlers.handleAll({
      create: ({ payload }) =>
        Effect.flatMap(asCaller((principal) => invites.create(principal, payload)), issuedAnswer),
      list: ({ query }) =>
        Effect.flatMap(now, (at) =>
          pageAsCaller(
            { page_size: query.page_size ?? query.pageSize, current_page: query.current_page ?? query.currentPage },
            (principal, request) =>
              invites.list(
                principal,
                {
                  ...(query.role === undefined ? {} : { role: query.role }),
                  ...(query.email === undefined ? {} : { email: query.email }),
                  ...(query.status === undefined ? {} : { status: query.status })
                },
                request
              )
          ).pipe(Effect.map((list) => ({ ...list, data: list.data.map((invite) => answer(invite, at)) })))),
      get: ({ params }) =>
        Effect.flatMap(now, (at) =>
          asCaller((principal) => invites.get(principal, params.id)).pipe(Effect.map((invite) => answer(invite, at)))),
      resend: ({ params }) =>
        Effect.flatMap(asCaller((principal) => invites.resend(principal, params.id)), issuedAnswer),
      revoke: ({ params }) =>
        asCaller((principal) => invites.revoke(principal, params.id)).pipe(
          Effect.map((invite) => ({ id: invite.id, object: "invite" as const, deleted: true as const }))
        )
    }))
)
