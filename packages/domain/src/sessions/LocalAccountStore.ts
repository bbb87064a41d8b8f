/**
 * Where organisations' sign-in settings, people's TOTP second factors and sign-in challenges are kept. Reads
 * return `Option` for absence; a store that cannot answer fails with `StoreError`. A user's factor and
 * challenges go with the user.
 */
import { Context, type Effect, type Option } from "effect"
import type { StoreError } from "../shared/StoreError.ts"
import type { SignInSettings, StoredTotp } from "./LocalAccount.ts"

export class LocalAccountStore extends Context.Service<
  LocalAccountStore,
  {
    /** The organisation's settings; none when it never changed them. */
    readonly settingsOf: (organisationId: string) => Effect.Effect<Option.Option<SignInSettings>, StoreError>
    readonly saveSettings: (settings: SignInSettings) => Effect.Effect<void, StoreError>
    readonly totpOf: (userId: string) => Effect.Effect<Option.Option<StoredTotp>, StoreError>
    /** Keeps a new, pending factor for the user, in place of any factor they had. */
    readonly savePendingTotp: (userId: string, encryptedSecret: string, at: string) => Effect.Effect<void, StoreError>
    /** Makes the user's pending factor active, its code of `step` used; false when none was pending. */
    readonly activateTotp: (userId: string, step: number, at: string) => Effect.Effect<boolean, StoreError>
    /**
     * Marks the code of `step` used on the user's active factor: false when the factor is not active or a code of
     * this step or a later one was used already (a replay). One taker of a step, however many processes race.
     */
    readonly useTotpStep: (userId: string, step: number) => Effect.Effect<boolean, StoreError>
    readonly deleteTotp: (userId: string) => Effect.Effect<boolean, StoreError>
    /** Keeps a sign-in challenge by its token's hash; challenges expired at `now` are dropped on the way. */
    readonly insertChallenge: (
      tokenHash: string,
      userId: string,
      expiresAt: string,
      now: string
    ) => Effect.Effect<void, StoreError>
    /** Removes the challenge and answers its user when it had not expired at `now`: one taker at most. */
    readonly takeChallenge: (tokenHash: string, now: string) => Effect.Effect<Option.Option<string>, StoreError>
  }
>()("@gateway-control/LocalAccountStore") {}
