/**
 * Randomness and hashing from the platform.
 */
import { Context } from "effect"

/** Randomness and hashing, implemented on the platform's crypto. Synchronous: key checks sit on the hot path. */
export class PlatformCrypto extends Context.Service<
  PlatformCrypto,
  {
    /** A random (v4) UUID. */
    readonly uuid: () => string
    /** `bytes` cryptographically random bytes as unpadded base64url. */
    readonly randomToken: (bytes: number) => string
    /** SHA-256 of the UTF-8 input as lower-case hex. */
    readonly sha256Hex: (input: string) => string
    /** Constant-time equality of two hex digests. */
    readonly digestsEqual: (a: string, b: string) => boolean
  }
>()("@gateway-control/PlatformCrypto") {}
