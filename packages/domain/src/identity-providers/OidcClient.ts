/**
 * The OpenID Connect relying party: discovery, the request to the provider (code flow with PKCE S256, `state` and
 * `nonce`), the code exchange and the ID token's validation (signature, `iss`, `aud`, `exp`, `nonce`). An adapter
 * on a well-kept library implements it (adapters-oidc, on openid-client); the domain never parses a token.
 */
import { Context, type Effect, type Redacted, Schema } from "effect"

/** How the gateway is registered at a provider. */
export interface OidcConnection {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** `${PUBLIC_URL}/auth/oidc/callback`. */
  readonly redirectUri: string
}

/** Where to send the browser, and what its callback must match (kept server-side until then). */
export interface OidcAuthorization {
  readonly url: string
  readonly state: string
  readonly nonce: string
  readonly codeVerifier: string
}

/** What the callback must match. */
export interface OidcExpectations {
  readonly state: string
  readonly nonce: string
  readonly codeVerifier: string
}

/** The provider could not be reached or its answer was refused; `message` says why, without secrets. */
export class OidcFailure extends Schema.TaggedError<OidcFailure>()("OidcFailure", {
  message: Schema.String
}) {}

export class OidcClient extends Context.Service<
  OidcClient,
  {
    readonly begin: (connection: OidcConnection) => Effect.Effect<OidcAuthorization, OidcFailure>
    /**
     * Exchanges the code of the callback (`search`: its query string) and answers the validated ID token's
     * claims, with the userinfo endpoint's claims for those the token lacks.
     */
    readonly finish: (
      connection: OidcConnection,
      search: string,
      expected: OidcExpectations
    ) => Effect.Effect<Readonly<Record<string, unknown>>, OidcFailure>
  }
>()("@gateway-control/OidcClient") {}
