/**
 * Listing fine-tuning jobs through a provider, so clients need a gateway key instead of the provider key.
 */
import { Context, Effect, Layer } from "effect"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import type { Forbidden, NotFound } from "../shared/Errors.ts"
import { untrustedJson } from "../shared/UntrustedText.ts"
import { makeCustomHostCheck } from "./CustomHosts.ts"
import { makeProviderChoice, type ProviderChoiceError } from "./ProviderChoice.ts"
import {
  FineTuningUpstream,
  ProviderRegistry,
  untrustedFineTuningUpstream,
  type UpstreamAnswer,
  UpstreamInvalid,
  type UpstreamTimedOut,
  type UpstreamUnreachable
} from "./Providers.ts"
import type { ProviderSelection } from "./ProviderSelection.ts"

export interface JobsQuery {
  readonly limit: number
  readonly after: string | undefined
}

export type JobsAnswer =
  | {
    readonly _tag: "Listed"
    readonly body: {
      readonly object: "list"
      readonly data: ReadonlyArray<Readonly<Record<string, unknown>>>
      readonly has_more: boolean
    }
  }
  /** A non-2xx answer of the provider, passed through as it came. */
  | { readonly _tag: "PassThrough"; readonly answer: UpstreamAnswer }

const isNumber = (v: unknown) => typeof v === "number" && Number.isFinite(v)
const isString = (v: unknown) => typeof v === "string"
/** The text (keys and strings) of one listed job kept; the rest is cut with a marker. */
export const MAX_JOB_TEXT = 262_144

const optional = (record: Record<string, unknown>, key: string, check: (v: unknown) => boolean) =>
  record[key] === undefined || record[key] === null || check(record[key])

/** The specification's list wrapper and job record; fields it does not name are kept as they came. */
const checkJobList = (text: string): JobsAnswer | UpstreamInvalid => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return new UpstreamInvalid({ message: "The provider's answer is not JSON." })
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return new UpstreamInvalid({ message: "The provider's answer is not a list object." })
  }
  const list = body as Record<string, unknown>
  if (
    !Array.isArray(list.data) || typeof list.has_more !== "boolean" ||
    (list.object !== undefined && list.object !== "list")
  ) {
    return new UpstreamInvalid({
      message: "The provider's answer lacks data (array), has_more (boolean) or object 'list'."
    })
  }
  for (const [i, job] of list.data.entries()) {
    const j = job as Record<string, unknown>
    const ok = job !== null && typeof job === "object" && isString(j.id) &&
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
    if (!ok) {
      return new UpstreamInvalid({
        message: `Job ${i} in the provider's answer does not have the fine-tuning job shape.`
      })
    }
  }
  return {
    _tag: "Listed",
    body: {
      object: "list",
      // The provider's JSON is untrusted: nesting past the JSON depth rule once made the answer's encoding a 500.
      data: list.data.map((job) => untrustedJson(job, MAX_JOB_TEXT) as Record<string, unknown>),
      has_more: list.has_more
    }
  }
}

export class FineTuning extends Context.Service<
  FineTuning,
  {
    readonly listJobs: (
      principal: Principal,
      selection: ProviderSelection,
      query: JobsQuery
    ) => Effect.Effect<
      JobsAnswer,
      ProviderChoiceError | Forbidden | NotFound | UpstreamUnreachable | UpstreamTimedOut | UpstreamInvalid
    >
  }
>()("@gateway-control/FineTuning") {
  static readonly layer = Layer.effect(
    FineTuning,
    Effect.gen(function*() {
      const registry = yield* ProviderRegistry
      const upstream = untrustedFineTuningUpstream(yield* FineTuningUpstream)
      const chooseProvider = yield* makeProviderChoice
      const checkCustomHost = yield* makeCustomHostCheck

      const listJobs = Effect.fn("FineTuning.listJobs")(
        function*(principal: Principal, selection: ProviderSelection, query: JobsQuery) {
          yield* ensureAllowed(principal, "completions.write", Target.own(principal), {
            type: "workspace",
            id: principal.workspaceId ?? principal.organisationId
          })

          const choice = yield* chooseProvider(principal.workspaceId!, selection)
          // Provider base URLs come from the operator and connect as DNS says; custom hosts are checked and pinned.
          const destination = choice.customHost === undefined
            ? { baseUrl: registry.baseUrls.get(choice.provider)!, pinnedAddresses: undefined }
            : yield* checkCustomHost(choice.customHost.url, choice.customHost.param)
          const answer = yield* upstream.listJobs(
            { ...destination, apiKey: choice.apiKey, timeoutMs: choice.timeoutMs },
            query
          )
          if (answer.status < 200 || answer.status > 299) return { _tag: "PassThrough" as const, answer }
          const checked = checkJobList(answer.body)
          if (checked instanceof UpstreamInvalid) return yield* checked
          return checked
        }
      )

      return FineTuning.of({ listJobs })
    })
  )
}
