/**
 * The health checker's status changes: what one check does to an integration's status, and when it writes.
 */
import { describe, expect, it } from "@effect/vitest"
import type { McpIntegration } from "../src/mcp/Mcp.ts"
import { nextStatus } from "../src/mcp/McpHealth.ts"
import { mcpIntegration } from "./contract/ContractHarness.ts"

const integration = (fields: Partial<McpIntegration>) =>
  mcpIntegration("org-1", "docs", { status_changed_at: "2026-01-01T00:00:00.000Z", ...fields })
const now = "2026-02-01T00:00:00.000Z"

describe("nextStatus", () => {
  it("counts failures while active and turns unhealthy at the threshold", () => {
    expect(nextStatus(integration({ consecutive_failures: 1 }), "503", 3, now)).toEqual({
      status: "active",
      status_message: null,
      status_changed_at: "2026-01-01T00:00:00.000Z",
      consecutive_failures: 2
    })
    expect(nextStatus(integration({ consecutive_failures: 2 }), "503", 3, now)).toEqual({
      status: "unhealthy",
      status_message: "503",
      status_changed_at: now,
      consecutive_failures: 3
    })
  })

  it("writes nothing when an unhealthy integration fails again the same way", () => {
    const unhealthy = integration({ status: "unhealthy", status_message: "503", consecutive_failures: 3 })
    expect(nextStatus(unhealthy, "503", 3, now)).toBeUndefined()
  })

  it("records a new error of an unhealthy integration, keeping when it turned unhealthy", () => {
    const unhealthy = integration({ status: "unhealthy", status_message: "503", consecutive_failures: 3 })
    expect(nextStatus(unhealthy, "timed out", 3, now)).toEqual({
      status: "unhealthy",
      status_message: "timed out",
      status_changed_at: "2026-01-01T00:00:00.000Z",
      consecutive_failures: 4
    })
  })

  it("turns an unhealthy integration active on the first success, and leaves a healthy one unwritten", () => {
    const unhealthy = integration({ status: "unhealthy", status_message: "503", consecutive_failures: 7 })
    expect(nextStatus(unhealthy, undefined, 3, now)).toEqual({
      status: "active",
      status_message: null,
      status_changed_at: now,
      consecutive_failures: 0
    })
    expect(nextStatus(integration({}), undefined, 3, now)).toBeUndefined()
    expect(nextStatus(integration({ status: "archived" }), "503", 3, now)).toBeUndefined()
  })
})
