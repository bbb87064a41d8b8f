import { Effect } from "effect"
import { createHash, createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import { chainHash, checkpointText, GENESIS_HASH, headsOf, walkChain } from "../src/audit/AuditChain.ts"
import { AuditLogStore } from "../src/audit/AuditLogStore.ts"
import { AuditRecord } from "../src/audit/AuditRecord.ts"
import { isSecretName, REDACTED, SECRET_FIELDS } from "../src/audit/AuditRedaction.ts"
import { canonicalJson } from "../src/audit/internal/canonicalJson.ts"
import { MAX_DEPTH, MAX_TEXT, storableBody } from "../src/audit/internal/storable.ts"
import { LEGACY_SEAL_ACTION, LEGACY_SEAL_RESOURCE_TYPE } from "../src/audit/LegacySeal.ts"
import { HARMLESS_NAMES, SECRET_NAMES } from "./support/SecretNames.ts"

const sha256Hex = (input: string) => createHash("sha256").update(input).digest("hex")
const macUnder = (key: string) => (input: string) => createHmac("sha256", key).update(input).digest("hex")
const hashers = { sha256Hex, chainMac: macUnder("the gateway's key") }

/** `{"a": {"a": … }}`, `depth` objects deep. */
const nested = (depth: number): unknown => {
  let value: unknown = "bottom"
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

const depthOf = (value: unknown): number => {
  let depth = 0
  while (typeof value === "object" && value !== null) {
    depth++
    value = (value as Record<string, unknown>).a
  }
  return depth
}

describe("secret redaction in audit bodies", () => {
  it.each(SECRET_NAMES)("redacts a field named %s, at the root and nested", (name) => {
    expect(isSecretName(name)).toBe(true)
    const { value } = storableBody({ [name]: "s3cr3t", nested: [{ [name]: "s3cr3t" }] })
    expect(value).toEqual({ [name]: REDACTED, nested: [{ [name]: REDACTED }] })
  })

  it.each(HARMLESS_NAMES)("keeps a field named %s", (name) => {
    expect(isSecretName(name)).toBe(false)
    expect(storableBody({ [name]: 42 }).value).toEqual({ [name]: 42 })
  })

  describe("by value: credentials written inside text, whatever the field's name", () => {
    const redacted = (value: unknown, fields: ReadonlyArray<ReadonlyArray<string>> = []) =>
      storableBody({ note: value }, fields).value

    it.each([
      ["postgres://app:hunter2@db.internal:5432/prod", `postgres://app:${REDACTED}@db.internal:5432/prod`],
      ["redis://:hunter2@cache:6379/0", `redis://:${REDACTED}@cache:6379/0`],
      ["https://user:p@ss@host.example/path?q=1", `https://user:${REDACTED}@host.example/path?q=1`],
      ["https://ghp_0123456789abcdef@github.com/org/repo", `https://${REDACTED}@github.com/org/repo`],
      [
        "host=db port=5432 user=app password=hunter2 dbname=prod",
        `host=db port=5432 user=app password=${REDACTED} dbname=prod`
      ],
      ["Server=db;Uid=app;Pwd=hunter2;", `Server=db;Uid=app;Pwd=${REDACTED};`],
      ["https://api.example/v1?api_key=sk-123&region=eu", `https://api.example/v1?api_key=${REDACTED}&region=eu`],
      ["use Bearer sk-live-0123456789 here", `use Bearer ${REDACTED} here`],
      [`Basic ${btoa("admin:hunter2")}`, `Basic ${REDACTED}`],
      [
        "Authorization: Bearer sk-1\nX-Api-Key: k-2\nX-Region: eu",
        `Authorization: ${REDACTED}\nX-Api-Key: ${REDACTED}\nX-Region: eu`
      ]
    ])("%s", (sent, kept) => {
      expect(redacted(sent)).toEqual({ note: kept })
    })

    it("keeps text that only looks like it: prose, plain URLs, amounts", () => {
      for (
        const text of [
          "Bearer of good news",
          "Basic plan",
          "https://mcp.example/sse?region=eu",
          "max_tokens=256 temperature=0.2",
          "Note: be brief\nTone: warm",
          "ssh is at host:22"
        ]
      ) expect(redacted(text)).toEqual({ note: text })
    })

    it("reads a string holding JSON as JSON, redacted by the same rules, paths included", () => {
      const config = JSON.stringify({ provider: "openai", api_key: "sk-1", targets: [{ auth: "a-2", weight: 1 }] })
      expect(redacted(config)).toEqual({
        note: JSON.stringify({ provider: "openai", api_key: REDACTED, targets: [{ auth: REDACTED, weight: 1 }] })
      })
      const headers = JSON.stringify({ "X-Tenant": "acme", Region: "eu" })
      const body = { name: "t", configurations: { headers } }
      expect(storableBody(body, SECRET_FIELDS.mcp_integration).value).toEqual({
        name: "t",
        configurations: { headers: JSON.stringify({ "X-Tenant": REDACTED, Region: REDACTED }) }
      })
      expect(storableBody({ configurations: { headers: "X-Tenant: acme" } }, SECRET_FIELDS.mcp_integration).value)
        .toEqual({ configurations: { headers: `X-Tenant: ${REDACTED}` } })
      // JSON within JSON within text, and a DSN inside.
      const inner = JSON.stringify({ dsn: "postgres://u:pw@h/d" })
      expect(redacted(JSON.stringify({ wrapped: inner }))).toEqual({
        note: JSON.stringify({ wrapped: JSON.stringify({ dsn: `postgres://u:${REDACTED}@h/d` }) })
      })
      // Nothing secret: kept exactly as sent, spacing included, and unflagged.
      expect(storableBody({ note: "{ \"a\": 1 }" })).toEqual({ value: { note: "{ \"a\": 1 }" }, sanitized: false })
    })
  })

  it("redacts the value of a name/value pair that names a secret header", () => {
    expect(storableBody({ headers: [{ name: "X-Api-Key", value: "k" }, { name: "X-Region", value: "eu" }] }).value)
      .toEqual({ headers: [{ name: "X-Api-Key", value: REDACTED }, { name: "X-Region", value: "eu" }] })
  })

  it("redacts by schema first: every MCP header value and secret mapping reference, whatever its name", () => {
    const body = {
      name: "linear",
      configurations: { region: "eu", headers: { "X-Region": "eu-1", "X-Tenant": "acme-secret-tenant" } },
      secret_mappings: [{
        target_field: "headers.X-Tenant",
        secret_reference_id: "ref-1",
        secret_key: "tenant",
        value_format: "string"
      }]
    }
    expect(storableBody(body, SECRET_FIELDS.mcp_integration).value).toEqual({
      name: "linear",
      configurations: { region: "eu", headers: { "X-Region": REDACTED, "X-Tenant": REDACTED } },
      secret_mappings: [{
        target_field: "headers.X-Tenant",
        secret_reference_id: REDACTED,
        secret_key: REDACTED,
        value_format: "string"
      }]
    })
    expect(storableBody({ name: "v", key: "sk-live" }, SECRET_FIELDS.virtual_key).value).toEqual({
      name: "v",
      key: REDACTED
    })
  })

  it("keeps null secrets as null: absence is not a secret", () => {
    expect(storableBody({ token: null }).value).toEqual({ token: null })
  })
})

describe("storable audit bodies", () => {
  it("write out U+0000 and unpaired surrogates as escapes, and say so", () => {
    const stored = storableBody({ name: "a\u0000b", note: "x\ud800y", ok: "😀", ["k\u0000"]: 1 })
    expect(stored).toEqual({
      value: { name: "a\\u0000b", note: "x\\ud800y", ok: "😀", "k\\u0000": 1 },
      sanitized: true
    })
    // What is stored is valid UTF-8 without U+0000: it survives an encode/decode round trip unchanged.
    const text = JSON.stringify(stored.value)
    expect(text).not.toContain("\u0000")
    expect(Buffer.from(text, "utf8").toString("utf8")).toBe(text)
  })

  it("leave ordinary bodies alone and unflagged", () => {
    const body = { name: "Acme", list: [1, "two", { three: true }], nothing: null, emoji: "😀", tab: "a\tb" }
    expect(storableBody(body)).toEqual({ value: body, sanitized: false })
  })

  it("cut nesting deeper than the limit, with a marker, without running out of stack", () => {
    const stored = storableBody(nested(10_000))
    expect(stored.sanitized).toBe(true)
    expect(depthOf(stored.value)).toBe(MAX_DEPTH)
    expect(canonicalJson(stored.value)).toContain(`[truncated: nested deeper than ${MAX_DEPTH} levels]`)
    expect(storableBody(nested(MAX_DEPTH))).toEqual({ value: nested(MAX_DEPTH), sanitized: false })
  })

  it("cut text beyond the limit, and the items and fields after it", () => {
    const stored = storableBody({ big: "x".repeat(MAX_TEXT + 10), after: ["a", "b"] })
    const value = stored.value as Record<string, unknown>
    expect(stored.sanitized).toBe(true)
    expect(value.big).toBe(`${"x".repeat(MAX_TEXT - 3)}…[truncated]`)
    expect(value["…"]).toBe("[truncated: 1 more fields]")
    const many = storableBody(Array.from({ length: MAX_TEXT * 2 }, (_, i) => i))
    expect(many.sanitized).toBe(true)
    expect((many.value as Array<unknown>).length).toBeLessThanOrEqual(MAX_TEXT + 1)
  })

  it("store non-finite numbers as null and keep a __proto__ field as data", () => {
    const parsed = JSON.parse(`{"n": 1e400, "__proto__": {"x": 1}}`)
    const stored = storableBody(parsed)
    expect(stored.sanitized).toBe(true)
    expect(canonicalJson(stored.value)).toBe(`{"__proto__":{"x":1},"n":null}`)
  })
})

describe("the audit chain's hashes", () => {
  const content = {
    id: "a",
    chain: 0,
    seq: 1,
    timestamp: "2026-01-01T00:00:00.000Z",
    organisation_id: "o",
    workspace_id: null,
    user_id: "u",
    user_type: "user" as const,
    api_key_id: "k",
    action: "create",
    resource_type: "workspace",
    resource_id: "w",
    method: "POST",
    uri: "/v1/workspaces",
    request_id: "r",
    request_body: { name: "x" },
    response_status_code: 201,
    client_ip: "127.0.0.1",
    workload_issuer: null,
    workload_subject: null,
    user_email: null,
    session_id: null,
    identity_provider: null,
    identity_subject: null,
    trace_id: null,
    sanitized: false,
    hash_algorithm: "hmac-sha256" as const,
    previous_hash: GENESIS_HASH
  }
  // What the hash covers of `content`, which sets none of the fields later migrations added (chain 0, no workload,
  // session or trace): every other field; `previous_hash` goes before it.
  const {
    chain: _c,
    identity_provider: _ip,
    identity_subject: _is,
    previous_hash,
    session_id: _si,
    trace_id: _ti,
    user_email: _ue,
    workload_issuer: _wi,
    workload_subject: _ws,
    ...covered
  } = content
  // A record of before the keyed chain had neither of its fields either.
  const { hash_algorithm: _a, sanitized: _s, ...legacy } = covered

  it("canonical JSON does not depend on key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } }))
      .toBe(canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }))
  })

  it("a keyed hash covers every field and the previous hash, and needs the key", () => {
    const hash = chainHash(hashers, content)
    expect(new AuditRecord({ ...content, hash }).hash).toMatch(/^[0-9a-f]{64}$/)
    for (
      const [field, value] of Object.entries({
        response_status_code: 200,
        request_body: { name: "y" },
        user_id: "v",
        organisation_id: null,
        sanitized: true,
        previous_hash: "1".repeat(64)
      })
    ) {
      expect(chainHash(hashers, { ...content, [field]: value }), field).not.toBe(hash)
    }
    // Without the key, neither plain SHA-256 nor an HMAC under a guessed key gives the hash.
    const { previous_hash, ...rest } = content
    expect(sha256Hex(`${previous_hash}\n${canonicalJson(rest)}`)).not.toBe(hash)
    expect(chainHash({ sha256Hex, chainMac: macUnder("a guess") }, content)).not.toBe(hash)
  })

  it("records of before the keyed chain keep their plain SHA-256 over the fields they had", () => {
    const oldHash = sha256Hex(`${previous_hash}\n${canonicalJson(legacy)}`)
    expect(chainHash(hashers, { ...content, hash_algorithm: "sha256" })).toBe(oldHash)
  })

  it("chain 0 hashes as records did before chains; every other chain's number is hashed too", () => {
    const beforeChains = covered
    expect(chainHash(hashers, content)).toBe(hashers.chainMac(`${previous_hash}\n${canonicalJson(beforeChains)}`))
    const inChain3 = chainHash(hashers, { ...content, chain: 3 })
    expect(inChain3).toBe(hashers.chainMac(`${previous_hash}\n${canonicalJson({ ...beforeChains, chain: 3 })}`))
    // So a record cannot be moved between chains, chain 0 included.
    expect(new Set([chainHash(hashers, content), inChain3, chainHash(hashers, { ...content, chain: 4 })]).size).toBe(3)
  })

  it("workload records hash as every record did before workloads when they name none, and cover the workload when they do", () => {
    const beforeWorkloads = covered
    expect(chainHash(hashers, content)).toBe(hashers.chainMac(`${previous_hash}\n${canonicalJson(beforeWorkloads)}`))
    const workload = { ...content, workload_issuer: "https://issuer.example", workload_subject: "ci" }
    expect(chainHash(hashers, workload)).toBe(
      hashers.chainMac(
        `${previous_hash}\n${
          canonicalJson({ ...beforeWorkloads, workload_issuer: "https://issuer.example", workload_subject: "ci" })
        }`
      )
    )
    expect(chainHash(hashers, { ...workload, workload_subject: "another" })).not.toBe(chainHash(hashers, workload))
  })

  it("a record with no trace id hashes as records did before traces, and one with a trace id covers it", () => {
    const beforeTraces = covered
    expect(chainHash(hashers, content)).toBe(hashers.chainMac(`${previous_hash}\n${canonicalJson(beforeTraces)}`))
    const traced = { ...content, trace_id: "4bf92f3577b34da6a3ce929d0e0e4736" }
    expect(chainHash(hashers, traced)).toBe(
      hashers.chainMac(`${previous_hash}\n${canonicalJson({ ...beforeTraces, trace_id: traced.trace_id })}`)
    )
    expect(chainHash(hashers, { ...traced, trace_id: "0af7651916cd43dd8448eb211c80319c" })).not.toBe(
      chainHash(hashers, traced)
    )
  })
})

describe("plain records of before the keyed chain (the legacy prefix)", () => {
  /** A chain-0 record at `seq`, plain or keyed; the legacy seal when `seal` says how many it names. */
  const recordAt = (seq: number, algorithm: "sha256" | "hmac-sha256", seal?: number) => ({
    id: `r${seq}`,
    chain: 0,
    seq,
    timestamp: "2026-01-01T00:00:00.000Z",
    organisation_id: seal === undefined ? "o" : null,
    workspace_id: null,
    user_id: null,
    user_type: seal === undefined ? "api_key" as const : "unauthenticated" as const,
    api_key_id: seal === undefined ? "k" : null,
    action: seal === undefined ? "create" : LEGACY_SEAL_ACTION,
    resource_type: seal === undefined ? "workspace" : LEGACY_SEAL_RESOURCE_TYPE,
    resource_id: null,
    method: seal === undefined ? "POST" : "",
    uri: seal === undefined ? "/v1/workspaces" : "",
    request_id: "",
    request_body: seal === undefined ? { name: `w${seq}` } : { legacy_records: seal },
    response_status_code: seal === undefined ? 201 : 0,
    client_ip: null,
    workload_issuer: null,
    workload_subject: null,
    user_email: null,
    session_id: null,
    identity_provider: null,
    identity_subject: null,
    trace_id: null,
    sanitized: false,
    hash_algorithm: algorithm
  })
  /** Links the records into chain 0, each under its own algorithm. */
  const linked = (records: ReadonlyArray<ReturnType<typeof recordAt>>) => {
    let previous = GENESIS_HASH
    return records.map((r) => {
      const content = { ...r, previous_hash: previous }
      previous = chainHash(hashers, content)
      return new AuditRecord({ ...content, hash: previous })
    })
  }
  /** A store holding `records`, as far as verification reads one. */
  const storeOf = (records: ReadonlyArray<AuditRecord>) =>
    AuditLogStore.of({
      append: () => Effect.die("read only"),
      list: () => Effect.die("read only"),
      sealLegacyPrefix: () => Effect.die("read only"),
      claimKeyCheck: (value) => Effect.succeed(value),
      scan: (after, limit) =>
        Effect.succeed(
          records.filter((r) => r.chain > after.chain || (r.chain === after.chain && r.seq > after.seq)).slice(0, limit)
        )
    })
  const verify = (records: ReadonlyArray<ReturnType<typeof recordAt>>) =>
    Effect.runSync(walkChain(storeOf(linked(records)), hashers, undefined))

  it("a chain 0 plain from its first record, which anyone can recompute, is refused without a seal", () => {
    expect(verify([recordAt(1, "sha256"), recordAt(2, "sha256"), recordAt(3, "hmac-sha256")])).toMatchObject({
      ok: false,
      count: 0,
      record: { chain: 0, seq: 1 },
      reason: expect.stringContaining("no keyed record names them")
    })
    expect(verify([recordAt(1, "sha256")])).toMatchObject({ ok: false, record: { seq: 1 } })
  })

  it("exactly as many plain records as the keyed seal names verify; any other number is refused", () => {
    const prefix = [recordAt(1, "sha256"), recordAt(2, "sha256"), recordAt(3, "hmac-sha256")]
    expect(verify([...prefix, recordAt(4, "hmac-sha256", 2)])).toMatchObject({ ok: true, count: 4, legacy: 2 })
    expect(verify([...prefix, recordAt(4, "hmac-sha256", 1)])).toMatchObject({
      ok: false,
      record: { seq: 4 },
      reason: expect.stringContaining("it names 1 records of before the keyed chain, but chain 0 starts with 2")
    })
    expect(verify([...prefix, recordAt(4, "hmac-sha256", 3)])).toMatchObject({ ok: false, record: { seq: 4 } })
    // A seal rewritten as a plain record is no seal.
    expect(verify([...prefix, recordAt(4, "sha256", 2)])).toMatchObject({ ok: false, record: { seq: 4 } })
    expect(verify([...prefix, recordAt(4, "hmac-sha256", 2), recordAt(5, "hmac-sha256", 2)])).toMatchObject({
      ok: false,
      record: { seq: 5 },
      reason: "it is a second legacy seal: the gateway writes one, once"
    })
  })

  it("a store with no plain record needs no seal", () => {
    expect(verify([recordAt(1, "hmac-sha256"), recordAt(2, "hmac-sha256")])).toMatchObject({ ok: true, legacy: 0 })
  })
})

describe("checkpoint texts", () => {
  it("cover every field but the signature, so checkpoints of before chains sign what they signed then", () => {
    const old = { count: 2, last_hash: "h", at: "2026-01-01T00:00:00.000Z" }
    expect(checkpointText(old)).toBe(`{"at":"2026-01-01T00:00:00.000Z","count":2,"last_hash":"h"}`)
    const heads = [{ chain: 0, count: 2, last_hash: "h" }, { chain: 1, count: 1, last_hash: "i" }]
    expect(checkpointText({ count: 3, heads, at: old.at })).toBe(canonicalJson({ at: old.at, count: 3, heads }))
    expect(headsOf({ ...old, signature: "s" })).toEqual([{ chain: 0, count: 2, last_hash: "h" }])
    expect(headsOf({ count: 3, heads, at: old.at, signature: "s" })).toEqual(heads)
  })
})
