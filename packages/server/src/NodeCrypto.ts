/** `PlatformCrypto` on Node's crypto module: synchronous, as the key check on every request needs. */
import { PlatformCrypto } from "@gateway-control/domain"
import { Layer } from "effect"
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto"

export const layerNodeCrypto: Layer.Layer<PlatformCrypto> = Layer.succeed(PlatformCrypto)(
  PlatformCrypto.of({
    uuid: () => randomUUID(),
    randomToken: (bytes) => randomBytes(bytes).toString("base64url"),
    sha256Hex: (input) => createHash("sha256").update(input, "utf8").digest("hex"),
    digestsEqual: (a, b) => {
      const left = Buffer.from(a, "hex")
      const right = Buffer.from(b, "hex")
      return left.length === right.length && left.length > 0 && timingSafeEqual(left, right)
    }
  })
)
