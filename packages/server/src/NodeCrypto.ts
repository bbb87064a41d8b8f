/** Node's crypto and DNS behind the domain's ports. */
import { AuditSigner, HostResolver, PasswordHasher, PlatformCrypto, SecretCipher } from "@gateway-control/domain"
import { Effect, Layer } from "effect"
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hash,
  hkdfSync,
  randomBytes,
  randomUUID,
  scrypt,
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

/** scrypt's cost: N = 2^15, r = 8, p = 1 (OWASP's minimum is 2^17 with r 8 at p 1; 2^15 keeps sign-in near 50 ms). */
const SCRYPT = { N: 32_768, r: 8, p: 1, keyLength: 32, saltBytes: 16 } as const
const SCRYPT_HASH = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/

const scryptKey = (password: string, salt: Buffer, N: number, r: number, p: number, keyLength: number) =>
  Effect.callback<Buffer>((resume) => {
    scrypt(
      password.normalize("NFC"),
      salt,
      keyLength,
      { N, r, p, maxmem: 256 * N * r + 1_048_576 },
      (error, key) => error === null ? resume(Effect.succeed(key)) : resume(Effect.die(error))
    )
  })

/**
 * `PasswordHasher` on Node's scrypt: `scrypt$N=…,r=…,p=…$<salt>$<key>` (base64url), a random salt per password;
 * keys compared with `timingSafeEqual`. A hash it cannot read verifies nothing.
 */
export const layerPasswordHasher: Layer.Layer<PasswordHasher> = Layer.succeed(PasswordHasher)(
  PasswordHasher.of({
    hash: (password) => {
      const salt = randomBytes(SCRYPT.saltBytes)
      return Effect.map(
        scryptKey(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keyLength),
        (key) =>
          `scrypt$N=${SCRYPT.N},r=${SCRYPT.r},p=${SCRYPT.p}$${salt.toString("base64url")}$${key.toString("base64url")}`
      )
    },
    verify: (password, stored) => {
      const match = SCRYPT_HASH.exec(stored)
      if (match === null) return Effect.succeed(false)
      const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])]
      const expected = Buffer.from(match[5], "base64url")
      if (N > 1_048_576 || r > 32 || p > 16 || expected.length === 0) return Effect.succeed(false)
      return Effect.map(
        scryptKey(password, Buffer.from(match[4], "base64url"), N, r, p, expected.length),
        (key) => timingSafeEqual(key, expected)
      )
    },
    verifyDummy: (password) =>
      Effect.as(
        scryptKey(password, randomBytes(SCRYPT.saltBytes), SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keyLength),
        false
      )
  })
)
