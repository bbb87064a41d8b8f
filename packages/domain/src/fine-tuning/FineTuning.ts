/**
 * The fine-tuning family through a provider (OpenAI's API: list, create, retrieve, cancel, events, checkpoints), so
 * clients need a gateway key instead of the provider key. Every operation chooses its provider and key the same way
 * (ProviderChoice.ts: a stored key goes only to its own host) and checks custom hosts the same way (CustomHosts.ts).
 * Creating and cancelling a job are administrative use cases: authorised by the policy and audited, the provider
 * called outside any unit of work and the record written after it (AuditedUseCase `runSteps`).
 */
import { Context, Effect, Layer, Schema, SchemaIssue } from "effect"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { JsonObject } from "../prompts/Prompt.ts"
import { type Forbidden, InvalidRequest, type NotFound } from "../shared/Errors.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { untrustedJson, untrustedText } from "../shared/UntrustedText.ts"
import { makeCustomHostCheck } from "./CustomHosts.ts"
import { makeProviderChoice, type ProviderChoiceError } from "./ProviderChoice.ts"
import {
  FineTuningUpstream,
  ProviderRegistry,
  untrustedFineTuningUpstream,
  UpstreamInvalid,
  UpstreamRefused,
  type UpstreamRequest,
  type UpstreamTimedOut,
  type UpstreamUnreachable
} from "./Providers.ts"
import type { ProviderSelection } from "./ProviderSelection.ts"

/** A page of a provider's list: how many, after which id. */
export interface ListQuery {
  readonly limit: number
  readonly after: string | undefined
}

/** An object of the provider's answer (a job, an event, a checkpoint), its fields kept as they came, repaired. */
export type ProviderObject = Readonly<Record<string, unknown>>

/** A list as OpenAI answers it; `first_id` and `last_id` when the provider gave them (checkpoints). */
export interface FineTuningList {
  readonly object: "list"
  readonly data: ReadonlyArray<ProviderObject>
  readonly has_more: boolean
  readonly first_id?: string | null
  readonly last_id?: string | null
}

/** What can go wrong with a call through a provider; `UpstreamRefused` carries a provider's non-2xx answer. */
export type FineTuningError =
  | ProviderChoiceError
  | Forbidden
  | NotFound
  | UpstreamUnreachable
  | UpstreamTimedOut
  | UpstreamInvalid
  | UpstreamRefused

const isNumber = (v: unknown) => typeof v === "number" && Number.isFinite(v)
const isString = (v: unknown) => typeof v === "string"
const isObject = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v)
/** The text (keys and strings) of one answered object kept; the rest is cut with a marker. */
export const MAX_JOB_TEXT = 262_144

/** Characters of a job id taken, and of an id the provider answers; the providers' own ids are far shorter. */
const MAX_JOB_ID = 256

const optional = (record: Record<string, unknown>, key: string, check: (v: unknown) => boolean) =>
  record[key] === undefined || record[key] === null || check(record[key])

/** The shape of one object of the specification, by what it is; fields it does not name are kept as they came. */
interface ObjectKind {
  readonly name: string
  readonly check: (o: Record<string, unknown>) => boolean
}

const JOB: ObjectKind = {
  name: "fine-tuning job",
  check: (j) =>
    isString(j.id) &&
    optional(j, "object", (v) => v === "fine_tuning.job") &&
    ["created_at", "finished_at", "estimated_finish", "trained_tokens", "seed"].every((k) =>
      optional(j, k, isNumber)
    ) &&
    ["fine_tuned_model", "model", "organization_id", "training_file", "validation_file", "status"].every((k) =>
      optional(j, k, isString)
    ) &&
    optional(j, "result_files", (v) => Array.isArray(v) && v.every(isString)) &&
    optional(j, "hyperparameters", (v) => typeof v === "object") &&
    optional(j, "integrations", Array.isArray) &&
    optional(j, "error", (v) => typeof v === "object")
}

const EVENT: ObjectKind = {
  name: "fine-tuning event",
  check: (e) =>
    isString(e.id) &&
    optional(e, "object", (v) => v === "fine_tuning.job.event") &&
    optional(e, "created_at", isNumber) &&
    ["level", "message", "type"].every((k) => optional(e, k, isString))
}

const CHECKPOINT: ObjectKind = {
  name: "fine-tuning checkpoint",
  check: (c) =>
    isString(c.id) &&
    optional(c, "object", (v) => v === "fine_tuning.job.checkpoint") &&
    ["created_at", "step_number"].every((k) => optional(c, k, isNumber)) &&
    ["fine_tuned_model_checkpoint", "fine_tuning_job_id"].every((k) => optional(c, k, isString)) &&
    optional(c, "metrics", isObject)
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return new UpstreamInvalid({ message: "The provider's answer is not JSON." })
  }
}

/** The provider's JSON is untrusted: nesting past the JSON depth rule once made the answer's encoding a 500. */
const repaired = (value: unknown) => untrustedJson(value, MAX_JOB_TEXT) as ProviderObject

/** One object of `kind`, or a 502's reason. Pure. */
export const checkObject = (text: string, kind: ObjectKind): ProviderObject | UpstreamInvalid => {
  const body = parse(text)
  if (body instanceof UpstreamInvalid) return body
  if (!isObject(body) || !kind.check(body as Record<string, unknown>)) {
    return new UpstreamInvalid({ message: `The provider's answer does not have the ${kind.name} shape.` })
  }
  return repaired(body)
}

/**
 * The specification's list wrapper and its objects of `kind`; `has_more` required where the specification
 * requires it (jobs), else false when absent. Pure.
 */
export const checkList = (
  text: string,
  kind: ObjectKind,
  hasMoreRequired: boolean
): FineTuningList | UpstreamInvalid => {
  const body = parse(text)
  if (body instanceof UpstreamInvalid) return body
  if (!isObject(body)) return new UpstreamInvalid({ message: "The provider's answer is not a list object." })
  const list = body as Record<string, unknown>
  const hasMoreOk = typeof list.has_more === "boolean" || (!hasMoreRequired && list.has_more === undefined)
  if (!Array.isArray(list.data) || !hasMoreOk || (list.object !== undefined && list.object !== "list")) {
    return new UpstreamInvalid({
      message: `The provider's answer lacks data (array), has_more (boolean) or object 'list'.`
    })
  }
  for (const [i, item] of list.data.entries()) {
    if (!isObject(item) || !kind.check(item as Record<string, unknown>)) {
      return new UpstreamInvalid({
        message: `Item ${i} in the provider's answer does not have the ${kind.name} shape.`
      })
    }
  }
  const ids = ["first_id", "last_id"].filter((k) => list[k] !== undefined)
  if (ids.some((k) => list[k] !== null && !isString(list[k]))) {
    return new UpstreamInvalid({ message: "The provider's answer has a first_id or last_id that is not a string." })
  }
  return {
    object: "list",
    data: list.data.map(repaired),
    has_more: list.has_more === true,
    ...Object.fromEntries(ids.map((k) => [k, list[k] === null ? null : untrustedText(MAX_JOB_ID)(list[k])]))
  }
}

/**
 * The body of `POST /fine_tuning/jobs`: OpenAI's `CreateFineTuningJobRequest`, with the provider options of
 * Portkey's `BedrockFinetuneJob` (`job_name`, `role_arn`, `output_file`, `provider_options`). Other fields are
 * refused by name, so that a misspelt hyperparameter is not silently dropped by the provider.
 */
const Auto = Schema.Literal("auto")
export const CreateFineTuningJob = Schema.Struct({
  model: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(256)),
  training_file: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1024)),
  validation_file: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxLength(1024)))),
  suffix: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64)))),
  hyperparameters: Schema.optionalKey(Schema.Struct({
    batch_size: Schema.optionalKey(
      Schema.Union([Auto, Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 256 }))])
    ),
    learning_rate_multiplier: Schema.optionalKey(
      Schema.Union([Auto, Schema.Finite.check(Schema.isGreaterThan(0))])
    ),
    n_epochs: Schema.optionalKey(Schema.Union([Auto, Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 50 }))]))
  })),
  method: Schema.optionalKey(Schema.Struct({
    type: Schema.Literals(["supervised", "dpo", "reinforcement"]),
    supervised: Schema.optionalKey(JsonObject),
    dpo: Schema.optionalKey(JsonObject),
    reinforcement: Schema.optionalKey(JsonObject)
  })),
  integrations: Schema.optionalKey(Schema.NullOr(Schema.Array(JsonObject))),
  seed: Schema.optionalKey(Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2_147_483_647 })))),
  metadata: Schema.optionalKey(Schema.NullOr(Schema.Record(Schema.String, Schema.String))),
  job_name: Schema.optionalKey(Schema.String),
  role_arn: Schema.optionalKey(Schema.String),
  output_file: Schema.optionalKey(Schema.String),
  provider_options: Schema.optionalKey(JsonObject)
})
export type CreateFineTuningJob = typeof CreateFineTuningJob.Type

const decodeCreate = Schema.decodeUnknownResult(CreateFineTuningJob, { onExcessProperty: "error" })
const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** The creation body checked, or a 400 naming the first offending field (`hyperparameters.n_epochs`). Pure. */
export const checkCreateJob = (body: unknown): CreateFineTuningJob | InvalidRequest => {
  if (!isObject(body)) return InvalidRequest.of("The body must be a JSON object.")
  if ((body as Record<string, unknown>).portkey_options !== undefined) {
    return InvalidRequest.of(
      "portkey_options is not taken: choose the provider with the x-service-… headers (or x-portkey-…).",
      "portkey_options"
    )
  }
  const decoded = decodeCreate(body)
  if (decoded._tag === "Success") return decoded.success
  const first = formatter(decoded.failure.issue).issues[0]
  const param = (first?.path ?? []).map((segment) => {
    const key = typeof segment === "object" && segment !== null && "key" in segment ? segment.key : segment
    return String(key)
  }).join(".")
  return InvalidRequest.of(`${param === "" ? "body" : param}: ${first?.message ?? "invalid"}`, param || null)
}

/** `/fine_tuning/jobs/{id}` with the id encoded as one path segment, or a 400 for one no provider gives. Pure. */
export const jobPath = (jobId: string): string | InvalidRequest =>
  jobId.length === 0 || jobId.length > MAX_JOB_ID || /^\.+$/.test(jobId)
    ? InvalidRequest.of(`A fine-tuning job id has 1 to ${MAX_JOB_ID} characters, not only dots.`, "fine_tuning_job_id")
    : `/fine_tuning/jobs/${encodeURIComponent(jobId)}`

const pageOf = (query: ListQuery): ReadonlyArray<readonly [string, string]> => [
  ["limit", String(query.limit)],
  ...(query.after === undefined ? [] : [["after", query.after] as const])
]

export class FineTuning extends Context.Service<
  FineTuning,
  {
    readonly listJobs: (
      principal: Principal,
      selection: ProviderSelection,
      query: ListQuery
    ) => Effect.Effect<FineTuningList, FineTuningError>
    /** Audited (`fineTuning.createJob`). */
    readonly createJob: (
      principal: Principal,
      selection: ProviderSelection,
      body: unknown
    ) => Effect.Effect<ProviderObject, FineTuningError | InvalidRequest | StoreError>
    readonly retrieveJob: (
      principal: Principal,
      selection: ProviderSelection,
      jobId: string
    ) => Effect.Effect<ProviderObject, FineTuningError | InvalidRequest>
    /** Audited (`fineTuning.cancelJob`). */
    readonly cancelJob: (
      principal: Principal,
      selection: ProviderSelection,
      jobId: string
    ) => Effect.Effect<ProviderObject, FineTuningError | InvalidRequest | StoreError>
    readonly listEvents: (
      principal: Principal,
      selection: ProviderSelection,
      jobId: string,
      query: ListQuery
    ) => Effect.Effect<FineTuningList, FineTuningError | InvalidRequest>
    readonly listCheckpoints: (
      principal: Principal,
      selection: ProviderSelection,
      jobId: string,
      query: ListQuery
    ) => Effect.Effect<FineTuningList, FineTuningError | InvalidRequest>
  }
>()("@gateway-control/FineTuning") {
  static readonly layer = Layer.effect(
    FineTuning,
    Effect.gen(function*() {
      const registry = yield* ProviderRegistry
      const upstream = untrustedFineTuningUpstream(yield* FineTuningUpstream)
      const chooseProvider = yield* makeProviderChoice
      const checkCustomHost = yield* makeCustomHostCheck
      const useCases = yield* AuditedUseCase

      /**
       * The call `request` through the provider the selection chooses: authorised, the key and host chosen by the
       * rule of stored keys, a custom host checked and pinned. A non-2xx answer fails with `UpstreamRefused`.
       */
      const call = Effect.fnUntraced(
        function*(principal: Principal, selection: ProviderSelection, request: UpstreamRequest) {
          yield* ensureAllowed(principal, "completions.write", Target.own(principal), {
            type: "workspace",
            id: principal.workspaceId ?? principal.organisationId
          })
          const choice = yield* chooseProvider(principal.workspaceId!, selection)
          // Provider base URLs come from the operator and connect as DNS says; custom hosts are checked and pinned.
          const destination = choice.customHost === undefined
            ? { baseUrl: registry.baseUrls.get(choice.provider)!, pinnedAddresses: undefined }
            : yield* checkCustomHost(choice.customHost.url, choice.customHost.param)
          const answer = yield* upstream.send(
            { ...destination, apiKey: choice.apiKey, timeoutMs: choice.timeoutMs },
            request
          )
          if (answer.status < 200 || answer.status > 299) {
            return yield* new UpstreamRefused({
              status: answer.status,
              body: answer.body,
              ...(answer.contentType === undefined ? {} : { contentType: answer.contentType })
            })
          }
          return answer.body
        }
      )

      const checked = <A>(result: A | UpstreamInvalid | InvalidRequest) =>
        result instanceof UpstreamInvalid || result instanceof InvalidRequest
          ? Effect.fail(result)
          : Effect.succeed(result)

      const get = (path: string, query: ReadonlyArray<readonly [string, string]> = []): UpstreamRequest => ({
        method: "GET",
        path,
        query,
        body: undefined
      })

      const listJobs = Effect.fn("FineTuning.listJobs")(
        function*(principal: Principal, selection: ProviderSelection, query: ListQuery) {
          const text = yield* call(principal, selection, get("/fine_tuning/jobs", pageOf(query)))
          return yield* checked(checkList(text, JOB, true))
        }
      )

      const retrieveJob = Effect.fn("FineTuning.retrieveJob")(
        function*(principal: Principal, selection: ProviderSelection, jobId: string) {
          const path = yield* checked(jobPath(jobId))
          return yield* checked(checkObject(yield* call(principal, selection, get(path)), JOB))
        }
      )

      const listOf = (kind: ObjectKind, suffix: string) =>
        Effect.fnUntraced(
          function*(principal: Principal, selection: ProviderSelection, jobId: string, query: ListQuery) {
            const path = yield* checked(jobPath(jobId))
            const text = yield* call(principal, selection, get(`${path}/${suffix}`, pageOf(query)))
            return yield* checked(checkList(text, kind, false))
          }
        )
      const listEvents = listOf(EVENT, "events")
      const listCheckpoints = listOf(CHECKPOINT, "checkpoints")

      const createJob = (principal: Principal, selection: ProviderSelection, body: unknown) =>
        useCases.runSteps<ProviderObject, ProviderObject, FineTuningError | InvalidRequest, never, never, never>(
          {
            useCase: "fineTuning.createJob",
            actor: principal,
            resourceId: (job: ProviderObject) => String(job.id),
            body
          },
          Effect.gen(function*() {
            const request = yield* checked(checkCreateJob(body))
            const text = yield* call(principal, selection, {
              method: "POST",
              path: "/fine_tuning/jobs",
              query: [],
              body: request
            })
            return yield* checked(checkObject(text, JOB))
          }).pipe(Effect.withSpan("FineTuning.createJob")),
          Effect.succeed
        )

      const cancelJob = (principal: Principal, selection: ProviderSelection, jobId: string) =>
        useCases.runSteps<ProviderObject, ProviderObject, FineTuningError | InvalidRequest, never, never, never>(
          {
            useCase: "fineTuning.cancelJob",
            actor: principal,
            resourceId: (job: ProviderObject) => String(job.id),
            requestedId: jobId,
            body: null
          },
          Effect.gen(function*() {
            const path = yield* checked(jobPath(jobId))
            const text = yield* call(principal, selection, {
              method: "POST",
              path: `${path}/cancel`,
              query: [],
              body: undefined
            })
            return yield* checked(checkObject(text, JOB))
          }).pipe(Effect.withSpan("FineTuning.cancelJob")),
          Effect.succeed
        )

      return FineTuning.of({ listJobs, createJob, retrieveJob, cancelJob, listEvents, listCheckpoints })
    })
  )
}
