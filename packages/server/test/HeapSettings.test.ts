/**
 * The bin's V8 settings (`bin/heap.mjs`): the optimising compilers wait until `serve` listens, then optimise
 * requests' code as usual; a user's own compiler flag stands. Observed through V8's own `--trace-opt` lines,
 * which name the tier each compilation targets. Once it listens, the young generation grows to its most and no
 * further (`youngGenerationStep`, steering V8's growth factor after each collection).
 */
import { spawn } from "node:child_process"
import { describe, expect, it } from "vitest"
import { youngGenerationStep } from "../bin/heap.mjs"
import { cleanupsAfterAll } from "./support/Cleanups.ts"
import { cli, freePort } from "./support/ServerProcess.ts"

const cleanups = cleanupsAfterAll()

/** Lines V8 prints for each optimising compilation it starts (Maglev or Turbofan). */
const COMPILATION = /\(target (MAGLEV|TURBOFAN\w*)\)/g
const compilations = (text: string) => text.match(COMPILATION)?.length ?? 0

/** `serve` under `--trace-opt` and `nodeArgs`: compilations before it listened, and after `requests` requests. */
const compilationsAround = async (nodeArgs: ReadonlyArray<string>, requests: number) => {
  const port = await freePort()
  const child = spawn(process.execPath, ["--trace-opt", ...nodeArgs, ...cli, "serve"], {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", GATEWAY_STORE: "memory", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  cleanups.push(() => child.kill("SIGKILL"))
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  const atListening = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${stderr}`)), 60_000)
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      if (stderr.includes("Listening on")) {
        clearTimeout(timer)
        resolve(compilations(stdout))
      }
    })
  })
  for (let i = 0; i < requests; i++) {
    const response = await fetch(`http://127.0.0.1:${port}/v1/openapi.json`)
    expect(response.status).toBe(200)
    await response.arrayBuffer()
  }
  // V8 prints a compilation when it starts it, on the main thread; a short wait lets the last ones through.
  await new Promise((resolve) => setTimeout(resolve, 500))
  child.kill("SIGTERM")
  return { atListening, afterRequests: compilations(stdout) }
}

describe("the bin's V8 settings", () => {
  it("holds the optimising compilers off while serve starts, and turns them on once it listens", async () => {
    const { atListening, afterRequests } = await compilationsAround([], 1_500)
    // Only what ran before the bin's settings (Node's own path functions, say) may have been optimised.
    expect(atListening).toBeLessThan(10)
    expect(afterRequests - atListening).toBeGreaterThan(50)
  }, 120_000)

  it("leaves a compiler the user named on the command line alone", async () => {
    const { atListening } = await compilationsAround(["--maglev"], 0)
    expect(atListening).toBeGreaterThan(50)
  }, 120_000)
})

describe("the young generation's most, once serve listens", () => {
  const MB = 1024 * 1024

  it("stops the growth once the young generation is past half its most, and gives it back once it shrank", () => {
    const step = youngGenerationStep(16 * MB)
    // V8 doubles the young generation at a growth: 1, 2, 4, then 16 is past half of 16.
    expect([1, 2, 4].map((size) => step(size * MB))).toEqual([undefined, undefined, undefined])
    expect(step(16 * MB)).toBe("--semi-space-growth-factor=1")
    // Held: nothing more is set while it stays past half.
    expect(step(16 * MB)).toBeUndefined()
    // V8 shrinks an idle young generation; growth comes back once it is at half or less.
    expect(step(8 * MB)).toBe("--semi-space-growth-factor=2")
    expect(step(4 * MB)).toBeUndefined()
    expect(step(32 * MB)).toBe("--semi-space-growth-factor=1")
  })
})
