// The CLI an installation runs (`bin/gateway-control.mjs` → the `./cli` export → `dist/cli/main.js`), as one
// minified bundle of our packages and their dependencies, with what only some starts use in chunks loaded on
// first use. Why: a server loaded module by module keeps the source of ~750 modules in its heap, comments
// included, and V8 keeps a module's whole source as two-byte text when it holds one character outside Latin-1
// (half of `effect`'s files do): ~20 MB of the idle server's resident memory (README, Performance, "Where the
// memory went"). The bundle is plain ASCII: strings are escaped, and licence comments go to THIRD-PARTY-NOTICES.
// The embedding API (`dist/index.js`) stays module by module, for embedders' own bundlers. Source maps go beside
// the chunks (names and lines, not the sources' text), so `node --enable-source-maps` turns a stack trace's
// minified names back into ours; Node reads them only when asked.
//
// Kept outside the bundle, as the installation's own packages:
// - PGlite and the AWS SDK: loaded on first use, PGlite's WebAssembly and data files next to its module;
// - the console's assets module, which finds the console's browser files next to itself;
// - `@node-rs/xxhash`, an optional native module Redis's client tries for one command we do not use.
//
// Usage: node scripts/bundle-cli.mjs [outDir] [--source] (`--source`: from the TypeScript sources, no build);
// or `bundleCli(outDir, { fromSource })`, which resolves to rolldown's output.
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { rolldown } from "rolldown"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")

/** The console's assets module: imported by its package name, so it resolves next to the console's files. */
const CONSOLE_ASSETS = "@gateway-control/console/assets"
/** Tried by @redis/client's `digest` only, in a try/catch; not installed, as it is native. */
export const OPTIONAL_NATIVE = "@node-rs/xxhash"
const consoleAssets = {
  name: "console-assets-outside",
  resolveId(source, importer) {
    if (
      importer !== undefined && /[\\/]console[\\/](src|dist)[\\/]/.test(importer) &&
      /^\.\/ConsoleAssets\.(ts|js)$/.test(source)
    ) {
      return { id: CONSOLE_ASSETS, external: true }
    }
    return null
  }
}

/** The package a bundled module belongs to: its directory and package.json, nearest first. */
const packageOf = (file) => {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      return { dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }
    } catch {
      // no package.json here: the next directory up
    }
  }
  return undefined
}

const LICENCE_FILE = /^(licen[cs]e|copying|notice)(\.(md|txt))?$/i

/** Each bundled third-party package, its version, licence and licence text: what the stripped comments held. */
const notices = (moduleIds) => {
  const packages = new Map()
  for (const id of moduleIds) {
    if (!id.includes("node_modules")) continue
    const found = packageOf(id.replace(/\?.*$/, ""))
    if (found === undefined || found.manifest.name === undefined || packages.has(found.manifest.name)) continue
    const texts = readdirSync(found.dir).filter((name) => LICENCE_FILE.test(name))
      .map((name) => readFileSync(join(found.dir, name), "utf8").trim())
    packages.set(found.manifest.name, { ...found.manifest, texts })
  }
  return [...packages.values()].sort((a, b) => a.name.localeCompare(b.name)).map((p) =>
    [`${p.name} ${p.version} (${p.license ?? "see its package"})`, ...p.texts].join("\n\n")
  ).join(`\n\n${"-".repeat(78)}\n\n`)
}

export const bundleCli = async (outDir, { fromSource = false } = {}) => {
  const bundle = await rolldown({
    input: join(packageDir, fromSource ? "src/main.ts" : "dist/main.js"),
    platform: "node",
    external: [/^node:/, /^@electric-sql\/pglite(\/|$)/, /^@aws-sdk\//, CONSOLE_ASSETS, OPTIONAL_NATIVE],
    plugins: [consoleAssets],
    resolve: { conditionNames: [...(fromSource ? ["@gateway-control/source"] : []), "node", "import", "default"] },
    // Module-level "use strict" directives in CommonJS dependencies: an ES module is strict already.
    onLog: (level, log, handler) => log.code === "MODULE_LEVEL_DIRECTIVE" ? undefined : handler(level, log)
  })
  rmSync(outDir, { recursive: true, force: true })
  const { output } = await bundle.write({
    dir: outDir,
    format: "esm",
    minify: true,
    charset: "ascii",
    sourcemap: true,
    sourcemapExcludeSources: true,
    comments: { legal: false },
    entryFileNames: "[name].js",
    chunkFileNames: "[name]-[hash].js"
  })
  await bundle.close()
  const moduleIds = output.flatMap((chunk) => chunk.type === "chunk" ? chunk.moduleIds : [])
  writeFileSync(
    join(outDir, "THIRD-PARTY-NOTICES.txt"),
    `Third-party packages bundled into this directory, with their licences.\n\n${notices(moduleIds)}\n`
  )
  return output
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  await bundleCli(args.find((arg) => !arg.startsWith("--")) ?? join(packageDir, "dist/cli"), {
    fromSource: args.includes("--source")
  })
}
