/**
 * The platform ports on Node's crypto, for domain-level tests: the domain itself imports only `effect`.
 * `layerAuditTestCrypto(key)` signs the audit chain under `key`, so a test can play someone who lacks it.
 */
import { Layer } from "effect"
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  randomUUID,
  timingSafeEqual
} from "node:crypto"
import { AuditSigner } from "../../src/audit/AuditLogStore.ts"
import { SecretCipher } from "../../src/fine-tuning/Providers.ts"
import { PlatformCrypto } from "../../src/shared/PlatformCrypto.ts"

export const sha256Hex = (input: string) => createHash("sha256").update(input, "utf8").digest("hex")
export const hmacHex = (key: string, input: string) => createHmac("sha256", key).update(input, "utf8").digest("hex")

export const layerAuditTestCrypto = (key = "the gateway's audit key") =>
  Layer.mergeAll(
    Layer.succeed(PlatformCrypto)(PlatformCrypto.of({
      uuid: () => randomUUID(),
      randomToken: (bytes) => randomBytes(bytes).toString("base64url"),
      sha256Hex,
      digestsEqual: (a, b) => {
        const left = Buffer.from(a, "hex")
        const right = Buffer.from(b, "hex")
        return left.length === right.length && left.length > 0 && timingSafeEqual(left, right)
      }
    })),
    Layer.succeed(AuditSigner)(AuditSigner.of({
      chainMac: (input) => hmacHex(`chain:${key}`, input),
      checkpointMac: (input) => hmacHex(`checkpoint:${key}`, input),
      keyCheck: hmacHex(`check:${key}`, "master key check")
    }))
  )

/** AES-256-GCM under a fresh key, `<iv>.<ciphertext>.<tag>` in base64url: what a store is given to keep. */
export const makeTestCipher = (key: Uint8Array = randomBytes(32)) =>
  SecretCipher.of({
    encrypt: (plaintext) => {
      const iv = randomBytes(12)
      const cipher = createCipheriv("aes-256-gcm", key, iv)
      const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
      return [iv, sealed, cipher.getAuthTag()].map((part) => part.toString("base64url")).join(".")
    },
    decrypt: (ciphertext) => {
      const [iv, sealed, tag] = ciphertext.split(".").map((part) => Buffer.from(part, "base64url"))
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, iv)
        decipher.setAuthTag(tag)
        return Buffer.concat([decipher.update(sealed), decipher.final()]).toString("utf8")
      } catch {
        return undefined
      }
    }
  })
