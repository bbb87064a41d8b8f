// Types of bundle-cli.mjs (plain JavaScript, run by `npm run build` with no TypeScript step), for its test.
import type { RolldownOutput } from "rolldown"

export declare const OPTIONAL_NATIVE: string
export declare const bundleCli: (
  outDir: string,
  options?: { readonly fromSource?: boolean }
) => Promise<RolldownOutput["output"]>
