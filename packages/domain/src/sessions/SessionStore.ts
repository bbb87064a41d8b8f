/**
 * Where sessions and local accounts' password hashes are kept. Reads return `Option` for absence; a store that
 * cannot answer fails with `StoreError`. Sessions of a removed user go with the user (or are never admitted:
 * admission reads the user at every request).
 */
import { Context, type Effect, type Option } from "effect"
import type { StoreError } from "../shared/StoreError.ts"
import type { Session, StoredSession } from "./Session.ts"

/** A local account's password hash, found by the user's email. */
export interface StoredPassword {
  readonly userId: string
  readonly passwordHash: string
}

export class SessionStore extends Context.Service<
  SessionStore,
  {
    readonly insert: (session: Session, tokenHash: string) => Effect.Effect<void, StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<Session>, StoreError>
    /** The session whose token hashes to `tokenHash`, revoked or not. */
    readonly findByTokenHash: (tokenHash: string) => Effect.Effect<Option.Option<StoredSession>, StoreError>
    /** The user's sessions neither revoked nor past their absolute expiry at `at`, newest first. */
    readonly listActive: (userId: string, at: string) => Effect.Effect<ReadonlyArray<Session>, StoreError>
    /** Moves `last_seen_at` forward; false when there was no such session. */
    readonly touch: (id: string, at: string) => Effect.Effect<boolean, StoreError>
    /** Revokes the session at `at`; false when there was none, or it was revoked already. */
    readonly revoke: (id: string, at: string) => Effect.Effect<boolean, StoreError>
    /** Revokes every session of the user not yet revoked, but `exceptId`'s; answers their ids. */
    readonly revokeAll: (
      userId: string,
      at: string,
      exceptId: string | null
    ) => Effect.Effect<ReadonlyArray<string>, StoreError>
    /** Sets (or replaces) the user's password hash. */
    readonly setPassword: (userId: string, passwordHash: string, at: string) => Effect.Effect<void, StoreError>
    readonly passwordOf: (userId: string) => Effect.Effect<Option.Option<string>, StoreError>
    /** The password hashes of every user with this email (case-insensitive), in any organisation. */
    readonly passwordsByEmail: (email: string) => Effect.Effect<ReadonlyArray<StoredPassword>, StoreError>
  }
>()("@gateway-control/SessionStore") {}
