import { defineConfig } from "vitest/config"

// The workspace packages export their `.ts` sources under this condition, and their built `dist/` otherwise.
const conditions = ["@gateway-control/source"]

export default defineConfig({
  resolve: { conditions: [...conditions, "module", "node", "development|production"] },
  ssr: { resolve: { conditions: [...conditions, "module", "node", "development|production"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    globalSetup: ["./vitest.global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
