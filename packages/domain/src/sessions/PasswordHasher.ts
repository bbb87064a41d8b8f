/**
 * Password hashing, by an adapter on the platform's memory-hard KDF (the server's is scrypt from node:crypto).
 * A hash is self-describing text (algorithm, parameters, per-password salt), so parameters can change without
 * invalidating hashes already stored.
 */
import { Context, type Effect } from "effect"

export class PasswordHasher extends Context.Service<
  PasswordHasher,
  {
    readonly hash: (password: string) => Effect.Effect<string>
    /** Whether `password` matches `hash`, compared in constant time; false for a hash it cannot read. */
    readonly verify: (password: string, hash: string) => Effect.Effect<boolean>
    /**
     * Spends what a `verify` spends and answers false: what a sign-in for an unknown email does, so that it
     * takes as long as one for a known email with a wrong password.
     */
    readonly verifyDummy: (password: string) => Effect.Effect<boolean>
  }
>()("@gateway-control/PasswordHasher") {}
