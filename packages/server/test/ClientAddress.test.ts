/**
 * The client address the audit log records behind proxies (`TRUST_PROXY`). Each proxy appends the address
 * it received from to X-Forwarded-For, so only the entries appended by trusted proxies, counted from the
 * right, can be believed. Before, the leftmost entry was taken: whatever the client wrote there.
 */
import type { TrustProxy } from "@gateway-control/adapters-http"
import { ConfigProvider, Effect } from "effect"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "vitest"
import { loadConfig } from "../src/AppConfig.ts"
import { cli, freePort } from "./support/ServerProcess.ts"
import { jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const exec = promisify(execFile)
const servers: Array<TestServer> = []
afterAll(() => Promise.all(servers.map((server) => server.close())))

/** The address the audit log records for a write sent with this X-Forwarded-For, behind `trustProxy`. */
const recordedAddress = async (trustProxy: TrustProxy | undefined, forwardedFor: string | undefined) => {
  const server = await startTestServer({ trustProxy })
  servers.push(server)
  const created = await server.request("/v1/workspaces", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor })
    },
    body: JSON.stringify({ name: "addressed" })
  })
  expect(created.status).toBe(201)
  const audit = await jsonOf(await server.request("/v1/audit-logs?resource_type=workspace&page_size=1"))
  return audit.records[0].client_ip as string
}

// The test client connects over loopback; the socket address is how the server sees it.
const LOOPBACK = /^(?:127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/
const SPOOFED_AND_REAL = "6.6.6.6, 203.0.113.7"

describe("the client address behind proxies", () => {
  it("is the socket's when no proxy is trusted, whatever X-Forwarded-For says", async () => {
    expect(await recordedAddress(false, SPOOFED_AND_REAL)).toMatch(LOOPBACK)
    expect(await recordedAddress(undefined, SPOOFED_AND_REAL)).toMatch(LOOPBACK)
  })

  it("is the entry the trusted proxy appended, not the client's leftmost one (TRUST_PROXY=true)", async () => {
    expect(await recordedAddress(true, SPOOFED_AND_REAL)).toBe("203.0.113.7")
    expect(await recordedAddress(true, undefined)).toMatch(LOOPBACK)
  })

  it("counts a number of proxies from the right", async () => {
    expect(await recordedAddress(2, `${SPOOFED_AND_REAL}, 10.0.0.2`)).toBe("203.0.113.7")
  })

  it("walks past proxies at trusted addresses and ranges only", async () => {
    const trusted = ["loopback", "10.0.0.0/8"]
    expect(await recordedAddress(trusted, `${SPOOFED_AND_REAL}, 10.0.0.2, 10.1.2.3`)).toBe("203.0.113.7")
    // 203.0.113.7 is not a trusted proxy, so what it forwarded (6.6.6.6) is not believed.
    expect(await recordedAddress(trusted, "6.6.6.6, 203.0.113.7")).toBe("203.0.113.7")
  })

  it("falls back to the socket's address when the trusted entry is not an IP address", async () => {
    expect(await recordedAddress(true, "6.6.6.6, not-an-address")).toMatch(LOOPBACK)
    expect(await recordedAddress(true, "6.6.6.6, 203.0.113.7:4711")).toMatch(LOOPBACK)
  })
})

const trustProxyFrom = (value: string | undefined) =>
  Effect.runPromise(
    Effect.map(
      loadConfig.pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromEnv({ env: value === undefined ? {} : { TRUST_PROXY: value } })
        )
      ),
      (config) => config.trustProxy
    )
  )

describe("TRUST_PROXY", () => {
  it.each(
    [
      [undefined, false],
      ["false", false],
      ["true", true],
      ["TRUE", true],
      ["0", 0],
      ["2", 2],
      ["loopback", ["loopback"]],
      ["loopback, 10.0.0.0/8 ,fd00::/8, 192.0.2.1", ["loopback", "10.0.0.0/8", "fd00::/8", "192.0.2.1"]]
    ] as const
  )("reads %s", async (value, expected) => {
    expect(await trustProxyFrom(value)).toEqual(expected)
  })

  it.each(["banana", "10.0.0.300", "10.0.0.0/33", "loopback, nope", "-1", "1.5"])(
    "refuses %s with a message naming the variable and its forms",
    async (value) => {
      const failure = await trustProxyFrom(value).then(() => undefined, (error: unknown) => error)
      expect(failure).toMatchObject({ _tag: "InvalidConfiguration" })
      expect((failure as { message: string }).message).toMatch(/^TRUST_PROXY takes false, true .* got '/)
    }
  )

  it("stops the server from starting when invalid", async () => {
    const failure = await exec(process.execPath, [...cli, "serve"], {
      env: { ...process.env, GATEWAY_STORE: "memory", PORT: String(await freePort()), TRUST_PROXY: "10.0.0.300" },
      timeout: 20_000 // a server that started anyway is killed, and fails the test
    }).then(() => undefined, (error: { code: number | null; stderr: string }) => error)
    expect(failure?.code).not.toBe(0)
    expect(failure?.stderr).toContain("TRUST_PROXY takes false, true")
  })
})
