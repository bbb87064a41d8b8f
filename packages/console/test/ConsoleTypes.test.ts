/**
 * The console's types come from the API definition (`app/api/contract.ts`), so a changed endpoint fails the
 * console's type check. This runs that check (`tsc -p packages/console/app/tsconfig.json`, as `npm run typecheck`
 * does) through TypeScript's API, with one file of the API replaced in memory: renaming a response field the
 * console reads must fail it in the page that reads it, and the unchanged tree must pass (so the test can fail).
 */
import { readFileSync, realpathSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const root = realpathSync(fileURLToPath(new URL("../../../", import.meta.url)))
const appDir = join(root, "packages", "console", "app")

const config = ts.getParsedCommandLineOfConfigFile(join(appDir, "tsconfig.json"), {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
    throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
  }
})!

/** Parsed files, shared by the checks: only a replaced file is parsed again. */
const parsed = new Map<string, ts.SourceFile>()

/** A file with `from` replaced by `to`, failing when `from` is not in it (the change must happen). */
const renamed = (file: string, from: string, to: string): readonly [string, string] => {
  const path = join(root, file)
  const text = readFileSync(path, "utf8")
  expect(text, `${file} has no ${from}`).toContain(from)
  return [path, text.replace(from, to)]
}

/** The console's type errors, with `overlay` (absolute path to text) in place of the files it names. */
const consoleErrors = (overlay: ReadonlyMap<string, string> = new Map()) => {
  const host = ts.createCompilerHost(config.options, true)
  host.getSourceFile = (fileName, languageVersion) => {
    const path = resolve(fileName)
    const replaced = overlay.get(path)
    if (replaced !== undefined) return ts.createSourceFile(fileName, replaced, languageVersion, true)
    let file = parsed.get(path)
    if (file === undefined) {
      const text = ts.sys.readFile(path)
      if (text === undefined) return undefined
      file = ts.createSourceFile(fileName, text, languageVersion, true)
      parsed.set(path, file)
    }
    return file
  }
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host })
  // The console's own files: the API's and the domain's are checked by the root project (`npm run typecheck`).
  const files = program.getSourceFiles().filter((file) => resolve(file.fileName).startsWith(`${appDir}/`))
  expect(files.some((file) => file.fileName.endsWith("app/api/contract.ts"))).toBe(true)
  return [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...files.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)])
  ].map((diagnostic) => ({
    file: diagnostic.file === undefined ? "" : relative(root, resolve(diagnostic.file.fileName)),
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")
  }))
}

/** A check reads the API's and the domain's sources too: seconds, more on a loaded machine. */
const TIMEOUT = 180_000

describe("the console's types come from the API definition", () => {
  it("the console type-checks against the API as it is", () => {
    expect(consoleErrors()).toEqual([])
  }, TIMEOUT)

  it("renaming a field of the domain's API key fails the page that shows it", () => {
    const errors = consoleErrors(
      new Map([
        renamed(
          "packages/domain/src/credentials/ApiKey.ts",
          "  masked_key: Schema.String,",
          "  key_mask: Schema.String,"
        )
      ])
    )
    expect(errors).toContainEqual({
      file: "packages/console/app/pages/apiKeys.ts",
      message: expect.stringContaining("'masked_key'")
    })
  }, TIMEOUT)

  it("renaming a field of a success schema in an Api.ts fails the call that reads it", () => {
    const errors = consoleErrors(
      new Map([
        renamed(
          "packages/adapters-http/src/groups/auditLogs/Api.ts",
          "  records: Schema.Array",
          "  entries: Schema.Array"
        )
      ])
    )
    expect(errors).toContainEqual({
      file: "packages/console/app/api.ts",
      message: expect.stringContaining("'records'")
    })
  }, TIMEOUT)

  it("moving an endpoint fails the call that names its old path", () => {
    const errors = consoleErrors(
      new Map([
        renamed("packages/adapters-http/src/groups/workspaces/Api.ts", `"list", "/workspaces"`, `"list", "/spaces"`)
      ])
    )
    expect(errors).toContainEqual({
      file: "packages/console/app/api.ts",
      message: expect.stringContaining(`"/workspaces"`)
    })
  }, TIMEOUT)
})
