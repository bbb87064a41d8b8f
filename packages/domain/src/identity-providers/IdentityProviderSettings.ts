/**
 * What the operator configured for sign-in (environment or embedding options): the gateway's public URL, whose
 * `/auth/oidc/callback` is the redirect URI every provider is registered with, and the first provider.
 */
import { Context, type Redacted } from "effect"
import type { RoleMap } from "./IdentityProvider.ts"

/** The provider of `OIDC_ISSUER`, `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET`, …: the organisation's first provider. */
export interface OperatorIdentityProvider {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly groupsClaim: string
  readonly roleMap: RoleMap
  readonly allowedDomains: ReadonlyArray<string>
}

/** The slug (and id) the operator's provider goes by: `/auth/oidc/oidc/start`. */
export const OPERATOR_PROVIDER_SLUG = "oidc"

/** How long a sign-in may take between the redirect to the provider and its callback. */
export const SIGN_IN_FLOW_SECONDS = 600

export class IdentityProviderSettings extends Context.Service<
  IdentityProviderSettings,
  {
    /** The gateway's external base URL, without a trailing slash; null when not configured (no sign-in). */
    readonly publicUrl: string | null
    readonly operatorProvider: OperatorIdentityProvider | null
  }
>()("@gateway-control/IdentityProviderSettings") {}

export const callbackUrlOf = (publicUrl: string): string => `${publicUrl}/auth/oidc/callback`
