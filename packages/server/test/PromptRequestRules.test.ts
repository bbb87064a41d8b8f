/** Render against the model request rules: one accepting and one refusing case for each rule. */
import { beforeAll, describe, expect, it } from "vitest"
import { chat, renderCall, usePromptServer } from "./support/PromptServer.ts"

// Renders go through the typed client (a success is a 200 with the declared body; a `BadRequest` is a 400), but
// for the one that reads a header.
const { server, unique, api, refusal, createPrompt, render } = usePromptServer()

describe("the request-object rules, one accepting and one refusing case each", () => {
  let chatId: string
  let completionId: string
  beforeAll(async () => {
    chatId = (await createPrompt({ string: chat([{ role: "user", content: "{{q}}" }]), model: "gpt-4o" })).id
    completionId = (await createPrompt({ string: "Say {{q}}", model: "gpt-3.5-turbo-instruct" })).id
  })

  const chatCases: Array<[string, Record<string, unknown>, Record<string, unknown>, string]> = [
    ["temperature", { temperature: 2 }, { temperature: 2.1 }, "temperature"],
    ["top_p", { top_p: 0 }, { top_p: 1.5 }, "top_p"],
    ["frequency_penalty", { frequency_penalty: -2 }, { frequency_penalty: -2.5 }, "frequency_penalty"],
    ["presence_penalty", { presence_penalty: 2 }, { presence_penalty: 3 }, "presence_penalty"],
    ["n", { n: 128 }, { n: 129 }, "n"],
    ["stop as a string", { stop: "\n" }, { stop: 5 }, "stop"],
    ["stop as a list", { stop: ["a", "b", "c", "d"] }, { stop: ["a", "b", "c", "d", "e"] }, "stop"],
    ["logit_bias", { logit_bias: { "50256": -100 } }, { logit_bias: { "50256": 101 } }, "logit_bias.50256"],
    ["top_logprobs with logprobs", { logprobs: true, top_logprobs: 20 }, { top_logprobs: 5 }, "top_logprobs"],
    ["top_logprobs range", { logprobs: true, top_logprobs: 0 }, { logprobs: true, top_logprobs: 21 }, "top_logprobs"],
    ["stream_options", { stream: true, stream_options: { include_usage: true } }, {
      stream_options: { include_usage: true }
    }, "stream_options"],
    [
      "response_format",
      { response_format: { type: "json_schema", json_schema: { name: "answer_v1", schema: { type: "object" } } } },
      { response_format: { type: "json_schema", json_schema: { name: "bad name!" } } },
      "response_format.json_schema.name"
    ],
    ["tools", { tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }] }, {
      tools: [{ type: "function", function: { name: "x".repeat(65) } }]
    }, "tools[0].function.name"],
    ["tool type", { tools: [] }, { tools: [{ type: "retrieval", function: { name: "f" } }] }, "tools[0].type"],
    [
      "at most 128 tools",
      { tools: Array.from({ length: 128 }, (_, i) => ({ type: "function", function: { name: `f${i}` } })) },
      { tools: Array.from({ length: 129 }, (_, i) => ({ type: "function", function: { name: `f${i}` } })) },
      "tools"
    ],
    ["tool_choice string", { tool_choice: "required" }, { tool_choice: "always" }, "tool_choice"],
    ["tool_choice object", { tool_choice: { type: "function", function: { name: "f" } } }, {
      tool_choice: { type: "function", function: {} }
    }, "tool_choice.function.name"],
    ["thinking", { thinking: { type: "enabled", budget_tokens: 1 } }, { thinking: { type: "on" } }, "thinking.type"],
    ["thinking budget", { thinking: { type: "enabled", budget_tokens: 1 } }, {
      thinking: { type: "enabled", budget_tokens: 0 }
    }, "thinking.budget_tokens"],
    ["thinking budget", { thinking: { type: "enabled", budget_tokens: 1024 } }, {
      thinking: { type: "enabled", budget_tokens: 0 }
    }, "budget_tokens"],
    ["seed", { seed: 42 }, { seed: 1.5 }, "seed"],
    [
      "max_completion_tokens",
      { max_completion_tokens: 100 },
      { max_completion_tokens: "100" },
      "max_completion_tokens"
    ],
    ["parallel_tool_calls", { parallel_tool_calls: false }, { parallel_tool_calls: "no" }, "parallel_tool_calls"],
    ["user", { user: "end-user-1" }, { user: 7 }, "user"],
    ["model", { model: "any-string-at-all" }, { model: 4 }, "model"],
    ["functions (deprecated)", { functions: [{ name: "f" }] }, { functions: [] }, "functions"],
    ["function_call (deprecated)", { function_call: "auto" }, { function_call: "sometimes" }, "function_call"]
  ]

  it.each(chatCases)("chat %s", async (_, accepted, refused, param) => {
    await api(renderCall(chatId, { variables: { q: "hi" }, ...accepted }))
    const error = await refusal(renderCall(chatId, { variables: { q: "hi" }, ...refused }))
    expect(error).toMatchObject({ _tag: "BadRequest", code: "invalid_request" })
    expect(error.param).toContain(param)
  })

  it("max_tokens is accepted, flagged deprecated, and refused for reasoning models", async () => {
    const ok = await render(chatId, { variables: {}, max_tokens: 10 })
    expect(ok.status).toBe(200)
    expect(ok.headers.get("x-service-deprecated-fields")).toBe("max_tokens")
    for (const model of ["o1-mini", "o3", "o4-mini", "gpt-5-nano"]) {
      const error = await refusal(renderCall(chatId, { variables: {}, model, max_tokens: 10 }))
      expect(error).toMatchObject({ _tag: "BadRequest", param: "max_tokens" })
      expect(error.message).toContain("max_completion_tokens")
    }
  })

  const messageCases: Array<[string, Array<Record<string, unknown>>, Array<Record<string, unknown>>, string]> = [
    ["system content", [{ role: "system", content: "s" }], [{ role: "system" }], "messages[0].content"],
    ["developer role", [{ role: "developer", content: "d" }], [{ role: "robot", content: "r" }], "messages[0].role"],
    [
      "user parts",
      [{
        role: "user",
        content: [{ type: "text", text: "t" }, {
          type: "image_url",
          image_url: { url: "https://x/i.png", detail: "low" }
        }]
      }],
      [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x/i.png", detail: "max" } }] }],
      "messages[0].content[0].image_url.detail"
    ],
    [
      "user part list not empty",
      [{ role: "user", content: "u" }],
      [{ role: "user", content: [] }],
      "messages[0].content"
    ],
    [
      "assistant content or calls",
      [{
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }]
      }],
      [{ role: "assistant", content: null }],
      "messages[0].content"
    ],
    ["tool call function name", [{ role: "assistant", content: "a" }], [{
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "bad name", arguments: "{}" } }]
    }], "messages[0].tool_calls[0].function.name"],
    [
      "tool message",
      [{ role: "tool", content: "42", tool_call_id: "c1" }],
      [{ role: "tool", content: "42" }],
      "messages[0].tool_call_id"
    ],
    ["function message (deprecated)", [{ role: "function", content: null, name: "f" }], [{
      role: "function",
      content: "x"
    }], "messages[0].name"]
  ]

  it.each(messageCases)("message shape: %s", async (_, good, bad, param) => {
    // A saved chat template needs a message with content: the case's messages come with one.
    const okPrompt = await createPrompt({
      string: chat([...good, { role: "user", content: "go" }]),
      model: "gpt-4o",
      type: "chat"
    })
    await api(renderCall(okPrompt.id, { variables: {} }))
    // A template whose messages break a rule is refused when it is saved.
    const refused = await refusal((client) =>
      client.prompts.create({
        payload: {
          workspace_id: server().workspaceId,
          name: unique("bad-messages"),
          string: chat(bad),
          model: "gpt-4o",
          type: "chat"
        }
      })
    )
    expect(refused).toMatchObject({ _tag: "BadRequest", code: "invalid_request", param: "string" })
    expect(refused.message).toContain(param)
  })

  const completionCases: Array<[string, Record<string, unknown>, Record<string, unknown>, string]> = [
    ["logprobs", { logprobs: 5 }, { logprobs: 6 }, "logprobs"],
    ["best_of", { best_of: 3, n: 2 }, { best_of: 2, n: 2 }, "best_of"],
    ["best_of range", { best_of: 20 }, { best_of: 21 }, "best_of"],
    ["best_of without streaming", { best_of: 2, stream: false }, { best_of: 2, stream: true }, "best_of"],
    ["max_tokens", { max_tokens: 0 }, { max_tokens: -1 }, "max_tokens"],
    ["echo", { echo: true }, { echo: "yes" }, "echo"],
    ["suffix", { suffix: "end" }, { suffix: 1 }, "suffix"]
  ]

  it.each(completionCases)("completion %s", async (_, accepted, refused, param) => {
    await api(renderCall(completionId, { variables: { q: "hi" }, ...accepted }))
    const error = await refusal(renderCall(completionId, { variables: { q: "hi" }, ...refused }))
    expect(error).toMatchObject({ _tag: "BadRequest", param })
  })
})
