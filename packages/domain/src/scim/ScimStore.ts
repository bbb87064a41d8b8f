/**
 * Where SCIM keeps what it adds to users (`ScimIdentity`). Reads return `Option` for absence; a store that
 * cannot answer fails with `StoreError`.
 */
import { Context, type Effect, type Option } from "effect"
import type { StoreError } from "../shared/StoreError.ts"
import type { ScimIdentity } from "./ScimUser.ts"

export class ScimStore extends Context.Service<
  ScimStore,
  {
    /** Writes the user's SCIM attributes, replacing any. */
    readonly putIdentity: (identity: ScimIdentity) => Effect.Effect<void, StoreError>
    readonly getIdentity: (userId: string) => Effect.Effect<Option.Option<ScimIdentity>, StoreError>
    /** Every SCIM identity of the organisation. */
    readonly identities: (organisationId: string) => Effect.Effect<ReadonlyArray<ScimIdentity>, StoreError>
    readonly removeIdentity: (userId: string) => Effect.Effect<boolean, StoreError>
  }
>()("@gateway-control/ScimStore") {}
