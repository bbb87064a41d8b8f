/**
 * Running a prompt against the model (`POST /v1/prompts/{ref}/completions`): the answer is read as it arrives,
 * server-sent events chunk by chunk, and aborting the signal closes the connection, which cancels the provider's
 * request at the gateway. What the run reports: the text so far, the token counts of the usage chunk, and the
 * latency to the first token and to the end, measured here.
 */
import { callingAs, refusalOf, segment } from "./client.ts"
import type { Body } from "./contract.ts"

export interface RunProgress {
  /** The answer's text so far (the first choice's). */
  readonly text: string
  /** Milliseconds from the request to the first text, once it came. */
  readonly firstTokenMs: number | null
  readonly usage: {
    readonly prompt_tokens?: number
    readonly completion_tokens?: number
    readonly total_tokens?: number
  } | null
  /** Variables the template names that the run did not give (the gateway's header). */
  readonly missingVariables: ReadonlyArray<string>
}

export interface RunResult extends RunProgress {
  readonly totalMs: number
  /** The run ended because the signal was aborted (Stop). */
  readonly stopped: boolean
}

interface Chunk {
  readonly choices?: ReadonlyArray<{
    readonly delta?: { readonly content?: unknown }
    readonly message?: { readonly content?: unknown }
    readonly text?: unknown
  }>
  readonly usage?: RunProgress["usage"]
}

const textOf = (chunk: Chunk) => {
  const choice = chunk.choices?.[0]
  const text = choice?.delta?.content ?? choice?.message?.content ?? choice?.text
  return typeof text === "string" ? text : ""
}

const missingOf = (headers: Headers) =>
  (headers.get("x-service-missing-variables") ?? "").split(",").filter((s) => s !== "").map((name) => {
    try {
      return decodeURIComponent(name)
    } catch {
      return name
    }
  })

/**
 * Runs `ref` (id or slug, `@N` for a version) with `body` through `provider` (`@slug`: a provider or virtual key
 * of the workspace), calling `onProgress` as the answer arrives. A refusal (the gateway's or the provider's) is
 * thrown as an `ApiError`.
 */
export const runCompletion = async (
  ref: string,
  body: Body<"promptCompletions", "complete">,
  provider: string,
  signal: AbortSignal,
  onProgress: (progress: RunProgress) => void,
  /** An unsaved edit of the version to run instead (`POST …/completions/draft`). */
  draft?: Body<"promptCompletions", "completeDraft">["draft"]
): Promise<RunResult> => {
  const started = performance.now()
  const { credentials, headers } = callingAs("POST")
  const path = `/v1/prompts/${segment(ref)}/completions${draft === undefined ? "" : "/draft"}`
  const response = await fetch(path, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", "x-service-provider": provider },
    body: JSON.stringify(draft === undefined ? body : { draft, request: body }),
    credentials,
    cache: "no-store",
    signal
  })
  if (!response.ok) throw refusalOf(response.status, await response.text())
  let progress: RunProgress = {
    text: "",
    firstTokenMs: null,
    usage: null,
    missingVariables: missingOf(response.headers)
  }
  const take = (chunk: Chunk) => {
    const text = textOf(chunk)
    progress = {
      ...progress,
      text: progress.text + text,
      firstTokenMs: progress.firstTokenMs ?? (text === "" ? null : Math.round(performance.now() - started)),
      usage: chunk.usage ?? progress.usage
    }
    onProgress(progress)
  }
  const finish = (stopped: boolean): RunResult => ({
    ...progress,
    totalMs: Math.round(performance.now() - started),
    stopped
  })
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    take(JSON.parse(await response.text()) as Chunk)
    return finish(false)
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += value
      const events = buffer.split(/\r?\n\r?\n/)
      buffer = events.pop()!
      for (const event of events) {
        const data = event.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) =>
          line.slice(5).trimStart()
        ).join("\n")
        if (data === "" || data === "[DONE]") continue
        try {
          take(JSON.parse(data) as Chunk)
        } catch {
          // Not JSON: a provider's comment or keep-alive; nothing to show.
        }
      }
    }
  } catch (error) {
    if (signal.aborted) return finish(true)
    throw error
  }
  return finish(false)
}
