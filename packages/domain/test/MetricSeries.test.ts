/**
 * Metrics with attributes are one metric per series, their attributes given at their making. Not
 * `Metric.withAttributes`: each update through it adds the attributes to the fiber's context, and a request's
 * context is deep enough that Effect then copies every service into a new map. On the render path that was 17 KB
 * allocated per request, a third of everything a render allocated, and more collections in the tail.
 */
import { Effect, Metric } from "effect"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const packagesDir = fileURLToPath(new URL("../../", import.meta.url))

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (name === "node_modules" || name === "dist") return []
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

const sources = readdirSync(packagesDir).flatMap((pkg) => {
  const src = join(packagesDir, pkg, "src")
  return statSync(src, { throwIfNoEntry: false })?.isDirectory() ? sourceFiles(src) : []
})

describe("metric series", () => {
  it("no source updates a metric through Metric.withAttributes", () => {
    const using = sources.filter((file) => /Metric\.withAttributes\(/.test(readFileSync(file, "utf8")))
    expect(using).toEqual([])
  })

  it("the scan reads the sources that make metrics (so the rule above cannot pass vacuously)", () => {
    const making = sources.filter((file) => /Metric\.(counter|histogram|gauge)\(/.test(readFileSync(file, "utf8")))
    expect(making.length).toBeGreaterThanOrEqual(3)
  })

  it("a metric per series reports each series under one name, with its own attributes", async () => {
    const lookups = (result: string) =>
      Metric.counter("test_lookups_total", { incremental: true, attributes: { result } })
    const snapshot = await Effect.runPromise(
      Effect.gen(function*() {
        yield* Metric.update(lookups("hit"), 1)
        yield* Metric.update(lookups("hit"), 1)
        yield* Metric.update(lookups("miss"), 1)
        return yield* Metric.snapshot
      }).pipe(Effect.provideService(Metric.MetricRegistry, new Map()))
    )
    const series = snapshot
      .filter((m) => m.id === "test_lookups_total")
      .map((m) => [m.attributes, (m.state as { count: number }).count])
    expect(series).toEqual(expect.arrayContaining([[{ result: "hit" }, 2], [{ result: "miss" }, 1]]))
    expect(series).toHaveLength(2)
  })
})
