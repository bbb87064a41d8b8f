/**
 * Prompt completions (Portkey's prompt completions): a saved prompt rendered as `render` does,
 * and the rendered request sent to the model through the provider the call chooses, under the stored-secret rule
 * of every provider call (ProviderChoice.ts: a stored provider key only goes to the host stored with it). The
 * provider's answer passes through as it comes, a stream of server-sent events included, so a console can show it
 * while it arrives; its connection lives in the caller's scope, and closing that scope (a client that stops)
 * cancels the upstream request.
 */
import { Context, Effect, Layer, type Redacted, type Scope, type Stream } from "effect"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { makeCustomHostCheck } from "../fine-tuning/CustomHosts.ts"
import { makeProviderChoice, type ProviderChoiceError } from "../fine-tuning/ProviderChoice.ts"
import {
  MAX_PROVIDER_ANSWER,
  ProviderRegistry,
  UpstreamInvalid,
  type UpstreamTimedOut,
  type UpstreamUnreachable
} from "../fine-tuning/Providers.ts"
import type { ProviderSelection } from "../fine-tuning/ProviderSelection.ts"
import { modelProviderOf } from "../providers/Provider.ts"
import { InvalidRequest } from "../shared/Errors.ts"
import { untrustedText } from "../shared/UntrustedText.ts"
import type { PromptDraft } from "./PromptInputs.ts"
import { Prompts } from "./Prompts.ts"
import type { Failure } from "./TemplateResources.ts"

/** The provider endpoint a rendered body goes to: chat completions for a chat template, completions otherwise. */
export type CompletionsEndpoint = "chat/completions" | "completions"

/** A provider call's destination and credentials, as `UpstreamTarget` (Providers.ts). */
export interface CompletionsTarget {
  readonly baseUrl: string
  readonly pinnedAddresses: ReadonlyArray<string> | undefined
  readonly apiKey: Redacted.Redacted<string>
  readonly timeoutMs: number
}

/** The provider's answer as it arrives: its status and content type, then its body as a stream. */
export interface CompletionsUpstreamAnswer {
  readonly status: number
  readonly contentType: string | undefined
  readonly body: Stream.Stream<Uint8Array, UpstreamUnreachable>
  /** The whole body as text (for refusals, which are read and passed on bounded). */
  readonly text: Effect.Effect<string, UpstreamUnreachable>
}

/**
 * The rendered request sent to a provider's endpoint, with the provider key as its credential. The
 * connection belongs to the scope: closing it aborts the request. The timeout bounds the wait for the answer's
 * head, not a stream that is still arriving.
 */
export class CompletionsUpstream extends Context.Service<
  CompletionsUpstream,
  {
    readonly send: (
      target: CompletionsTarget,
      endpoint: CompletionsEndpoint,
      body: Readonly<Record<string, unknown>>
    ) => Effect.Effect<CompletionsUpstreamAnswer, UpstreamUnreachable | UpstreamTimedOut, Scope.Scope>
  }
>()("@gateway-control/CompletionsUpstream") {}

/** A completion as the caller gets it. */
export type CompletionAnswer =
  /** The provider's success, passed through: a JSON completion, or server-sent events when `stream` was asked. */
  | {
    readonly _tag: "Streamed"
    readonly status: number
    readonly contentType: string
    readonly body: Stream.Stream<Uint8Array, UpstreamUnreachable>
    readonly missingVariables: ReadonlyArray<string>
  }
  /** The provider's refusal (401, 429, …), its body made storable text, passed through as it came. */
  | { readonly _tag: "Refused"; readonly status: number; readonly contentType: string; readonly body: string }

export type CompletionError = Failure | ProviderChoiceError | UpstreamUnreachable | UpstreamTimedOut | UpstreamInvalid

/** The content types a provider's success may have: a JSON completion or an event stream. */
const PASSED_THROUGH = /^(application\/json|text\/event-stream)\s*(;|$)/i

export class PromptCompletions extends Context.Service<
  PromptCompletions,
  {
    /**
     * Renders `promptRef` (as `Prompts.render`: id or slug, `@N`, `@latest`, `@label`) with `body` and sends the
     * rendered request to the provider `selection` chooses. Needs `prompts.render` on the prompt and
     * `completions.write` in the caller's workspace.
     */
    readonly complete: (
      principal: Principal,
      promptRef: string,
      body: Record<string, unknown>,
      selection: ProviderSelection,
      /** An unsaved edit of the version to run instead of the version itself (`Prompts.renderDraft`). */
      draft?: PromptDraft
    ) => Effect.Effect<CompletionAnswer, CompletionError, Scope.Scope>
  }
>()("@gateway-control/PromptCompletions") {
  static readonly layer = Layer.effect(
    PromptCompletions,
    Effect.gen(function*() {
      const prompts = yield* Prompts
      const registry = yield* ProviderRegistry
      const upstream = yield* CompletionsUpstream
      const chooseProvider = yield* makeProviderChoice
      const checkCustomHost = yield* makeCustomHostCheck

      const complete = Effect.fn("PromptCompletions.complete")(
        function*(
          principal: Principal,
          promptRef: string,
          body: Record<string, unknown>,
          selection: ProviderSelection,
          draft?: PromptDraft
        ) {
          yield* ensureAllowed(principal, "completions.write", Target.own(principal), {
            type: "workspace",
            id: principal.workspaceId ?? principal.organisationId
          })
          const rendered = draft === undefined
            ? yield* prompts.render(principal, promptRef, body)
            : yield* prompts.renderDraft(principal, promptRef, draft, body)
          // `"model": "@slug/name"` chooses the provider as `x-portkey-provider: @slug` does; the provider is sent
          // the name alone. A call choosing another provider as well is refused, naming `model`.
          const named = modelProviderOf(rendered.data.model)
          let chosen = selection
          let data = rendered.data
          if (named !== undefined) {
            const other = selection.config !== undefined || selection.provider !== undefined ||
              (selection.virtual_key !== undefined && selection.virtual_key !== named.slug)
            if (other) {
              return yield* InvalidRequest.of(
                `model '${String(rendered.data.model)}' chooses provider @${named.slug}, and the call chooses ` +
                  "another provider as well: choose one.",
                "model"
              )
            }
            chosen = { ...selection, virtual_key: named.slug }
            data = { ...rendered.data, model: named.model }
          }
          const fromModel = named !== undefined && selection.virtual_key === undefined
          const choice = yield* chooseProvider(principal.workspaceId!, chosen).pipe(
            Effect.mapError((error) =>
              fromModel && error._tag === "InvalidRequest" && error.param === "virtual_key"
                ? InvalidRequest.of(error.message, "model")
                : error
            )
          )
          // Provider base URLs come from the operator and connect as DNS says; custom hosts are checked and pinned.
          const destination = choice.customHost === undefined
            ? { baseUrl: registry.baseUrls.get(choice.provider)!, pinnedAddresses: undefined }
            : yield* checkCustomHost(choice.customHost.url, choice.customHost.param)
          const endpoint: CompletionsEndpoint = Array.isArray(rendered.data.messages)
            ? "chat/completions"
            : "completions"
          const answer = yield* upstream.send(
            { ...destination, apiKey: choice.apiKey, timeoutMs: choice.timeoutMs },
            endpoint,
            data
          )
          const contentType = answer.contentType === undefined ? undefined : untrustedText(256)(answer.contentType)
          if (answer.status < 200 || answer.status > 299) {
            const text = yield* answer.text
            if (text.length > MAX_PROVIDER_ANSWER) {
              return yield* new UpstreamInvalid({
                message: `The provider's answer is longer than ${MAX_PROVIDER_ANSWER} characters.`
              })
            }
            return {
              _tag: "Refused",
              status: answer.status,
              contentType: contentType ?? "application/json",
              body: untrustedText(MAX_PROVIDER_ANSWER)(text)
            } satisfies CompletionAnswer
          }
          if (contentType === undefined || !PASSED_THROUGH.test(contentType)) {
            return yield* new UpstreamInvalid({
              message: `The provider answered ${
                contentType === undefined ? "without a content type" : `'${contentType}'`
              }; a completion is application/json or text/event-stream.`
            })
          }
          return {
            _tag: "Streamed",
            status: answer.status,
            contentType,
            body: answer.body,
            missingVariables: rendered.missingVariables
          } satisfies CompletionAnswer
        }
      )

      return PromptCompletions.of({ complete })
    })
  )
}
