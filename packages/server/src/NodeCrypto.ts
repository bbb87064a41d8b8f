/** Node's crypto and DNS behind the domain's ports. */
import { AuditSigner, HostResolver, PlatformCrypto, SecretCipher } from "@gateway-control/domain"
import { Effect, Layer } from "effect"
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hash,
  hkdfSync,
  randomBytes,
  randomUUID,
  timingSafeEqual
} from "node:crypto"
import { lookup } from "node:dns/promises"

/** `PlatformCrypto` on Node's crypto module: synchronous, as the key check on every request needs. */
export const layerNodeCrypto: Layer.Layer<PlatformCrypto> = Layer.succeed(PlatformCrypto)(
  PlatformCrypto.of({
    uuid: () => randomUUID(),
    randomToken: (bytes) => randomBytes(bytes).toString("base64url"),
    // The one-shot form: every request hashes its key, and it skips a Hash object per call.
    sha256Hex: (input) => hash("sha256", input, "hex"),
    digestsEqual: (a, b) => {
      const left = Buffer.from(a, "hex")
      const right = Buffer.from(b, "hex")
      return left.length === right.length && left.length > 0 && timingSafeEqual(left, right)
    }
  })
)

/**
 * `SecretCipher` with AES-256-GCM: `v1.<iv>.<ciphertext>.<tag>` in base64url. A fresh 96-bit IV per
 * encryption; the tag makes any alteration, or a different key, fail to decrypt.
 */
export const makeSecretCipher = (key: Uint8Array) => {
  if (key.length !== 32) throw new Error("The master key must be 32 bytes")
  return SecretCipher.of({
    encrypt: (plaintext) => {
      const iv = randomBytes(12)
      const cipher = createCipheriv("aes-256-gcm", key, iv)
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
      return ["v1", iv, ciphertext, cipher.getAuthTag()].map((
        p
      ) => (typeof p === "string" ? p : p.toString("base64url"))).join(".")
    },
    decrypt: (encoded) => {
      const [version, iv, ciphertext, tag] = encoded.split(".")
      if (version !== "v1" || iv === undefined || ciphertext === undefined || tag === undefined) return undefined
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"))
        decipher.setAuthTag(Buffer.from(tag, "base64url"))
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8")
      } catch {
        return undefined
      }
    }
  })
}

export const layerSecretCipher = (key: Uint8Array): Layer.Layer<SecretCipher> =>
  Layer.succeed(SecretCipher)(makeSecretCipher(key))

/**
 * HKDF labels of the audit keys: each purpose gets its own key from the master key, so no key serves two
 * purposes (the master key itself only encrypts provider keys).
 */
export const AUDIT_CHAIN_KEY_INFO = "gateway-control audit chain v1"
export const AUDIT_CHECKPOINT_KEY_INFO = "gateway-control audit checkpoint v1"
export const MASTER_KEY_CHECK_INFO = "gateway-control master key check v1"

const deriveKey = (masterKey: Uint8Array, info: string) =>
  Buffer.from(hkdfSync("sha256", masterKey, new Uint8Array(0), info, 32))

/** `AuditSigner` with HMAC-SHA256 under keys derived from the master key with HKDF-SHA256. */
export const makeAuditSigner = (masterKey: Uint8Array) => {
  if (masterKey.length !== 32) throw new Error("The master key must be 32 bytes")
  const chainKey = deriveKey(masterKey, AUDIT_CHAIN_KEY_INFO)
  const checkpointKey = deriveKey(masterKey, AUDIT_CHECKPOINT_KEY_INFO)
  return AuditSigner.of({
    chainMac: (input) => createHmac("sha256", chainKey).update(input, "utf8").digest("hex"),
    checkpointMac: (input) => createHmac("sha256", checkpointKey).update(input, "utf8").digest("hex"),
    keyCheck: createHmac("sha256", deriveKey(masterKey, MASTER_KEY_CHECK_INFO)).update("master key check", "utf8")
      .digest("hex")
  })
}

export const layerAuditSigner = (masterKey: Uint8Array): Layer.Layer<AuditSigner> =>
  Layer.succeed(AuditSigner)(makeAuditSigner(masterKey))

/** Every address a host name resolves to, through the system resolver (as connections would). */
export const layerHostResolver: Layer.Layer<HostResolver> = Layer.succeed(HostResolver)(
  HostResolver.of({
    resolve: (host) =>
      Effect.tryPromise(() => lookup(host, { all: true, verbatim: true })).pipe(
        Effect.map((entries) => entries.map((entry) => entry.address)),
        Effect.orElseSucceed(() => [])
      )
  })
)
