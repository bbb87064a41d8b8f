/**
 * A new PGlite data directory starts as a copy of a template: a data directory that `initdb` created and the
 * migrations brought up to date once per installation, kept in a cache folder. `initdb` takes 3–6 s and
 * ~850 MB at its peak; copying the template takes ~0.1–0.2 s. The template is never committed: its name
 * holds the PGlite version and a digest of the migrations it carries, so a change of either makes a new one.
 *
 * The cache folder is `node_modules/.cache/gateway-control` beside the installation (the convention of
 * build tools), else `$XDG_CACHE_HOME/gateway-control` or `~/.cache/gateway-control`. Where none is
 * writable, the data directory is initialised in place, as before.
 *
 * Concurrent first starts are safe: each process builds its template in a temporary folder of its own and
 * renames it into place (a rename is atomic; the loser discards its copy and uses the winner's). A data
 * directory is copied the same way, to a temporary sibling first, so a crash never leaves half a database.
 */
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { migrationScripts } from "./Migrations.ts"

/** PGlite's version, from its package.json next to its entry point. */
const pgliteVersion = (): string => {
  const require = createRequire(import.meta.url)
  let dir = dirname(require.resolve("@electric-sql/pglite"))
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir)
  return (require(join(dir, "package.json")) as { readonly version: string }).version
}

/** The template's name: PGlite's version and a digest of the migrations' scripts, edits included. */
export const templateName = (): string => {
  const digest = createHash("sha256").update(JSON.stringify(migrationScripts)).digest("hex").slice(0, 12)
  return `pglite-${pgliteVersion()}-migrations-${Object.keys(migrationScripts).length}-${digest}`
}

/** The nearest `node_modules` above this module's file: the installation this copy of the code belongs to. */
const installationNodeModules = (): string | undefined => {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (true) {
    const candidate = basename(dir) === "node_modules" ? dir : join(dir, "node_modules")
    if (existsSync(candidate)) return candidate
    if (dirname(dir) === dir) return undefined
    dir = dirname(dir)
  }
}

/** Where templates are kept, in order of preference. */
export const defaultTemplateCacheDirs = (): ReadonlyArray<string> => {
  const nodeModules = installationNodeModules()
  const userCache = process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache")
  return [
    ...(nodeModules === undefined ? [] : [join(nodeModules, ".cache", "gateway-control")]),
    join(userCache, "gateway-control")
  ]
}

/** Leftovers of builds or copies that a crash interrupted, once they are old enough not to be in progress. */
const STALE_TEMPORARY_MS = 15 * 60_000

const removeStaleTemporaries = (dir: string, prefix: string) => {
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue
    const path = join(dir, name)
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_TEMPORARY_MS) rmSync(path, { recursive: true, force: true })
    } catch {
      // Another process removed it first.
    }
  }
}

/** Templates of other versions or migrations: each is ~40 MB, and a new one replaces them. */
const removeOtherTemplates = (cacheDir: string, name: string) => {
  for (const other of readdirSync(cacheDir)) {
    if (other.startsWith("pglite-") && other !== name && !other.includes(".building-")) {
      rmSync(join(cacheDir, other), { recursive: true, force: true })
    }
  }
}

/** Moves a finished directory into place; false when another process put one there first. */
const moveIntoPlace = (from: string, to: string): boolean => {
  try {
    renameSync(from, to)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOTEMPTY" || code === "EEXIST") {
      rmSync(from, { recursive: true, force: true })
      return false
    }
    throw error
  }
}

/** Builds a migrated data directory at the given path, closing it when done. */
export type BuildTemplate = (dataDir: string) => Effect.Effect<void, unknown>

/** The template in `cacheDir`, built now when it is missing. */
const ensureTemplate = (cacheDir: string, name: string, build: BuildTemplate): Effect.Effect<string, unknown> =>
  Effect.gen(function*() {
    const template = join(cacheDir, name)
    if (existsSync(join(template, "PG_VERSION"))) return template
    mkdirSync(cacheDir, { recursive: true })
    removeStaleTemporaries(cacheDir, `${name}.building-`)
    const building = mkdtempSync(join(cacheDir, `${name}.building-`))
    yield* build(join(building, "pgdata")).pipe(
      Effect.tapCause(() => Effect.sync(() => rmSync(building, { recursive: true, force: true })))
    )
    if (moveIntoPlace(join(building, "pgdata"), template)) removeOtherTemplates(cacheDir, name)
    rmSync(building, { recursive: true, force: true })
    return template
  })

/**
 * Copies the template to `dataDir` through a temporary sibling, so that `dataDir` is whole or absent.
 * False when `dataDir` holds something that is not a database: PGlite then says what is wrong as it opens it.
 */
const copyTemplate = (template: string, dataDir: string): boolean => {
  const parent = dirname(dataDir)
  mkdirSync(parent, { recursive: true, mode: 0o700 })
  removeStaleTemporaries(parent, `${basename(dataDir)}.copying-`)
  const copying = mkdtempSync(join(parent, `${basename(dataDir)}.copying-`))
  try {
    if (existsSync(dataDir)) {
      if (readdirSync(dataDir).length > 0) return false
      rmSync(dataDir, { recursive: true })
    }
    cpSync(template, join(copying, "pgdata"), { recursive: true })
    renameSync(join(copying, "pgdata"), dataDir)
    return true
  } finally {
    rmSync(copying, { recursive: true, force: true })
  }
}

export type Initialised = "existing" | "from-template" | "in-place"

/**
 * Makes `dataDir` a migrated data directory from the template, unless it holds one already. Answers how it
 * was done: `in-place` when no cache folder was usable, leaving `initdb` to PGlite as it opens `dataDir`.
 */
export const initialiseDataDir = (
  dataDir: string,
  cacheDirs: ReadonlyArray<string>,
  build: BuildTemplate
): Effect.Effect<Initialised> =>
  Effect.gen(function*() {
    if (existsSync(join(dataDir, "PG_VERSION"))) return "existing" as const
    const name = templateName()
    for (const cacheDir of cacheDirs) {
      const copied = yield* ensureTemplate(cacheDir, name, build).pipe(
        Effect.map((template) => copyTemplate(template, dataDir)),
        Effect.catchCause((cause) =>
          Effect.as(
            Effect.logWarning(`PGlite template cache ${cacheDir} is not usable; trying the next place`, cause),
            false
          )
        )
      )
      if (copied) return "from-template" as const
      if (existsSync(dataDir)) break
    }
    return "in-place" as const
  })
