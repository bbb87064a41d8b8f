/**
 * The README's embedding snippets are copied from code that CI runs (`examples/`, the client's tests): each
 * region marked `// readme:start <name>` … `// readme:end` there must stand, to the letter, in the README.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const readme = readFileSync(join(root, "README.md"), "utf8")

const sourcesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (name === "node_modules" || name === "dist") return []
    return statSync(path).isDirectory() ? sourcesUnder(path) : path.endsWith(".ts") ? [path] : []
  })

const regions = [join(root, "examples"), join(root, "packages")].flatMap(sourcesUnder).flatMap((path) =>
  [...readFileSync(path, "utf8").matchAll(/\/\/ readme:start ([\w-]+)\n([\s\S]*?)\/\/ readme:end\n/g)].map(
    ([, name, text]) => ({ name, path: path.slice(root.length), text })
  )
)

describe("README snippets", () => {
  it("finds the embedding examples' regions", () => {
    expect(regions.map((region) => region.name)).toEqual(
      expect.arrayContaining(["embed-effect", "embed-express", "client"])
    )
  })

  it.each(regions.map((region) => [region.name, region] as const))(
    "%s stands in the README as it is in its file",
    (_, region) => {
      expect(readme, `${region.path}: region '${region.name}' differs from the README`).toContain(
        "```ts\n" + region.text + "```"
      )
    }
  )
})
