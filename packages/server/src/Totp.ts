/**
 * `Totp` on `otpauth` (RFC 6238): SHA-1, 6 digits, 30-second steps, 20-byte random secrets; a code is accepted one
 * step either side of now, to allow for clocks that drift.
 */
import { Totp } from "@gateway-control/domain"
import { Layer } from "effect"
import * as OTPAuth from "otpauth"

const PERIOD_SECONDS = 30
const ISSUER = "gateway-control"

const totpOf = (secret: string, label = "") =>
  new OTPAuth.TOTP({
    issuer: ISSUER,
    label,
    algorithm: "SHA1",
    digits: 6,
    period: PERIOD_SECONDS,
    secret: OTPAuth.Secret.fromBase32(secret)
  })

export const layerTotp: Layer.Layer<Totp> = Layer.succeed(Totp)(
  Totp.of({
    generateSecret: () => new OTPAuth.Secret({ size: 20 }).base32,
    uri: (secret, account) => totpOf(secret, account).toString(),
    matchingStep: (secret, code, atMs) => {
      if (!/^\d{6}$/.test(code)) return undefined
      const delta = totpOf(secret).validate({ token: code, timestamp: atMs, window: 1 })
      return delta === null ? undefined : Math.floor(atMs / 1000 / PERIOD_SECONDS) + delta
    }
  })
)
