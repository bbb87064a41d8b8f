import {
  IdentityProviderSettings,
  type Invite,
  INVITE_LINK_UNUSABLE,
  Invites,
  type IssuedInvite,
  statusAt
} from "@gateway-control/domain"
import { DateTime, Effect, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { errorResponse, fromDomain } from "../../ApiErrors.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"
import { makeSessionCookies, type SessionCookieOptions } from "../../internal/sessionCookie.ts"
import { SignedInBody } from "../sessions/Api.ts"

/** The console's page for accepting an invitation; the token rides in the fragment, which no request carries. */
export const INVITE_PAGE = "/console/invite"

const answer = (invite: Invite, now: string) => ({
  ...invite,
  status: statusAt(invite, now),
  object: "invite" as const
})

/**
 * The link, on the gateway's public URL (`PUBLIC_URL`) when set, else on the address the caller reached this
 * server by: the token after `#`, never sent to a server.
 */
const issuedAnswer = ({ invite, token }: IssuedInvite) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { publicUrl } = yield* IdentityProviderSettings
    const base = publicUrl ?? `http://${request.headers["host"] ?? "127.0.0.1"}`
    const link = `${base}${INVITE_PAGE}#${token}`
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

const encodeSignedIn = Schema.encodeSync(SignedInBody)

/** A link nobody can use: the one answer, whatever the reason (unknown, used, revoked or expired). */
const unusableLink = () => Effect.succeed(errorResponse(404, "not_found", INVITE_LINK_UNUSABLE))

export const layerInviteLinksHandlers = (options: SessionCookieOptions) => {
  const cookies = makeSessionCookies(options)
  return HttpApiBuilder.group(
    GatewayApi,
    "inviteLinks",
    withService(Invites, (handlers, invites) =>
      handlers.handleAll({
        preview: ({ query }) =>
          invites.preview(query.token).pipe(
            Effect.map(({ invite, organisation, workspaces }) =>
              HttpServerResponse.jsonUnsafe({
                object: "invite",
                id: invite.id,
                email: invite.email,
                role: invite.role,
                expires_at: invite.expires_at,
                organisation: { id: organisation.id, name: organisation.name },
                workspaces: workspaces.map(({ role, workspace }) => ({
                  id: workspace.id,
                  slug: workspace.slug,
                  name: workspace.name,
                  role
                }))
              }, { headers: { "cache-control": "no-store" } })
            ),
            Effect.catchTag("NotFound", unusableLink),
            Effect.mapError(fromDomain)
          ),
        accept: ({ payload }) =>
          Effect.gen(function*() {
            const request = yield* HttpServerRequest.HttpServerRequest
            const refusal = cookies.crossSiteRefusal(request, undefined)
            if (refusal !== undefined) return errorResponse(403, "forbidden", refusal)
            return yield* invites.acceptWithPassword(payload, { userAgent: request.headers["user-agent"] ?? null })
              .pipe(
                Effect.map((accepted) =>
                  HttpServerResponse.jsonUnsafe(
                    encodeSignedIn({
                      object: "session",
                      session: { ...accepted.session.session, object: "session" },
                      user: {
                        id: accepted.user.id,
                        email: accepted.user.email,
                        name: accepted.user.name,
                        organisation_id: accepted.user.organisation_id,
                        role: accepted.user.role
                      },
                      csrf_token: accepted.session.csrfToken
                    }),
                    {
                      headers: {
                        "set-cookie": cookies.newSessionCookie(request, accepted.session),
                        "cache-control": "no-store"
                      }
                    }
                  )
                ),
                Effect.catchTag("NotFound", unusableLink)
              )
          }).pipe(Effect.mapError(fromDomain))
      }))
  )
}
