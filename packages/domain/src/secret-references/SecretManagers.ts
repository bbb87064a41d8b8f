/**
 * The port to the secret managers: fetches one secret with a reference's login. Implemented at the edge
 * (HashiCorp Vault's HTTP API, the AWS SDK's Secrets Manager client, Azure Key Vault's REST API, the
 * operator's secrets file). The value is `Redacted` from the moment it arrives: it is never logged, stored or
 * answered.
 */
import { Context, type Effect, type Redacted, Schema } from "effect"
import type { AuthConfig, ManagerType } from "./SecretReference.ts"

/** What one fetch needs: the manager, its whole login (secret fields in clear), and where the secret is. */
export interface SecretFetch {
  readonly managerType: ManagerType
  readonly auth: Redacted.Redacted<AuthConfig>
  readonly secretPath: string
  /** The host (`host:port`) of the record the secret will be sent to: the `file` manager checks its hosts. */
  readonly destinationHost: string
  /**
   * The checked addresses of each manager URL the login names, by the URL's `host`: the connection to that host
   * goes only there, whatever DNS answers meanwhile (a name that rebinds to an internal address after the check
   * cannot be reached). A host not in it (a trusted one, or the managers' own public endpoints) connects as DNS says.
   */
  readonly pins: ReadonlyMap<string, ReadonlyArray<string>>
}

/** A secret as its manager holds it: text, or a JSON object of fields. */
export type SecretValue = string | Readonly<Record<string, unknown>>

/**
 * The manager refused or could not be reached. The message is the manager's answer in words fit to show the
 * reference's writer (never a secret); `status` is its HTTP status when it answered one.
 */
export class SecretManagerError extends Schema.TaggedError<SecretManagerError>()("SecretManagerError", {
  message: Schema.String,
  status: Schema.NullOr(Schema.Int)
}) {}

export class SecretManagers extends Context.Service<
  SecretManagers,
  {
    readonly fetch: (request: SecretFetch) => Effect.Effect<Redacted.Redacted<SecretValue>, SecretManagerError>
  }
>()("@gateway-control/SecretManagers") {}

/** How long a fetched value is kept in the process: `SECRET_CACHE_TTL_MS`. */
export interface SecretReferenceSettingsShape {
  readonly cacheTtlMs: number
}

export const SecretReferenceSettings = Context.Reference<SecretReferenceSettingsShape>(
  "@gateway-control/domain/SecretReferenceSettings",
  { defaultValue: () => ({ cacheTtlMs: 30_000 }) }
)
