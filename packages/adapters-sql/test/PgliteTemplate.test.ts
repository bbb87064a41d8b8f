/**
 * New PGlite data directories start from a template kept in a cache folder: made once, shared by concurrent
 * first starts, never half-written, and skipped where no cache folder can be written.
 */
import { Effect } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { migrate, migrationScripts } from "../src/Migrations.ts"
import * as PgliteClient from "../src/PgliteClient.ts"
import { type BuildTemplate, defaultTemplateCacheDirs, initialiseDataDir, templateName } from "../src/PgliteTemplate.ts"

const root = mkdtempSync(join(tmpdir(), "gwc-template-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let nextDir = 0
const freshDir = () => join(root, `dir-${nextDir++}`)

/** A stand-in for initdb and the migrations: a data directory is a PG_VERSION file and a marker. */
const fakeBuild = (builds: Array<string>): BuildTemplate => (dataDir) =>
  Effect.promise(async () => {
    builds.push(dataDir)
    mkdirSync(dataDir, { recursive: true })
    // Yields between the two writes, so that concurrent builds interleave.
    await new Promise((resolve) => setImmediate(resolve))
    writeFileSync(join(dataDir, "marker"), `built at ${dataDir}`)
    writeFileSync(join(dataDir, "PG_VERSION"), "17\n")
  })

describe("the PGlite template", () => {
  it("is named after PGlite's version and the migrations it holds, their source included", () => {
    const version = JSON.parse(readFileSync("node_modules/@electric-sql/pglite/package.json", "utf8")).version
    const digest = createHash("sha256").update(JSON.stringify(migrationScripts)).digest("hex").slice(0, 12)
    expect(templateName()).toBe(`pglite-${version}-migrations-${Object.keys(migrationScripts).length}-${digest}`)
  })

  it("is kept beside the installation first, then in the user's cache folder", () => {
    const dirs = defaultTemplateCacheDirs()
    expect(dirs[0]).toBe(join(process.cwd(), "node_modules", ".cache", "gateway-control"))
    expect(dirs.at(-1)).toMatch(/gateway-control$/)
  })

  it("is built once, copied into new data directories, and leaves an existing one alone", async () => {
    const cache = freshDir()
    // A template of earlier migrations goes when the new one is built.
    mkdirSync(join(cache, "pglite-0.5.16-migrations-8-0123456789ab"), { recursive: true })
    const builds: Array<string> = []
    const first = freshDir()
    const second = freshDir()
    expect(await Effect.runPromise(initialiseDataDir(first, [cache], fakeBuild(builds)))).toBe("from-template")
    expect(await Effect.runPromise(initialiseDataDir(second, [cache], fakeBuild(builds)))).toBe("from-template")
    expect(await Effect.runPromise(initialiseDataDir(second, [cache], fakeBuild(builds)))).toBe("existing")
    expect(builds).toHaveLength(1)
    expect(readdirSync(cache)).toEqual([templateName()])
    expect(readFileSync(join(second, "marker"), "utf8")).toBe(readFileSync(join(first, "marker"), "utf8"))
    expect(readdirSync(root).filter((name) => name.includes(".copying-"))).toEqual([])
  })

  it("survives concurrent first starts: one template wins, every directory is whole, nothing is left over", async () => {
    const cache = freshDir()
    const builds: Array<string> = []
    const dirs = [freshDir(), freshDir(), freshDir(), freshDir()]
    const results = await Effect.runPromise(
      Effect.forEach(dirs, (dir) => initialiseDataDir(dir, [cache], fakeBuild(builds)), { concurrency: "unbounded" })
    )
    expect(results).toEqual(["from-template", "from-template", "from-template", "from-template"])
    expect(builds.length).toBeGreaterThan(1)
    expect(readdirSync(cache)).toEqual([templateName()])
    const winner = readFileSync(join(cache, templateName(), "marker"), "utf8")
    for (const dir of dirs) expect(readFileSync(join(dir, "marker"), "utf8")).toBe(winner)
  })

  it("tries the next cache folder when one cannot be written, and initialises in place when none can", async () => {
    // Tests may run as root, which ignores permissions: a file where the folder should be fails for everyone.
    const blocked = join(freshDir(), "file")
    mkdirSync(join(blocked, ".."), { recursive: true })
    writeFileSync(blocked, "not a folder")
    const usable = freshDir()
    const builds: Array<string> = []
    const viaFallback = freshDir()
    expect(
      await Effect.runPromise(initialiseDataDir(viaFallback, [join(blocked, "cache"), usable], fakeBuild(builds)))
    ).toBe("from-template")
    expect(existsSync(join(usable, templateName(), "PG_VERSION"))).toBe(true)

    const inPlace = freshDir()
    expect(await Effect.runPromise(initialiseDataDir(inPlace, [join(blocked, "cache")], fakeBuild(builds)))).toBe(
      "in-place"
    )
    expect(existsSync(inPlace)).toBe(false)
  })

  it("leaves a directory that holds something other than a database to PGlite", async () => {
    const cache = freshDir()
    const occupied = freshDir()
    mkdirSync(occupied)
    writeFileSync(join(occupied, "notes.txt"), "mine")
    expect(await Effect.runPromise(initialiseDataDir(occupied, [cache], fakeBuild([])))).toBe("in-place")
    expect(readdirSync(occupied)).toEqual(["notes.txt"])
  })

  it("gives PGlite a migrated database that keeps what is written to it", async () => {
    const cache = freshDir()
    const dataDir = freshDir()
    const open = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
      Effect.runPromise(
        effect.pipe(
          Effect.provide(PgliteClient.layer({ dataDir, templateCacheDirs: [cache] })),
          Effect.provide(Reactivity.layer)
        )
      )
    const ranOnOpen = await open(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const ran = yield* migrate
      yield* sql`INSERT INTO organisations (id, name, created_at, last_updated_at) VALUES ('o', 'O', now(), now())`
      const [buffers] = yield* sql<{ readonly shared_buffers: string }>`SHOW shared_buffers`
      return { ran, buffers: buffers!.shared_buffers }
    }))
    expect(ranOnOpen).toEqual({ ran: [], buffers: "8MB" })
    expect(existsSync(join(cache, templateName(), "PG_VERSION"))).toBe(true)
    const names = await open(Effect.flatMap(
      Effect.service(SqlClient.SqlClient),
      (sql) => sql<{ readonly name: string }>`SELECT name FROM organisations`
    ))
    expect(names).toEqual([{ name: "O" }])
  }, 120_000)
})
