import { it as effectIt } from "@effect/vitest"
import { layerMemory } from "@gateway-control/adapters-memory"
import { ApiKeys, Bootstrap, OrganisationStore, UserStore, WorkspaceStore } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { layerDomain } from "../src/App.ts"

import { cli } from "./support/ServerProcess.ts"

const exec = promisify(execFile)

describe("bootstrap", () => {
  it("on an empty store creates the organisation, owner, default workspace and a working admin key", async () => {
    const result = await Effect.runPromise(
      Effect.gen(function*() {
        const boot = yield* (yield* Bootstrap).run({ organisationName: "Acme", ownerEmail: "Owner@Acme.test" })
        const organisation = yield* (yield* OrganisationStore).get(boot.organisation_id)
        const owner = yield* (yield* UserStore).get(boot.user_id)
        const workspace = yield* (yield* WorkspaceStore).get(boot.workspace_id)
        const principal = yield* (yield* ApiKeys).authenticate(boot.api_key)
        return { organisation, owner, workspace, principal }
      }).pipe(Effect.provide(layerDomain(layerMemory)))
    )
    expect(Option.getOrThrow(result.organisation).name).toBe("Acme")
    expect(Option.getOrThrow(result.owner)).toMatchObject({ email: "owner@acme.test", role: "owner" })
    expect(Option.getOrThrow(result.workspace).slug).toBe("default")
    expect(result.principal).toMatchObject({ keyType: "organisation-service", organisationRole: "owner" })
    expect(result.principal.scopes.has("organisation_service_api_keys.create")).toBe(true)
  })

  effectIt.effect("refuses a second run and changes nothing", () =>
    Effect.gen(function*() {
      const bootstrap = yield* Bootstrap
      const first = yield* bootstrap.run({ organisationName: "First", ownerEmail: "a@first.test" })
      const second = yield* Effect.flip(bootstrap.run({ organisationName: "Second", ownerEmail: "b@second.test" }))
      expect(second._tag).toBe("AlreadyBootstrapped")
      expect(second.message).toMatch(/already has an organisation/)
      const workspaces = yield* (yield* WorkspaceStore).list(first.organisation_id, { limit: 10, offset: 0 })
      const users = yield* (yield* UserStore).list(first.organisation_id, { limit: 10, offset: 0 })
      const organisation = yield* (yield* OrganisationStore).first
      expect(Option.getOrThrow(organisation).id).toBe(first.organisation_id)
      expect(workspaces.total).toBe(1)
      expect(users.items.map((u) => u.email)).toEqual(["a@first.test"])
    }).pipe(Effect.provide(layerDomain(layerMemory))))

  it("rejects a malformed email before touching the store", async () => {
    const error = await Effect.runPromise(
      Effect.gen(function*() {
        const error = yield* Effect.flip((yield* Bootstrap).run({ organisationName: "X", ownerEmail: "nope" }))
        const organisation = yield* (yield* OrganisationStore).first
        return { error, organisation }
      }).pipe(Effect.provide(layerDomain(layerMemory)))
    )
    expect(error.error).toMatchObject({ _tag: "InvalidRequest", param: "owner_email" })
    expect(Option.isNone(error.organisation)).toBe(true)
  })

  it("the CLI prints one JSON line with the ids and the key", async () => {
    const { stdout } = await exec(
      process.execPath,
      [...cli, "bootstrap", "--organisation-name", "Cli Org", "--owner-email", "cli@example.com"],
      { env: { ...process.env, GATEWAY_STORE: "memory" } }
    )
    const lines = stdout.trim().split("\n")
    expect(lines).toHaveLength(1)
    const printed = JSON.parse(lines[0])
    expect(Object.keys(printed).sort()).toEqual(["api_key", "organisation_id", "user_id", "workspace_id"])
    expect(printed.api_key).toMatch(/^gwc_[A-Za-z0-9_-]{43}$/)
  })

  it("the CLI exits non-zero with a clear message for bad input", async () => {
    const failure = await exec(
      process.execPath,
      [...cli, "bootstrap", "--organisation-name", "X", "--owner-email", "nope"],
      {
        env: { ...process.env, GATEWAY_STORE: "memory" }
      }
    ).then(
      () => undefined,
      (error: { code: number; stderr: string; stdout: string }) => error
    )
    expect(failure?.code).not.toBe(0)
    expect(failure?.stderr).toContain("'nope' is not an email address")
    expect(failure?.stdout).toBe("")
  })
})
