/**
 * Time-based one-time passwords (RFC 6238), by an adapter on a well-kept library (the server's is `otpauth`):
 * SHA-1, 6 digits, 30-second steps, the authenticator apps' defaults.
 */
import { Context } from "effect"

export class Totp extends Context.Service<
  Totp,
  {
    /** A new random secret, base32. */
    readonly generateSecret: () => string
    /** The otpauth:// URI an authenticator app reads (as a QR code or pasted), for `account` at the gateway. */
    readonly uri: (secret: string, account: string) => string
    /** The time step whose code `code` is, at `atMs`, one step either side allowed; undefined when it is none. */
    readonly matchingStep: (secret: string, code: string, atMs: number) => number | undefined
  }
>()("@gateway-control/Totp") {}
