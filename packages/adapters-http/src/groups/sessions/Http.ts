import { type NewSession, type Principal, type Session, Sessions, type User } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { errorResponse, fromDomain, tooManyAttemptsResponse } from "../../ApiErrors.ts"
import { asCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"
import { makeSessionCookies, type SessionCookieOptions } from "../../internal/sessionCookie.ts"
import { SecondFactorRequiredBody, SignedInBody } from "./Api.ts"

const details = (session: Session) => ({ ...session, object: "session" as const })

const personOf = (user: User) => ({
  id: user.id,
  email: user.email,
  name: user.name,
  organisation_id: user.organisation_id,
  role: user.role
})

const encodeSignedIn = Schema.encodeSync(SignedInBody)
const encodeSecondFactorRequired = Schema.encodeSync(SecondFactorRequiredBody)

const currentRequest = Effect.service(HttpServerRequest.HttpServerRequest)

const userAgentOf = (request: HttpServerRequest.HttpServerRequest) => request.headers["user-agent"] ?? null

export const layerSignInHandlers = (options: SessionCookieOptions) => {
  const cookies = makeSessionCookies(options)
  /** The answer to a sign-in: the session in the body, its token in the cookie alone. */
  const signedIn = (request: HttpServerRequest.HttpServerRequest, opened: NewSession) =>
    HttpServerResponse.jsonUnsafe(
      encodeSignedIn({
        object: "session",
        session: details(opened.session),
        user: personOf(opened.user),
        csrf_token: opened.csrfToken
      }),
      { headers: { "set-cookie": cookies.newSessionCookie(request, opened), "cache-control": "no-store" } }
    )
  return HttpApiBuilder.group(
    GatewayApi,
    "signIn",
    withService(Sessions, (handlers, sessions) =>
      handlers.handleAll({
        password: ({ payload }) =>
          Effect.gen(function*() {
            const request = yield* currentRequest
            const refusal = cookies.crossSiteRefusal(request, undefined)
            if (refusal !== undefined) return errorResponse(403, "forbidden", refusal)
            return yield* sessions.passwordSignIn(payload, { userAgent: userAgentOf(request) }).pipe(
              Effect.map((result) =>
                result._tag === "SignedIn"
                  ? signedIn(request, result.signedIn)
                  : HttpServerResponse.jsonUnsafe(
                    encodeSecondFactorRequired({ object: "second-factor-required", ...result.challenge }),
                    { headers: { "cache-control": "no-store" } }
                  )
              ),
              Effect.catchTag("TooManyAttempts", (error) => Effect.succeed(tooManyAttemptsResponse(error)))
            )
          }).pipe(Effect.mapError(fromDomain)),
        secondFactor: ({ payload }) =>
          Effect.gen(function*() {
            const request = yield* currentRequest
            const refusal = cookies.crossSiteRefusal(request, undefined)
            if (refusal !== undefined) return errorResponse(403, "forbidden", refusal)
            return yield* sessions.secondFactorSignIn(payload, { userAgent: userAgentOf(request) }).pipe(
              Effect.map((result) => signedIn(request, result)),
              Effect.catchTag("TooManyAttempts", (error) => Effect.succeed(tooManyAttemptsResponse(error)))
            )
          }).pipe(Effect.mapError(fromDomain))
      }))
  )
}

export const layerSessionsHandlers = (options: SessionCookieOptions) => {
  const cookies = makeSessionCookies(options)
  const me = (principal: Principal, sessions: Sessions["Service"]) =>
    Effect.gen(function*() {
      const request = yield* currentRequest
      const who = yield* sessions.whoAmI(principal)
      const token = cookies.tokenOf(request)
      return {
        type: principal.session === undefined ? "api_key" as const : "user" as const,
        user: who.user === null ? null : personOf(who.user),
        workspaces: who.workspaces.map(({ role, workspace }) => ({
          id: workspace.id,
          slug: workspace.slug,
          name: workspace.name,
          role
        })),
        api_key_id: principal.keyId,
        second_factor: who.secondFactor,
        ...(principal.session === undefined || token === undefined
          ? {}
          : { session_id: principal.session.id, csrf_token: sessions.csrfTokenOf(token) })
      }
    })
  return HttpApiBuilder.group(
    GatewayApi,
    "sessions",
    withService(Sessions, (handlers, sessions) =>
      handlers.handleAll({
        me: () => asCaller((principal) => me(principal, sessions)),
        list: () =>
          asCaller((principal) =>
            Effect.map(sessions.list(principal), (list) => ({ object: "list" as const, data: list.map(details) }))
          ),
        revoke: ({ params }) => asCaller((principal) => Effect.map(sessions.revoke(principal, params.id), details)),
        signOutEverywhere: () =>
          asCaller((principal) =>
            Effect.map(sessions.signOutEverywhere(principal), ({ revoked }) => ({
              object: "sign-out" as const,
              revoked
            }))
          ),
        signOut: () =>
          asCaller((principal) =>
            Effect.gen(function*() {
              const request = yield* currentRequest
              const ended = yield* sessions.signOut(principal)
              return HttpServerResponse.jsonUnsafe(details(ended), {
                headers: { "set-cookie": cookies.clearCookie(request), "cache-control": "no-store" }
              })
            })
          ),
        setPassword: ({ payload }) =>
          asCaller((principal) =>
            Effect.map(sessions.setPassword(principal, payload), ({ user_id }) => ({
              object: "password" as const,
              user_id
            }))
          )
      }))
  )
}
