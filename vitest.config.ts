import { defineConfig } from "vitest/config"

// The workspace packages export their `.ts` sources under this condition, and their built `dist/` otherwise.
const conditions = ["@gateway-control/source"]

export default defineConfig({
  resolve: { conditions: [...conditions, "module", "node", "development|production"] },
  // Vitest hands these to Node (`--conditions`) for the modules it does not transform. Not `module`: packages that
  // export a bundler build under it (the AWS SDK's `dist-es`, whose imports name files without extensions) would
  // load that build in Node, which cannot resolve them.
  ssr: { resolve: { conditions: [...conditions, "node", "development|production"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    globalSetup: ["./vitest.global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
