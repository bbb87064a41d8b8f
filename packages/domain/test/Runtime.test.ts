import { describe, expect, it } from "vitest"

describe("the test runtime", () => {
  it("is Node >= 22.19, the floor of Effect 4's Node platform", () => {
    const [major, minor] = process.versions.node.split(".").map(Number)
    expect(major > 22 || (major === 22 && minor >= 19), `tests ran on Node ${process.versions.node}`).toBe(true)
  })
})
