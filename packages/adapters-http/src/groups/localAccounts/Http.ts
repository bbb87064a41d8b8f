import { LocalAccounts, type SecondFactorStatus, type SignInSettings } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { fromDomain, tooManyAttemptsResponse } from "../../ApiErrors.ts"
import { asCaller, currentPrincipal } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

const settingsDetails = (settings: SignInSettings) => ({ ...settings, object: "sign-in-settings" as const })
const secondFactorDetails = (status: SecondFactorStatus) => ({ ...status, object: "second-factor" as const })

export const SignInSettingsHandlers = HttpApiBuilder.group(
  GatewayApi,
  "signInSettings",
  withService(LocalAccounts, (handlers, accounts) =>
    handlers.handleAll({
      get: () => asCaller((principal) => Effect.map(accounts.settings(principal), settingsDetails)),
      update: ({ payload }) =>
        asCaller((principal) => Effect.map(accounts.updateSettings(principal, payload), settingsDetails))
    }))
)

export const SecondFactorHandlers = HttpApiBuilder.group(
  GatewayApi,
  "secondFactor",
  // A code is checked against the factor: too many wrong ones answer 429 with retry-after.
  withService(LocalAccounts, (handlers, accounts) =>
    handlers.handleAll({
      get: () => asCaller((principal) => Effect.map(accounts.secondFactor(principal), secondFactorDetails)),
      enrol: () =>
        asCaller((principal) =>
          Effect.map(
            accounts.enrolTotp(principal),
            (enrolment) => ({ ...enrolment, object: "totp-enrolment" as const })
          )
        ),
      confirm: ({ payload }) =>
        Effect.flatMap(currentPrincipal, (principal) => accounts.confirmTotp(principal, payload)).pipe(
          Effect.map(secondFactorDetails),
          Effect.catchTag("TooManyAttempts", (error) => Effect.succeed(tooManyAttemptsResponse(error))),
          Effect.mapError(fromDomain)
        ),
      disable: ({ payload }) =>
        Effect.flatMap(currentPrincipal, (principal) => accounts.disableTotp(principal, payload)).pipe(
          Effect.map(secondFactorDetails),
          Effect.catchTag("TooManyAttempts", (error) => Effect.succeed(tooManyAttemptsResponse(error))),
          Effect.mapError(fromDomain)
        )
    }))
)
