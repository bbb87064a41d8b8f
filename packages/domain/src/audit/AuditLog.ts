/**
 * The audit log: one record for every mutating administrative call that reaches the service, allowed,
 * denied or refused, written in the same transaction as the change it describes. Records form a keyed hash
 * chain (see `AuditChain.ts`). What a record keeps is always storable: secrets are redacted, and content the
 * store cannot hold is escaped or cut, with the record marked `sanitized`.
 */
import { Context, Effect, Layer, Schema, Tracer } from "effect"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import type { Forbidden, NotFound } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import { measureAuditAppend } from "../shared/OperationalMetrics.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { AuditCheckpoint } from "./AuditChain.ts"
import { chainHash, type ChainVerdict, checkpointText, CURRENT_HASH_ALGORITHM, walkChain } from "./AuditChain.ts"
import { AuditLogStore, AuditSigner } from "./AuditLogStore.ts"
import { type AuditActor, type AuditEntry, type AuditFilters, AuditRecord, type ChainTail } from "./AuditRecord.ts"
import { SECRET_FIELDS } from "./AuditRedaction.ts"
import { storableBody, storableText } from "./internal/storable.ts"
import { LEGACY_SEAL_ACTION, LEGACY_SEAL_RESOURCE_TYPE, legacySealBody } from "./LegacySeal.ts"
import { redactSecretValues } from "./SecretValues.ts"

/** The chain is broken, so no checkpoint of it is signed. */
export class AuditChainBroken extends Schema.TaggedError<AuditChainBroken>()("AuditChainBroken", {
  message: Schema.String
}) {}

/** The master key given is not the one the store was made with: nothing it encrypted or chained would open. */
export class MasterKeyMismatch extends Schema.TaggedError<MasterKeyMismatch>()("MasterKeyMismatch", {
  message: Schema.String
}) {}

/** A workload exchanging its token holds no key yet, but is known: its token was verified. */
const userTypeOf = (actor: AuditActor): AuditRecord["user_type"] =>
  actor.session !== undefined
    ? "user"
    : actor.keyId === null
    ? (actor.workload !== undefined ? "workload" : actor.userId === null ? "unauthenticated" : "user")
    : actor.userId === null
    ? "api_key"
    : "user"

/**
 * The trace the current call belongs to, when the process exports traces: with Effect's native tracer alone
 * (no OTLP) ids are made up per span and name nothing an operator can look up, so the record keeps none.
 */
const currentTraceId = Effect.withFiber((fiber) => {
  if (fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) return Effect.succeed(null)
  return Effect.succeed(Context.getOrUndefined(fiber.context, Tracer.ParentSpan)?.traceId ?? null)
})

export class Audit extends Context.Service<
  Audit,
  {
    /** Appends a record; joins the caller's unit of work when there is one. */
    readonly record: (entry: AuditEntry) => Effect.Effect<AuditRecord, StoreError>
    readonly list: (
      principal: Principal,
      filters: AuditFilters,
      page: PageRequest
    ) => Effect.Effect<Page<AuditRecord>, Forbidden | NotFound | StoreError>
    /** Records of calls with no known key, newest first: the operator's, as they belong to no organisation. */
    readonly listUnauthenticated: (page: PageRequest) => Effect.Effect<Page<AuditRecord>, StoreError>
    /** Walks every chain in order and reports the first broken link, or a log that lost its checkpoint. */
    readonly verify: (checkpoint?: AuditCheckpoint) => Effect.Effect<ChainVerdict, StoreError>
    /** A signed statement of every chain's current head; refused when a chain is broken. */
    readonly checkpoint: Effect.Effect<AuditCheckpoint, AuditChainBroken | StoreError>
  }
>()("@gateway-control/Audit") {
  static readonly layer = Layer.effect(
    Audit,
    Effect.gen(function*() {
      const store = yield* AuditLogStore
      const crypto = yield* PlatformCrypto
      const signer = yield* AuditSigner
      const hashers = { sha256Hex: crypto.sha256Hex, chainMac: signer.chainMac }

      /** A record's fields but its position and hashes, made storable and redacted. */
      const fieldsOf = Effect.fnUntraced(function*(entry: AuditEntry) {
        const timestamp = yield* nowIso
        const traceId = yield* currentTraceId
        const { actor } = entry
        const body = entry.requestBodyUnreadable === true
          ? { value: null, sanitized: true }
          : storableBody(entry.requestBody ?? null, SECRET_FIELDS[entry.resourceType] ?? [])
        let sanitized = body.sanitized
        const text = (value: string | null) => {
          const stored = storableText(value)
          if (stored.sanitized) sanitized = true
          return stored.value
        }
        return {
          id: crypto.uuid(),
          timestamp,
          organisation_id: text(actor.organisationId),
          workspace_id: text(entry.workspaceId),
          user_id: text(actor.userId),
          user_type: userTypeOf(actor),
          api_key_id: text(actor.keyId),
          action: text(entry.action) ?? "",
          resource_type: text(entry.resourceType) ?? "",
          resource_id: text(entry.resourceId),
          method: text(entry.method) ?? "",
          // A query string can carry a credential as much as a body can.
          uri: text(redactSecretValues(entry.uri) ?? entry.uri) ?? "",
          request_id: text(entry.requestId) ?? "",
          request_body: body.value,
          response_status_code: entry.responseStatusCode,
          client_ip: text(entry.clientIp),
          workload_issuer: text(actor.workload?.issuer ?? null),
          workload_subject: text(actor.workload?.subject ?? null),
          user_email: text(actor.session?.email ?? null),
          session_id: text(actor.session?.id ?? null),
          identity_provider: text(actor.session?.identityProvider ?? null),
          identity_subject: text(actor.session?.subject ?? null),
          trace_id: traceId,
          sanitized,
          hash_algorithm: CURRENT_HASH_ALGORITHM
        }
      })

      const linked = (fields: Effect.Success<ReturnType<typeof fieldsOf>>, tail: ChainTail) => {
        const content = { ...fields, chain: tail.chain, seq: tail.seq, previous_hash: tail.previousHash }
        return new AuditRecord({ ...content, hash: chainHash(hashers, content) })
      }

      const record = Effect.fnUntraced(function*(entry: AuditEntry) {
        const fields = yield* fieldsOf(entry)
        // The store joins the caller's unit of work, or makes one for the append alone.
        return yield* measureAuditAppend(store.append((tail) => linked(fields, tail)))
      })

      // Before anything else: a process started with another master key than the store's would write records
      // that verify under neither key, and read no provider key; it stops here instead. A store made before
      // the check keeps the first key it is started with.
      const kept = yield* store.claimKeyCheck(signer.keyCheck)
      if (!crypto.digestsEqual(kept, signer.keyCheck)) {
        return yield* new MasterKeyMismatch({
          message: "GATEWAY_MASTER_KEY is not the key this store was made with (its check value differs): start " +
            "with the store's key; under another, provider keys cannot be decrypted and the audit log fails to verify."
        })
      }

      // The first start after the upgrade names the plain records of before the keyed
      // chain in a keyed record (LegacySeal.ts); later starts, and stores that never had them, find nothing to do.
      const sealFields = yield* fieldsOf({
        actor: { organisationId: null, keyId: null, userId: null },
        workspaceId: null,
        action: LEGACY_SEAL_ACTION,
        resourceType: LEGACY_SEAL_RESOURCE_TYPE,
        resourceId: null,
        method: "",
        uri: "",
        requestId: "",
        requestBody: null,
        responseStatusCode: 0,
        clientIp: null
      })
      yield* store.sealLegacyPrefix((plainRecords, tail) =>
        linked({ ...sealFields, request_body: legacySealBody(plainRecords) }, tail)
      )

      const list = Effect.fn("Audit.list")(function*(principal: Principal, filters: AuditFilters, page: PageRequest) {
        yield* ensureAllowed(principal, "audit_logs.list", Target.organisation(principal.organisationId), {
          type: "organisation",
          id: principal.organisationId
        })
        // Actions and resource types are stored lowercase (`create`, `api_key`): a filter matches them in any case.
        return yield* store.list(principal.organisationId, {
          ...filters,
          action: filters.action?.trim().toLowerCase(),
          resourceType: filters.resourceType?.trim().toLowerCase()
        }, page)
      })

      const listUnauthenticated = (page: PageRequest) => store.list(null, {}, page)

      const signatureOf = (head: Omit<AuditCheckpoint, "signature">) => signer.checkpointMac(checkpointText(head))

      const verify = (checkpoint?: AuditCheckpoint): Effect.Effect<ChainVerdict, StoreError> =>
        checkpoint !== undefined && !crypto.digestsEqual(signatureOf(checkpoint), checkpoint.signature)
          ? Effect.succeed({
            ok: false,
            count: 0,
            record: undefined,
            reason: "the checkpoint's signature is not valid: it was altered, or signed under another master key"
          })
          : walkChain(store, hashers, checkpoint).pipe(Effect.withSpan("Audit.verify"))

      const checkpoint = Effect.gen(function*() {
        const verdict = yield* walkChain(store, hashers, undefined)
        if (!verdict.ok) {
          return yield* new AuditChainBroken({
            message: `The audit log is broken at ${
              verdict.record === undefined ? "its end" : `record ${verdict.record.seq} of chain ${verdict.record.chain}`
            }: ${verdict.reason}. No checkpoint is signed for a broken log.`
          })
        }
        const head = { count: verdict.count, heads: verdict.heads, at: yield* nowIso }
        return { ...head, signature: signatureOf(head) }
      }).pipe(Effect.withSpan("Audit.checkpoint"))

      return Audit.of({ record, list, listUnauthenticated, verify, checkpoint })
    })
  )
}
