import { describe, it } from "vitest"
import { auditContract } from "../../domain/test/contract/AuditContract.ts"
import { storeContract } from "../../domain/test/contract/StoreContract.ts"
import { pgliteFromSnapshot, postgresInFreshSchema, postgresUrl } from "./support/Stores.ts"

storeContract("PGlite", pgliteFromSnapshot)
auditContract("PGlite", pgliteFromSnapshot)

if (postgresUrl !== undefined) {
  const url = postgresUrl
  storeContract("PostgreSQL", () => postgresInFreshSchema(url))
  auditContract("PostgreSQL", () => postgresInFreshSchema(url))
} else {
  describe("store contract: PostgreSQL", () => {
    // Loud on purpose: a missing database must not read as a pass.
    it.skip("SKIPPED: set TEST_DATABASE_URL (or DATABASE_URL) to run the contract against PostgreSQL", () => {})
  })
  console.warn("\n*** store contract on PostgreSQL SKIPPED: TEST_DATABASE_URL is not set ***\n")
}
