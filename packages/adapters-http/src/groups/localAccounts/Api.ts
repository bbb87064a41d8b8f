/**
 * Local accounts' settings and second factors: an organisation's sign-in settings (`signInSettings`, owners and
 * admins) and the caller's own TOTP second factor (`secondFactor`, a person signed in).
 */
import { SecondFactorCode, SecondFactorStatus, SignInSettings, UpdateSignInSettings } from "@gateway-control/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors, TooManyRequests } from "../../ApiErrors.ts"
import { created, v1Group } from "../Common.ts"

export const SignInSettingsDetails = Schema.Struct({
  ...SignInSettings.fields,
  object: Schema.Literal("sign-in-settings")
})

export const SecondFactorDetails = Schema.Struct({
  ...SecondFactorStatus.fields,
  object: Schema.Literal("second-factor")
})

export const TotpEnrolmentBody = Schema.Struct({
  object: Schema.Literal("totp-enrolment"),
  user_id: Schema.String,
  /** The otpauth:// URI for the authenticator app (a QR code of it, or pasted): it holds the secret; shown once. */
  otpauth_uri: Schema.String
})

export class SignInSettingsGroup extends v1Group(
  HttpApiGroup.make("signInSettings")
    .add(
      HttpApiEndpoint.get("get", "/admin/sign-in-settings", { success: SignInSettingsDetails, error: CommonErrors })
        .annotate(
          OpenApi.Description,
          "The organisation's sign-in settings: whether password sign-in is on, whether it needs a second factor."
        ),
      HttpApiEndpoint.patch("update", "/admin/sign-in-settings", {
        payload: UpdateSignInSettings,
        success: SignInSettingsDetails,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Changes the fields given. local_accounts_enabled false turns password sign-in off (refused, 400, while " +
          "the organisation has no enabled identity provider); require_second_factor true makes a password sign-in " +
          "need a TOTP code, and lets a person without one in only to enrol. Owners' and admins' admin keys."
      )
    )
) {}

export class SecondFactorGroup extends v1Group(
  HttpApiGroup.make("secondFactor")
    .add(
      HttpApiEndpoint.get("get", "/me/second-factor", { success: SecondFactorDetails, error: CommonErrors }).annotate(
        OpenApi.Description,
        "The caller's second factor: totp none, pending or active, and whether their organisation requires one."
      ),
      HttpApiEndpoint.post("enrol", "/me/second-factor/totp", {
        success: created(TotpEnrolmentBody),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Enrols a TOTP second factor for the person signed in: answers its otpauth:// URI this once (it holds " +
          "the secret, kept encrypted). Pending until confirmed with a code; replaces a pending one; 409 when one " +
          "is active."
      ),
      HttpApiEndpoint.post("confirm", "/me/second-factor/totp/confirm", {
        payload: SecondFactorCode,
        success: SecondFactorDetails,
        error: [...CommonErrors, TooManyRequests]
      }).annotate(OpenApi.Description, "Activates the pending second factor with a code the authenticator shows."),
      HttpApiEndpoint.post("disable", "/me/second-factor/totp/disable", {
        payload: SecondFactorCode,
        success: SecondFactorDetails,
        error: [...CommonErrors, TooManyRequests]
      }).annotate(OpenApi.Description, "Removes the second factor; an active one needs a current code.")
    )
) {}
