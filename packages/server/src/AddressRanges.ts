/**
 * `AddressRanges` on ipaddr.js: addresses are parsed, never matched as text, and every special-purpose
 * range of IPv4 and IPv6 is refused, including IPv4 addresses carried inside IPv6 forms.
 */
import { AddressRanges } from "@gateway-control/domain"
import { Layer } from "effect"
import ipaddr from "ipaddr.js"

/** Words for ipaddr.js's range names where its own are terse; any other name is shown as it is. */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local, where cloud metadata services listen",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT, 100.64.0.0/10",
  private: "private",
  reserved: "reserved, documentation or benchmarking",
  uniqueLocal: "unique-local, fc00::/7",
  deprecatedSiteLocal: "site-local, fec0::/10",
  benchmarking: "benchmarking",
  "6to4": "6to4, 2002::/16, which carries an IPv4 address",
  teredo: "Teredo, 2001::/32, which carries IPv4 addresses",
  rfc6052: "local-use NAT64, 64:ff9b:1::/48"
}

const rangeName = (range: string) => RANGE_NAMES[range] ?? range

/**
 * IPv6 forms whose last 32 bits are an IPv4 address that the connection ends up at: judged by that IPv4
 * address, so a public one passes (a DNS64 network answers every IPv4-only provider in 64:ff9b::/96).
 */
const CARRY_IPV4: ReadonlyArray<readonly [string, [ipaddr.IPv6, number]]> = [
  ["an IPv4-mapped", ipaddr.IPv6.parseCIDR("::ffff:0:0/96")],
  ["an IPv4-translated", ipaddr.IPv6.parseCIDR("::ffff:0:0:0/96")],
  ["a NAT64", ipaddr.IPv6.parseCIDR("64:ff9b::/96")]
]

/** The deprecated IPv4-compatible form (::a.b.c.d), apart from :: and ::1, which have ranges of their own. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96")

/** Global unicast: every other IPv6 address that ipaddr.js names no range for is still reserved by the IETF. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3")

const lastIpv4 = (address: ipaddr.IPv6) => {
  const [high, low] = address.parts.slice(6)
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])
}

const ipv4SpecialPurpose = (address: ipaddr.IPv4): string | undefined => {
  const range = address.range()
  return range === "unicast" ? undefined : rangeName(range)
}

const ipv6SpecialPurpose = (address: ipaddr.IPv6): string | undefined => {
  for (const [form, cidr] of CARRY_IPV4) {
    if (address.match(cidr)) {
      const carried = lastIpv4(address)
      const range = ipv4SpecialPurpose(carried)
      return range === undefined ? undefined : `${range}: ${carried.toString()} in ${form} IPv6 address`
    }
  }
  const range = address.range()
  if (range !== "unicast") return rangeName(range)
  if (address.match(IPV4_COMPATIBLE)) return "IPv4-compatible IPv6 address, deprecated"
  if (!address.match(GLOBAL_UNICAST)) return "reserved by the IETF, outside 2000::/3"
  return undefined
}

/** Why an address must not be reached, or undefined for a public unicast address. */
export const specialPurpose = (address: string): string | undefined => {
  if (!ipaddr.isValid(address)) return "not an IP address"
  const parsed = ipaddr.parse(address)
  return parsed instanceof ipaddr.IPv4 ? ipv4SpecialPurpose(parsed) : ipv6SpecialPurpose(parsed)
}

export const layerAddressRanges: Layer.Layer<AddressRanges> = Layer.succeed(AddressRanges)(
  AddressRanges.of({ specialPurpose })
)
