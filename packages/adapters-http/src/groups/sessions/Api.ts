/**
 * People signed in: password sign-in (`signIn`, the one group without a key: the password is the credential),
 * and the session's own endpoints (`sessions`): who am I, my sessions, sign out, sign out everywhere, set a
 * password. A session is a cookie (internal/sessionCookie.ts); every answer that starts one sets it.
 */
import {
  OrganisationRole,
  PasswordSignIn,
  SecondFactorSignIn,
  SecondFactorState,
  Session,
  SetPassword,
  User,
  WorkspaceRole
} from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors, TooManyRequests } from "../../ApiErrors.ts"
import { RequestInputRules } from "../../InputRules.ts"
import { ById, v1Group } from "../Common.ts"

export const SessionDetails = Schema.Struct({ ...Session.fields, object: Schema.Literal("session") })

/** A person as `/v1/me` and sign-in show them. */
export const Person = Schema.Struct({
  ...Struct.pick(User.fields, ["id", "email", "name", "organisation_id"]),
  role: OrganisationRole
})

export const SignedInBody = Schema.Struct({
  object: Schema.Literal("session"),
  session: SessionDetails,
  user: Person,
  /** Send it back in `x-csrf-token` on every change made with the session. */
  csrf_token: Schema.String
})

/** A password sign-in's first step for a person with a second factor: no session yet, a challenge for the code. */
export const SecondFactorRequiredBody = Schema.Struct({
  object: Schema.Literal("second-factor-required"),
  /** Send it back with a code to POST /v1/auth/second-factor; it works once, until expires_at. */
  challenge: Schema.String,
  expires_at: Schema.String
})

export const MeBody = Schema.Struct({
  /** `user` for a person signed in; `api_key` for a key. */
  type: Schema.Literals(["user", "api_key"]),
  /** The person; null for a service key that stands for nobody. */
  user: Schema.NullOr(Person),
  workspaces: Schema.Array(Schema.Struct({
    id: Schema.String,
    slug: Schema.String,
    name: Schema.String,
    role: WorkspaceRole
  })),
  /** The key's id; null for a session. */
  api_key_id: Schema.NullOr(Schema.String),
  session_id: Schema.optionalKey(Schema.String),
  /** For a session: the token its changes must carry in `x-csrf-token`. */
  csrf_token: Schema.optionalKey(Schema.String),
  /**
   * The person's second factor (`totp`: none, pending or active), whether their organisation requires one, and
   * whether this session may only enrol one (`enrolment_only`); null for a key that stands for no person.
   */
  second_factor: Schema.NullOr(SecondFactorState)
})

export const SessionList = Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(SessionDetails) })

export class SignInGroup extends HttpApiGroup.make("signIn")
  .add(
    HttpApiEndpoint.post("password", "/auth/password", {
      payload: PasswordSignIn,
      success: Schema.Union([SignedInBody, SecondFactorRequiredBody]),
      error: [...CommonErrors, TooManyRequests]
    }).annotate(
      OpenApi.Description,
      "Signs in with a local account's email and password: a new session, its cookie (HttpOnly, SameSite=Lax; " +
        "Secure and __Host- over HTTPS) and its CSRF token. A wrong password and an unknown email answer alike " +
        "(401); after too many failures for the email or from the address, every attempt answers 429 with retry-after. " +
        "A person with a second factor gets no session yet: a challenge to send with a code to /auth/second-factor. " +
        "Where the organisation turned password sign-in off, the right password answers 401 saying so."
    ),
    HttpApiEndpoint.post("secondFactor", "/auth/second-factor", {
      payload: SecondFactorSignIn,
      success: SignedInBody,
      error: [...CommonErrors, TooManyRequests]
    }).annotate(
      OpenApi.Description,
      "A password sign-in's second step: the challenge the first answered (used once, right or wrong) and the " +
        "code the authenticator app shows now (each code is accepted once). Signs in as the first step would."
    )
  )
  .middleware(RequestInputRules)
  .prefix("/v1")
{}

export class SessionsGroup extends v1Group(
  HttpApiGroup.make("sessions")
    .add(
      HttpApiEndpoint.get("me", "/me", { success: MeBody, error: CommonErrors }).annotate(
        OpenApi.Description,
        "Who is calling: a person signed in (with their workspaces and the session's CSRF token) or a key, and " +
          "the person's second factor: second_factor.enrolment_only true means the session may only enrol one " +
          "(/v1/me/second-factor) until it is confirmed."
      ),
      HttpApiEndpoint.get("list", "/sessions", { success: SessionList, error: CommonErrors }).annotate(
        OpenApi.Description,
        "The caller's person's sessions still running, newest first."
      ),
      HttpApiEndpoint.delete("revoke", "/sessions/:id", { params: ById, success: SessionDetails, error: CommonErrors })
        .annotate(
          OpenApi.Description,
          "Ends a session: one's own, or (organisation owners and admins) any of the organisation's."
        ),
      HttpApiEndpoint.delete("signOutEverywhere", "/sessions", {
        success: Schema.Struct({ object: Schema.Literal("sign-out"), revoked: Schema.Int }),
        error: CommonErrors
      }).annotate(OpenApi.Description, "Ends every session of the caller's person."),
      HttpApiEndpoint.post("signOut", "/auth/sign-out", { success: SessionDetails, error: CommonErrors }).annotate(
        OpenApi.Description,
        "Ends the caller's session and clears its cookie."
      ),
      HttpApiEndpoint.put("setPassword", "/auth/password", {
        payload: SetPassword,
        success: Schema.Struct({ object: Schema.Literal("password"), user_id: Schema.String }),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Sets a local account's password (12 characters or more): one's own (with current_password once one " +
          "is set), or, for organisation owners and admins, another user's. Ends the account's other sessions."
      )
    )
) {}
