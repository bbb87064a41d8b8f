/**
 * How a `DATABASE_URL` with several hosts is read, as libpq reads it: hosts in the authority or in the query,
 * `target_session_attrs`, the one-host URL the driver parses, and the refusals, with their reasons.
 */
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { needsLocator, parseDatabaseUrl } from "../src/PgHosts.ts"

const parsed = (url: string) => {
  const result = parseDatabaseUrl(url)
  if (Result.isFailure(result)) throw new Error(result.failure)
  return result.success
}
const refusal = (url: string) => {
  const result = parseDatabaseUrl(url)
  return Result.isFailure(result) ? result.failure : "accepted"
}

describe("a database URL with several hosts", () => {
  it("reads the hosts of the authority, in order, and keeps the rest for the driver", () => {
    const target = parsed(
      "postgres://gw:s%40cret@db1:5432,db2:6432,[::1]/gateway?target_session_attrs=read-write&sslmode=disable"
    )
    expect(target.hosts).toEqual([{ host: "db1", port: 5432 }, { host: "db2", port: 6432 }, {
      host: "::1",
      port: 5432
    }])
    expect(target.attrs).toBe("read-write")
    expect(target.driverUrl).toBe("postgres://gw:s%40cret@db1:5432/gateway?sslmode=disable")
    expect(needsLocator(target)).toBe(true)
  })

  it("reads hosts and ports listed in the query", () => {
    const target = parsed("postgresql:///gateway?host=db1,db2&port=5433,5434&user=gw")
    expect(target.hosts).toEqual([{ host: "db1", port: 5433 }, { host: "db2", port: 5434 }])
    expect(target.driverUrl).toBe("postgresql://db1:5433/gateway?user=gw")
  })

  it("takes read-write for several hosts by default, and leaves one host as it was", () => {
    expect(parsed("postgres://a:1,b:2/db").attrs).toBe("read-write")
    const one = parsed("postgres://u@db:5432/gateway?application_name=x")
    expect(one).toMatchObject({ hosts: [{ host: "db", port: 5432 }], attrs: "any" })
    expect(one.driverUrl).toBe("postgres://u@db:5432/gateway?application_name=x")
    expect(needsLocator(one)).toBe(false)
    expect(needsLocator(parsed("postgres://u@db/gateway?target_session_attrs=primary"))).toBe(true)
    expect(needsLocator(parsed("postgres:///gateway?host=/var/run/postgresql"))).toBe(false)
  })

  it("refuses what would connect to a server that takes no writes, or cannot be read", () => {
    expect(refusal("postgres://a,b/db?target_session_attrs=standby")).toMatch(/the gateway writes/)
    expect(refusal("postgres://a,b/db?target_session_attrs=read-only")).toMatch(/the gateway writes/)
    expect(refusal("postgres://a,b/db?target_session_attrs=whatever")).toMatch(/read-write, primary or any/)
    expect(refusal("postgres://a:1,b:99999/db")).toMatch(/invalid port/)
    expect(refusal("postgres://a,,b/db")).toMatch(/empty host/)
    expect(refusal("postgres:///db?host=a,b&port=1,2,3")).toMatch(/2 hosts but 3 ports/)
    expect(refusal("mysql://a/db")).toMatch(/not a postgres:\/\/ URL/)
  })
})
