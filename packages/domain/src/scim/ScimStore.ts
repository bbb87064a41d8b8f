/**
 * Where SCIM keeps what it adds to users (`ScimIdentity`) and its groups (`ScimGroup`). Reads return `Option`
 * for absence; a store that cannot answer fails with `StoreError`. A removed user leaves every group.
 */
import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { ScimGroup } from "./ScimGroup.ts"
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
    /** Fails with `Conflict` when the organisation has a group of that name (without case). */
    readonly insertGroup: (group: ScimGroup) => Effect.Effect<void, Conflict | StoreError>
    readonly getGroup: (id: string) => Effect.Effect<Option.Option<ScimGroup>, StoreError>
    /** Every group of the organisation, by created_at, then id. */
    readonly groups: (organisationId: string) => Effect.Effect<ReadonlyArray<ScimGroup>, StoreError>
    /** The groups the user is a member of. */
    readonly groupsOf: (userId: string) => Effect.Effect<ReadonlyArray<ScimGroup>, StoreError>
    /** Replaces the group's name, external id, members and last_updated_at; false when there was none. */
    readonly updateGroup: (group: ScimGroup) => Effect.Effect<boolean, Conflict | StoreError>
    readonly removeGroup: (id: string) => Effect.Effect<boolean, StoreError>
  }
>()("@gateway-control/ScimStore") {}
