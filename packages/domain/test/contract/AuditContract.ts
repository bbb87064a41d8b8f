/**
 * The audit log over a store: what every store must keep, whatever a caller sent. Call
 * `auditContract(name, layer)` from an adapter's tests with a layer that builds a fresh store.
 */
import { Effect, Exit, Layer, ManagedRuntime, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WorkspaceStore } from "../../src/access/AccessStores.ts"
import { OrganisationStore } from "../../src/access/AccessStores.ts"
import { checkpointText, GENESIS_HASH } from "../../src/audit/AuditChain.ts"
import { Audit, MasterKeyMismatch } from "../../src/audit/AuditLog.ts"
import { AuditLogStore } from "../../src/audit/AuditLogStore.ts"
import { type AuditActor, type AuditEntry, type AuditRecord, newestFirst } from "../../src/audit/AuditRecord.ts"
import { MAX_DEPTH } from "../../src/audit/internal/storable.ts"
import { Organisation, Prompt, PromptStore, Workspace } from "../../src/index.ts"
import type { StoreError } from "../../src/shared/StoreError.ts"
import { StoreTransaction } from "../../src/shared/StoreTransaction.ts"
import type { StorePorts } from "../../src/StorePorts.ts"
import { promptVersion } from "./ContractHarness.ts"
import { hmacHex, layerAuditTestCrypto } from "./TestCrypto.ts"

let counter = 0
const uid = () => `${Date.now().toString(36)}-${(counter++).toString(36)}`

export const entry = (actor: AuditActor, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  actor,
  workspaceId: null,
  action: "create",
  resourceType: "workspace",
  resourceId: null,
  method: "POST",
  uri: "/v1/workspaces",
  requestId: uid(),
  requestBody: { name: "x" },
  responseStatusCode: 201,
  clientIp: "127.0.0.1",
  ...overrides
})

/** `{"a": {"a": … }}`, `depth` objects deep. */
export const nested = (depth: number): unknown => {
  let value: unknown = "bottom"
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

export const layerAudit = <ROut, E>(store: Layer.Layer<ROut, E>, key?: string) =>
  Audit.layer.pipe(Layer.provideMerge(store), Layer.provideMerge(layerAuditTestCrypto(key)))

export const auditContract = <E>(name: string, makeStore: () => Layer.Layer<StorePorts, E>) => {
  describe(`audit log contract: ${name}`, () => {
    let runtime: ManagedRuntime.ManagedRuntime<Audit | StorePorts, E | StoreError | MasterKeyMismatch>
    const audit = <A, E2>(f: (audit: Audit["Service"]) => Effect.Effect<A, E2>) =>
      runtime.runPromise(Effect.flatMap(Effect.service(Audit), f))
    const run = <A, E2>(effect: Effect.Effect<A, E2, Audit | StorePorts>) => runtime.runPromise(effect)

    beforeAll(async () => {
      runtime = ManagedRuntime.make(layerAudit(makeStore()))
      await runtime.runPromise(Effect.void)
    }, 120_000)
    afterAll(() => runtime?.dispose())

    const actorOf = (): AuditActor => ({ organisationId: `org-${uid()}`, keyId: `key-${uid()}`, userId: null })

    /** The organisation's records as the store gives them back, newest first. */
    const stored = (organisationId: string) =>
      audit((a) =>
        a.list(
          {
            keyId: "k",
            keyType: "organisation-service",
            organisationId,
            workspaceId: null,
            userId: null,
            organisationRole: null,
            workspaceRole: null,
            scopes: new Set(["audit_logs.list"]),
            expiresAt: null
          },
          {},
          { limit: 100, offset: 0 }
        )
      ).then((page) => page.items)

    const expectIntactChain = async () => expect(await audit((a) => a.verify())).toMatchObject({ ok: true })

    it("keeps the check value of the first master key; an audit log opened under another fails to start", async () => {
      const openUnder = (key?: string) =>
        runtime.runPromise(
          Effect.exit(Effect.provide(Effect.service(Audit), Layer.fresh(layerAudit(Layer.empty, key))))
        )
      const other = await openUnder("another master key")
      expect(Exit.isFailure(other) && Exit.findErrorOption(other).pipe(Option.getOrUndefined)).toBeInstanceOf(
        MasterKeyMismatch
      )
      // The store's own key still opens it: the value kept is the first one's, not overwritten by the refused one.
      expect(Exit.isSuccess(await openUnder())).toBe(true)
      const kept = await run(Effect.flatMap(Effect.service(AuditLogStore), (store) => store.claimKeyCheck("x")))
      expect(kept).not.toBe("x")
    })

    it("keeps a body holding U+0000 and unpaired surrogates, escaped and flagged", async () => {
      const actor = actorOf()
      const written = await audit((a) =>
        a.record(entry(actor, { requestBody: { name: "a\u0000b", description: "lone \ud83d half" } }))
      )
      const [read] = await stored(actor.organisationId!)
      expect(read).toEqual(written)
      expect(read).toMatchObject({
        sanitized: true,
        request_body: { name: "a\\u0000b", description: "lone \\ud83d half" }
      })
      await expectIntactChain()
    })

    it("keeps a 10,000-deep body cut to the nesting limit, and the chain still verifies", async () => {
      const actor = actorOf()
      await audit((a) => a.record(entry(actor, { requestBody: { config: nested(10_000) } })))
      const [read] = await stored(actor.organisationId!)
      expect(read.sanitized).toBe(true)
      expect(JSON.stringify(read.request_body)).toContain(`[truncated: nested deeper than ${MAX_DEPTH} levels]`)
      await expectIntactChain()
    })

    it("keeps unstorable text in the other fields (a resource id from a path) escaped", async () => {
      const actor = actorOf()
      await audit((a) => a.record(entry(actor, { resourceId: "p\u0000q", uri: "/v1/prompts/p%00q", method: "DELETE" })))
      const [read] = await stored(actor.organisationId!)
      expect(read).toMatchObject({ resource_id: "p\\u0000q", sanitized: true })
      await expectIntactChain()
    })

    it("keeps bodies of every JSON shape as they were, unflagged", async () => {
      const actor = actorOf()
      for (const requestBody of ["just text", 42, [1, "two"], null, { n: 1.5, big: 1e21, emoji: "😀" }]) {
        await audit((a) => a.record(entry(actor, { requestBody })))
      }
      const read = await stored(actor.organisationId!)
      expect(read.map((r) => [r.request_body, r.sanitized]).reverse()).toEqual([
        ["just text", false],
        [42, false],
        [[1, "two"], false],
        [null, false],
        [{ n: 1.5, big: 1e21, emoji: "😀" }, false]
      ])
      await expectIntactChain()
    })

    it("files a call with no known key under no organisation, for the operator only", async () => {
      const requestId = uid()
      const written = await audit((a) =>
        a.record(entry({ organisationId: null, keyId: null, userId: null }, { requestId, responseStatusCode: 401 }))
      )
      expect(written).toMatchObject({ organisation_id: null, user_type: "unauthenticated", api_key_id: null })
      const unauthenticated = await audit((a) => a.listUnauthenticated({ limit: 1000, offset: 0 }))
      expect(unauthenticated.items.filter((r) => r.request_id === requestId)).toEqual([written])
      expect(unauthenticated.items.every((r: AuditRecord) => r.organisation_id === null)).toBe(true)
      await expectIntactChain()
    })

    it("numbers concurrent appends 1, 2, 3… in each chain without gaps, each linked to the one before", async () => {
      const actor = actorOf()
      const n = 24
      const written = await audit((a) =>
        Effect.forEach(Array.from({ length: n }, (_, i) => entry(actor, { resourceId: `r${i}` })), a.record, {
          concurrency: "unbounded"
        })
      )
      // The whole log, whatever earlier tests of the suite appended to it, chain by chain.
      const log = await run(
        Effect.flatMap(Effect.service(AuditLogStore), (store) => store.scan({ chain: 0, seq: 0 }, 100_000))
      )
      const chains = new Map<number, Array<AuditRecord>>()
      for (const r of log) chains.set(r.chain, [...(chains.get(r.chain) ?? []), r])
      expect([...chains.keys()]).toEqual([...chains.keys()].sort((a, b) => a - b))
      for (const chain of chains.values()) {
        expect(chain.map((r) => r.seq)).toEqual(chain.map((_, i) => i + 1))
        chain.forEach((r, i) => expect(r.previous_hash).toBe(i === 0 ? GENESIS_HASH : chain[i - 1].hash))
      }
      const ours = log.filter((r) => r.organisation_id === actor.organisationId)
      expect(ours.map((r) => r.id).sort()).toEqual(written.map((r) => r.id).sort())
      expect(new Set(written.map((r) => `${r.chain}/${r.seq}`)).size).toBe(n)
      await expectIntactChain()
    })

    it("lists newest first by time, then by chain and position", async () => {
      const actor = actorOf()
      for (let i = 0; i < 3; i++) await audit((a) => a.record(entry(actor, { resourceId: `t${i}` })))
      const listed = await stored(actor.organisationId!)
      expect(listed.map((r) => r.resource_id)).toEqual(["t2", "t1", "t0"])
      expect([...listed].sort(newestFirst)).toEqual(listed)
    })

    it("keeps neither the change nor its audit record when a unit of work fails after writing both", async () => {
      const actor = actorOf()
      const now = new Date().toISOString()
      const ids = { organisation: actor.organisationId!, workspace: `w-${uid()}`, prompt: `p-${uid()}` }
      const prompt = new Prompt({
        id: ids.prompt,
        organisation_id: ids.organisation,
        workspace_id: ids.workspace,
        collection_id: `c-${ids.workspace}`,
        name: "Rolled back",
        slug: `rolled-back-${uid()}`,
        published_version: 1,
        created_at: now,
        last_updated_at: now
      })
      const version = promptVersion(prompt.id, 1, { string: "{{x}}", created_at: now })
      const result = await runtime.runPromiseExit(Effect.gen(function*() {
        yield* (yield* OrganisationStore).insert(
          new Organisation({
            id: ids.organisation,
            name: "Org",
            created_at: now,
            last_updated_at: now
          })
        )
        yield* (yield* WorkspaceStore).insert(
          new Workspace({
            id: ids.workspace,
            organisation_id: ids.organisation,
            name: "W",
            slug: `w-${uid()}`,
            description: null,
            created_at: now,
            last_updated_at: now
          })
        )
        const transaction = yield* StoreTransaction
        // A handler's unit of work: its write, its audit record, then a failure.
        yield* transaction.withTransaction(Effect.gen(function*() {
          yield* (yield* PromptStore).insert(prompt, version)
          yield* (yield* Audit).record(entry(actor, { resourceType: "prompt", resourceId: prompt.id }))
          return yield* Effect.fail("failed after the first write")
        }))
      }))
      expect(Exit.isFailure(result)).toBe(true)
      expect(await run(Effect.flatMap(Effect.service(PromptStore), (s) => s.get(prompt.id)))).toEqual(Option.none())
      expect(await stored(actor.organisationId!)).toEqual([])
      await expectIntactChain()
    })

    it("still verifies a checkpoint signed before chains: the head of chain 0 in count and last_hash", async () => {
      const actor = actorOf()
      await audit((a) => a.record(entry(actor)))
      const verdict = await audit((a) => a.verify())
      if (!verdict.ok) throw new Error(verdict.reason)
      const chain0 = verdict.heads.find((head) => head.chain === 0)!
      const old = { count: chain0.count, last_hash: chain0.last_hash, at: new Date().toISOString() }
      const signed = { ...old, signature: hmacHex(`checkpoint:the gateway's audit key`, checkpointText(old)) }
      await audit((a) => a.record(entry(actor)))
      expect(await audit((a) => a.verify(signed))).toMatchObject({ ok: true })
      const otherHead = { ...old, last_hash: "f".repeat(64) }
      const forgedHead = {
        ...otherHead,
        signature: hmacHex(`checkpoint:the gateway's audit key`, checkpointText(otherHead))
      }
      expect(await audit((a) => a.verify(forgedHead))).toMatchObject({
        ok: false,
        record: { chain: 0, seq: chain0.count },
        reason: expect.stringContaining("is not the record the checkpoint")
      })
    })

    it("signs checkpoints that later verifications check, and refuses a forged one", async () => {
      const actor = actorOf()
      await audit((a) => a.record(entry(actor)))
      const checkpoint = await audit((a) => a.checkpoint)
      expect(checkpoint.signature).toMatch(/^[0-9a-f]{64}$/)
      expect(checkpoint.count).toBe(checkpoint.heads?.reduce((sum, head) => sum + head.count, 0))
      await audit((a) => a.record(entry(actor)))
      // The chain grew past the checkpoint: it still reaches it.
      expect(await audit((a) => a.verify(checkpoint))).toMatchObject({ ok: true })
      const forged = { ...checkpoint, count: checkpoint.count - 1 }
      expect(await audit((a) => a.verify(forged))).toMatchObject({
        ok: false,
        reason: expect.stringContaining("signature is not valid")
      })
    })
  })
}
