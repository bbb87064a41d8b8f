/**
 * Where invitations are kept, with the SHA-256 of their link's token (never the token). The state changes are
 * conditional, so a link is used at most once however many accept it at the same moment. A store that cannot
 * answer fails with `StoreError`.
 */
import { Context, type Effect, type Option } from "effect"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { Invite, InviteFilter } from "./Invite.ts"

export class InviteStore extends Context.Service<
  InviteStore,
  {
    readonly insert: (invite: Invite, tokenHash: string) => Effect.Effect<void, StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<Invite>, StoreError>
    /** The organisation's invitations matching the filter (an email: exactly, any case; `expired` as of `at`), oldest first. */
    readonly list: (
      organisationId: string,
      filter: InviteFilter,
      at: string,
      page: PageRequest
    ) => Effect.Effect<Page<Invite>, StoreError>
    /** The invitation whose link's token hashes to this, in any state. */
    readonly findByTokenHash: (tokenHash: string) => Effect.Effect<Option.Option<Invite>, StoreError>
    /** A new link for a pending invitation: the old token stops working. False when it is not pending. */
    readonly renew: (id: string, tokenHash: string, expiresAt: string, at: string) => Effect.Effect<boolean, StoreError>
    /** Cancels a pending invitation; false when it was not pending. */
    readonly cancel: (id: string, at: string) => Effect.Effect<boolean, StoreError>
    /**
     * Marks the invitation accepted by `userId`, only while it is pending, its token still hashes to `tokenHash`
     * and it has not expired at `at`: false otherwise, and then nothing changes (single use).
     */
    readonly accept: (id: string, tokenHash: string, userId: string, at: string) => Effect.Effect<boolean, StoreError>
  }
>()("@gateway-control/InviteStore") {}
