/**
 * Security finding 1: custom hosts must not lead into the gateway's own network, in any way an address can
 * be written (IPv4 inside IPv6 forms included), nor through a DNS answer that changes after the check.
 * Every connection goes through the test connector: only 127.0.0.0/8 is ever connected to.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import {
  createConfig,
  createVirtualKey,
  type FineTuningGateway,
  startFineTuningGateway
} from "./support/FineTuningGateway.ts"
import { availableStores, errorOf, jsonOf } from "./support/TestServer.ts"

const PUBLIC_V4 = "1.1.1.1"
const PUBLIC_V6 = "2606:4700:4700::1111"

/** The two 16-bit groups of an IPv4 address, as IPv6 writes them; `invert` gives Teredo's obfuscated form. */
const groups = (ipv4: string, invert = false) => {
  const n = ipv4.split(".").reduce((acc, octet) => acc * 256 + Number(octet), 0)
  const bits = invert ? ~n >>> 0 : n
  return `${(bits >>> 16).toString(16)}:${(bits & 0xffff).toString(16)}`
}

/** Every IPv6 form that carries an IPv4 address. */
const carriers = (ipv4: string): ReadonlyArray<readonly [string, string]> => [
  ["IPv4-mapped, dotted", `::ffff:${ipv4}`],
  ["IPv4-mapped, hex", `::ffff:${groups(ipv4)}`],
  ["IPv4-translated", `::ffff:0:${ipv4}`],
  ["IPv4-compatible", `::${ipv4}`],
  ["NAT64", `64:ff9b::${ipv4}`],
  ["6to4", `2002:${groups(ipv4)}::1`],
  ["Teredo", `2001:0:${groups(ipv4)}:8000:63bf:${groups(ipv4, true)}`]
]

const headerCall = (host: string) => ({
  "x-service-provider": "openai",
  authorization: "Bearer sk-good",
  "x-service-custom-host": host
})

describe.each(availableStores)("custom hosts on %s", (store) => {
  let gateway: FineTuningGateway
  /** Listens on loopback where the refused hosts point: nothing may ever reach it. */
  let inside: FakeProvider
  let trusted: FakeProvider
  let redirector: FakeProvider
  let redirectTarget: FakeProvider

  beforeAll(async () => {
    inside = await startFakeProvider("inside")
    trusted = await startFakeProvider("trusted")
    redirectTarget = await startFakeProvider("redirect-target")
    redirector = await startFakeProvider("redirector", { redirectTo: `${redirectTarget.baseUrl}/fine_tuning/jobs` })
    gateway = await startFineTuningGateway({
      store,
      primary: trusted,
      trusted: [trusted, redirector],
      dns: {
        "provider.example": [[PUBLIC_V4, PUBLIC_V6]],
        "mixed.example": [[PUBLIC_V4, "::ffff:169.254.169.254"]],
        "inside.example": [["::ffff:127.0.0.1"]],
        // Public at the check, loopback afterwards: a name that rebinds.
        localhost: [[PUBLIC_V4], ["127.0.0.1"]]
      }
    })
  })
  afterAll(async () => {
    await gateway.close()
    await Promise.all([inside, trusted, redirector, redirectTarget].map((fake) => fake.close()))
  })

  const refusals: ReadonlyArray<readonly [string, string]> = [
    ...[["loopback", "127.0.0.1"], ["10/8", "10.0.0.1"], ["the metadata address", "169.254.169.254"]].flatMap((
      [what, ipv4]
    ) => carriers(ipv4).map(([form, address]) => [`${form} ${what}`, `[${address}]`] as const)),
    ["carrier-grade NAT", "100.64.0.1"],
    ["172.16/12", "172.16.0.1"],
    ["192.168/16", "192.168.1.1"],
    ["unspecified", "0.0.0.0"],
    ["broadcast", "255.255.255.255"],
    ["multicast", "224.0.0.1"],
    ["documentation", "192.0.2.1"],
    ["benchmarking", "198.18.0.1"],
    ["reserved 240/4", "240.0.0.1"],
    ["IPv6 unspecified", "[::]"],
    ["unique-local", "[fd00::1]"],
    ["IPv6 link-local", "[fe80::1]"],
    ["IPv6 multicast", "[ff02::1]"],
    ["IPv6 documentation", "[2001:db8::1]"],
    ["a name resolving to IPv4-mapped loopback", "inside.example"],
    ["a name with one internal answer among public ones", "mixed.example"]
  ]

  it.each(refusals)("refuses %s with 400 before connecting", async (_, host) => {
    const before = gateway.connector.attempts.length
    const error = await errorOf(await gateway.jobs(headerCall(`http://${host}:${inside.port}/v1`)))
    expect(error).toMatchObject({ status: 400, code: "invalid_request", param: "x-service-custom-host" })
    expect(error.message).toContain("not a public address")
    expect(gateway.connector.attempts.length).toBe(before)
    expect(inside.connections()).toBe(0)
  })

  it("refuses the reported host wherever a custom host comes from: header, virtual key, config, inline config", async () => {
    const host = `http://[::ffff:127.0.0.1]:${inside.port}/v1`
    // Stored through the typed client: each must be created (201 with the declared body).
    await gateway.api(createVirtualKey({
      name: "mapped",
      slug: "mapped",
      provider: "openai",
      key: "sk-good",
      custom_host: host
    }))
    const config = { provider: "openai", api_key: "sk-good", custom_host: host }
    await gateway.api(createConfig({ name: "mapped", slug: "mapped", config }))
    const calls: ReadonlyArray<readonly [Record<string, string>, string]> = [
      [headerCall(host), "x-service-custom-host"],
      [{ "x-service-virtual-key": "mapped" }, "x-service-virtual-key"],
      [{ "x-service-config": "mapped" }, "x-service-config"],
      [{ "x-service-config": JSON.stringify(config) }, "x-service-config"]
    ]
    for (const [headers, param] of calls) {
      expect(await errorOf(await gateway.jobs(headers))).toMatchObject({ status: 400, param })
    }
    expect(inside.connections()).toBe(0)
  })

  it.each([
    ["a public IPv4 address", `http://${PUBLIC_V4}/v1`, PUBLIC_V4, [PUBLIC_V4]],
    ["a public IPv6 address", `http://[${PUBLIC_V6}]/v1`, PUBLIC_V6, [PUBLIC_V6]],
    ["a public IPv4 address, IPv4-mapped", `http://[::ffff:${PUBLIC_V4}]/v1`, "::ffff:101:101", ["::ffff:101:101"]],
    ["a public IPv4 address behind NAT64", `http://[64:ff9b::${PUBLIC_V4}]/v1`, "64:ff9b::101:101", [
      "64:ff9b::101:101"
    ]],
    ["a name with public answers", "https://provider.example/v1", "provider.example", [PUBLIC_V4, PUBLIC_V6]]
  ])("lets %s through, connecting only to the addresses checked", async (_, host, hostname, addresses) => {
    // The test connector refuses every address outside loopback, so a host that passed the check is a 502.
    expect(await errorOf(await gateway.jobs(headerCall(host)))).toMatchObject({ status: 502, code: "upstream_error" })
    expect(gateway.connector.attempts.at(-1)).toMatchObject({ hostname, addresses, opened: false })
  })

  it("connects to the address it checked, not to what DNS answers afterwards", async () => {
    const error = await errorOf(await gateway.jobs(headerCall(`http://localhost:${inside.port}/v1`)))
    expect(error).toMatchObject({ status: 502, code: "upstream_error" })
    expect(gateway.dns.lookups("localhost")).toBe(1)
    expect(gateway.connector.attempts.filter((a) => a.hostname === "localhost")).toEqual([
      { hostname: "localhost", port: String(inside.port), addresses: [PUBLIC_V4], opened: false }
    ])
    expect(inside.connections()).toBe(0)
  })

  it("does not follow a provider's redirect", async () => {
    const redirected = await gateway.jobs({
      "x-service-provider": "openai",
      authorization: "Bearer sk-redirect",
      "x-service-custom-host": redirector.baseUrl
    })
    expect(redirected.status).toBe(302)
    expect(redirector.requests.length).toBe(1)
    expect(redirectTarget.connections()).toBe(0)
  })

  it("still reaches hosts listed in TRUSTED_CUSTOM_HOSTS", async () => {
    const listed = await gateway.jobs(headerCall(trusted.baseUrl))
    expect(listed.status).toBe(200)
    expect((await jsonOf(listed)).data[0].id).toMatch(/^ftjob-trusted/)
  })
})
