/**
 * The health of an integration's credential: whether a cheap authenticated call to its provider (listing models)
 * works with it, as the background checker and an on-demand test last found (CredentialHealthChecks.ts), kept
 * beside the integration, not in it: a check changes nothing an administrator set.
 */
import { Context, type Effect, type Option, Schema } from "effect"
import type { StoreError } from "../shared/StoreError.ts"

/**
 * `active`: the provider took the credential. `failing`: it did not (its error in `status_message`), or no call
 * could be made with it (no key, a secret reference that cannot be fetched, an unreachable or refused host).
 * `expired`: the provider refused it (401 or 403) saying it expired.
 */
export const CredentialStatus = Schema.Literals(["active", "failing", "expired"])
export type CredentialStatus = typeof CredentialStatus.Type

export class CredentialHealth extends Schema.Class<CredentialHealth>("CredentialHealth")({
  integration_id: Schema.String,
  status: CredentialStatus,
  /** Why the last check failed, in the provider's words where it gave them; null when it succeeded. */
  status_message: Schema.NullOr(Schema.String),
  /** When the last check ran. */
  checked_at: Schema.String,
  last_success_at: Schema.NullOr(Schema.String),
  last_failure_at: Schema.NullOr(Schema.String)
}) {}

/** Where the last check of each integration's credential is kept. A store that cannot answer fails with `StoreError`. */
export class CredentialHealthStore extends Context.Service<
  CredentialHealthStore,
  {
    /** Keeps the integration's health, replacing what was kept. */
    readonly put: (health: CredentialHealth) => Effect.Effect<void, StoreError>
    readonly get: (integrationId: string) => Effect.Effect<Option.Option<CredentialHealth>, StoreError>
    /** The last checks of several integrations (a page of a list) in one read, by integration id; none for unchecked ones. */
    readonly getMany: (
      integrationIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, CredentialHealth>, StoreError>
  }
>()("@gateway-control/CredentialHealthStore") {}
