/**
 * The platform ports on Node's crypto, for domain-level tests: the domain itself imports only `effect`.
 * `layerAuditTestCrypto(key)` signs the audit chain under `key`, so a test can play someone who lacks it.
 */
import { Layer } from "effect"
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto"
import { AuditSigner } from "../../src/audit/AuditLogStore.ts"
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
      checkpointMac: (input) => hmacHex(`checkpoint:${key}`, input)
    }))
  )
