import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { AuditRecord, chainHash, GENESIS_HASH, redactSecrets } from "../src/AuditLog.ts"
import { canonicalJson } from "../src/internal/canonicalJson.ts"

const sha256Hex = (input: string) => createHash("sha256").update(input).digest("hex")

describe("audit records", () => {
  it("redact secret-looking fields at any depth, keeping the rest", () => {
    expect(redactSecrets({
      name: "openai",
      key: "sk-live-123",
      config: { api_key: "sk-2", custom_host: "https://x", nested: [{ password: "p", user: "u" }] },
      workspace_id: "ws",
      token: null
    })).toEqual({
      name: "openai",
      key: "[REDACTED]",
      config: { api_key: "[REDACTED]", custom_host: "https://x", nested: [{ password: "[REDACTED]", user: "u" }] },
      workspace_id: "ws",
      token: null
    })
  })

  it("canonical JSON does not depend on key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } }))
      .toBe(canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }))
  })

  it("the hash covers every field and the previous hash", () => {
    const content = {
      id: "a",
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
      previous_hash: GENESIS_HASH
    }
    const hash = chainHash(sha256Hex, content)
    expect(new AuditRecord({ ...content, hash }).hash).toMatch(/^[0-9a-f]{64}$/)
    for (
      const [field, value] of Object.entries({
        response_status_code: 200,
        request_body: { name: "y" },
        user_id: "v",
        previous_hash: "1".repeat(64)
      })
    ) {
      expect(chainHash(sha256Hex, { ...content, [field]: value }), field).not.toBe(hash)
    }
  })
})
