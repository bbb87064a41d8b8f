/**
 * Leases: how processes sharing one store agree that only one of them does a background job at a time. A
 * lease runs until its expiry unless its holder renews it; a holder that crashes stops renewing, and once
 * its lease has expired another process takes it. Expiry follows the store's clock, shared by every process.
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "./StoreError.ts"

export class LeaseStore extends Context.Service<
  LeaseStore,
  {
    /**
     * Takes the lease `name` for `holder`, or renews it when `holder` has it already, until `ttlMs` from now.
     * False while another holder's lease runs.
     */
    readonly acquire: (name: string, holder: string, ttlMs: number) => Effect.Effect<boolean, StoreError>
    /** Gives the lease up, when `holder` has it, so another process need not wait for its expiry. */
    readonly release: (name: string, holder: string) => Effect.Effect<void, StoreError>
  }
>()("@gateway-control/LeaseStore") {}
