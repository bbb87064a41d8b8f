/**
 * Signing in with an identity provider, on the router beside HttpApi (no API key: these are how a person gets
 * a session). `GET /v1/auth/providers` lists the enabled providers for the sign-in page; a browser follows
 * `GET /auth/oidc/{provider}/start` (with `?invite={token}` to accept an invitation) to the provider, which sends it back to `GET /auth/oidc/callback`, which
 * hands it the new session's cookie and sends it to the console. Refusals
 * of the browser routes answer a short readable page (the person is in a browser), never a token or a secret;
 * a store that cannot answer is the envelope's 503 like everywhere else.
 */
import { IdentityProviders, OidcSignIn, SIGN_IN_FLOW_SECONDS, type SignInRefused } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { domainErrorResponse } from "../../ApiErrors.ts"
import { makeSessionCookies, type SessionCookieOptions } from "../../internal/sessionCookie.ts"
import { SignInOptions } from "./Api.ts"

export const PROVIDERS_PATH = "/v1/auth/providers"

const encodeSignInOptions = Schema.encodeSync(SignInOptions)
export const START_PATH = "/auth/oidc/:provider/start"
export const CALLBACK_PATH = "/auth/oidc/callback"

/** Where a person lands once signed in. */
export const CONSOLE_PATH = "/console/"

const NO_STORE = { "cache-control": "no-store" }

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/** A page for the person in the browser: what went wrong, and the way back to the sign-in page. */
export const signInPage = (status: number, message: string) =>
  HttpServerResponse.text(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in refused</title></head><body>` +
      `<main><h1>Sign-in refused</h1><p>${escapeHtml(message)}</p>` +
      `<p><a href="${CONSOLE_PATH}">Back to the sign-in page</a></p></main></body></html>`,
    { status, headers: NO_STORE, contentType: "text/html; charset=utf-8" }
  )

const refusedPage = (error: SignInRefused) => signInPage(401, error.message)

const searchOf = (request: HttpServerRequest.HttpServerRequest) => {
  const at = request.url.indexOf("?")
  return at === -1 ? "" : request.url.slice(at + 1)
}

export const layerSignInRoutes = (options: SessionCookieOptions) =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    const cookies = makeSessionCookies(options)
    const providers = yield* IdentityProviders
    const signIn = yield* OidcSignIn

    yield* router.add(
      "GET",
      PROVIDERS_PATH,
      providers.signInOptions.pipe(
        Effect.map((data) =>
          HttpServerResponse.jsonUnsafe(encodeSignInOptions({ object: "list", data }), { headers: NO_STORE })
        ),
        Effect.catch((error) => Effect.succeed(domainErrorResponse(error)))
      )
    )

    yield* router.add(
      "GET",
      START_PATH,
      Effect.flatMap(Effect.all([HttpRouter.params, HttpServerRequest.HttpServerRequest]), ([params, request]) =>
        // `?invite={token}`: the sign-in accepts that invitation (the link's page sends the browser here).
        signIn.start(params.provider ?? "", new URLSearchParams(searchOf(request)).get("invite") ?? undefined).pipe(
          Effect.map((url) => {
            // The browser keeps the flow's state: the callback is taken from this browser only.
            const flow = cookies.flowCookie(request, SIGN_IN_FLOW_SECONDS)
            return HttpServerResponse.redirect(url, { status: 302, headers: NO_STORE }).pipe(
              HttpServerResponse.setCookieUnsafe(flow.name, new URL(url).searchParams.get("state") ?? "", flow.options)
            )
          }),
          Effect.catchTags({
            SignInRefused: (error) => Effect.succeed(refusedPage(error)),
            NotFound: () => Effect.succeed(signInPage(404, "There is no such identity provider, or it is turned off.")),
            StoreError: (error) => Effect.succeed(domainErrorResponse(error))
          })
        ))
    )

    yield* router.add(
      "GET",
      CALLBACK_PATH,
      (request: HttpServerRequest.HttpServerRequest) =>
        signIn.callback(
          searchOf(request),
          { userAgent: request.headers["user-agent"] ?? null },
          cookies.flowStateOf(request)
        ).pipe(
          Effect.map(({ session }) =>
            HttpServerResponse.redirect(CONSOLE_PATH, {
              status: 302,
              headers: { ...NO_STORE, "set-cookie": cookies.newSessionCookie(request, session) }
            })
          ),
          Effect.catchTags({
            SignInRefused: (error) => Effect.succeed(refusedPage(error)),
            StoreError: (error) => Effect.succeed(domainErrorResponse(error))
          }),
          // The flow is spent whatever the outcome: its cookie goes too.
          Effect.map((response) => {
            const { name, options: { maxAge: _maxAge, ...options } } = cookies.flowCookie(request, 0)
            return HttpServerResponse.expireCookieUnsafe(response, name, options)
          })
        )
    )
  }))
