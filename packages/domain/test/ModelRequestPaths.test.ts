/**
 * Every nested rule of the request objects names its field by the full path from the body's root
 * (`thinking.budget_tokens`, never `budget_tokens`), for a wrong value and for a null where null is refused.
 */
import { describe, expect, it } from "vitest"
import { checkRequest, type RequestKind } from "../src/prompts/ModelRequest.ts"

const user = { role: "user", content: "hi" }
const chat = (fields: Record<string, unknown>) => ({ model: "gpt-4o", messages: [user], ...fields })
const message = (m: Record<string, unknown>) => chat({ messages: [user, m] })
const tool = (fn: Record<string, unknown>) => chat({ tools: [{ type: "function", function: { name: "f", ...fn } }] })
const jsonSchema = (schema: Record<string, unknown>) =>
  chat({ response_format: { type: "json_schema", json_schema: { name: "s", ...schema } } })
const call = (fields: Record<string, unknown>) =>
  message({
    role: "assistant",
    tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" }, ...fields }]
  })
const image = (imageUrl: unknown) => message({ role: "user", content: [{ type: "image_url", image_url: imageUrl }] })

const CASES: ReadonlyArray<readonly [RequestKind, Record<string, unknown>, string]> = [
  ["chat", chat({ thinking: { type: "enabled", budget_tokens: 0 } }), "thinking.budget_tokens"],
  ["chat", chat({ thinking: { type: "enabled", budget_tokens: null } }), "thinking.budget_tokens"],
  ["chat", chat({ thinking: { budget_tokens: 5 } }), "thinking.type"],
  ["chat", chat({ thinking: { type: "sometimes" } }), "thinking.type"],
  ["chat", chat({ stream: true, stream_options: { include_usage: "yes" } }), "stream_options.include_usage"],
  ["chat", chat({ stream: true, stream_options: { include_usage: null } }), "stream_options.include_usage"],
  ["chat", chat({ logit_bias: { abc: 1 } }), "logit_bias.abc"],
  ["chat", chat({ logit_bias: { "42": 101 } }), "logit_bias.42"],
  ["chat", chat({ stop: ["a", 7] }), "stop[1]"],
  ["chat", chat({ response_format: { type: "xml" } }), "response_format.type"],
  ["chat", chat({ response_format: { type: "json_schema", json_schema: 3 } }), "response_format.json_schema"],
  ["chat", chat({ response_format: { type: "json_schema", json_schema: {} } }), "response_format.json_schema.name"],
  ["chat", jsonSchema({ description: 7 }), "response_format.json_schema.description"],
  ["chat", jsonSchema({ description: null }), "response_format.json_schema.description"],
  ["chat", jsonSchema({ schema: "x" }), "response_format.json_schema.schema"],
  ["chat", jsonSchema({ schema: null }), "response_format.json_schema.schema"],
  ["chat", jsonSchema({ strict: "x" }), "response_format.json_schema.strict"],
  ["chat", chat({ tools: [{ function: { name: "f" } }] }), "tools[0].type"],
  ["chat", chat({ tools: [{ type: "function" }] }), "tools[0].function"],
  ["chat", tool({ name: "has space" }), "tools[0].function.name"],
  ["chat", tool({ description: 7 }), "tools[0].function.description"],
  ["chat", tool({ description: null }), "tools[0].function.description"],
  ["chat", tool({ parameters: "x" }), "tools[0].function.parameters"],
  ["chat", tool({ parameters: null }), "tools[0].function.parameters"],
  ["chat", tool({ strict: "x" }), "tools[0].function.strict"],
  ["chat", chat({ functions: [{ name: "f", description: null }] }), "functions[0].description"],
  ["chat", chat({ functions: [{}] }), "functions[0].name"],
  ["chat", chat({ tool_choice: { type: "other" } }), "tool_choice.type"],
  ["chat", chat({ tool_choice: { type: "function" } }), "tool_choice.function"],
  ["chat", chat({ tool_choice: { type: "function", function: { name: "" } } }), "tool_choice.function.name"],
  ["chat", chat({ function_call: { name: 3 } }), "function_call.name"],
  ["chat", message({ content: "x" }), "messages[1].role"],
  ["chat", message({ role: "system", content: 3 }), "messages[1].content"],
  ["chat", message({ role: "system", content: "x", name: null }), "messages[1].name"],
  ["chat", message({ role: "system", content: "x", name: 3 }), "messages[1].name"],
  ["chat", message({ role: "user", content: [{ type: "audio" }] }), "messages[1].content[0].type"],
  ["chat", message({ role: "user", content: [{ type: "text", text: 1 }] }), "messages[1].content[0].text"],
  ["chat", image(7), "messages[1].content[0].image_url"],
  ["chat", image({}), "messages[1].content[0].image_url.url"],
  ["chat", image({ url: "u", detail: "max" }), "messages[1].content[0].image_url.detail"],
  ["chat", image({ url: "u", detail: null }), "messages[1].content[0].image_url.detail"],
  ["chat", message({ role: "assistant", content: 3 }), "messages[1].content"],
  ["chat", message({ role: "assistant" }), "messages[1].content"],
  ["chat", message({ role: "assistant", content: "x", tool_calls: null }), "messages[1].tool_calls"],
  ["chat", message({ role: "assistant", tool_calls: "x" }), "messages[1].tool_calls"],
  ["chat", call({ id: 1 }), "messages[1].tool_calls[0].id"],
  ["chat", call({ type: "other" }), "messages[1].tool_calls[0].type"],
  ["chat", call({ function: 1 }), "messages[1].tool_calls[0].function"],
  ["chat", call({ function: { arguments: "{}" } }), "messages[1].tool_calls[0].function.name"],
  ["chat", call({ function: { name: "f" } }), "messages[1].tool_calls[0].function.arguments"],
  ["chat", message({ role: "assistant", function_call: 3 }), "messages[1].function_call"],
  ["chat", message({ role: "assistant", function_call: { arguments: "{}" } }), "messages[1].function_call.name"],
  ["chat", message({ role: "assistant", function_call: { name: "f" } }), "messages[1].function_call.arguments"],
  ["chat", message({ role: "tool", content: "x" }), "messages[1].tool_call_id"],
  ["chat", message({ role: "function", content: null }), "messages[1].name"],
  ["completion", { model: "m", prompt: ["a", 1] }, "prompt[1]"],
  ["completion", { model: "m", prompt: [[1], [2, "x"]] }, "prompt[1][1]"],
  [
    "completion",
    { model: "m", prompt: "p", stream: true, stream_options: { include_usage: 1 } },
    "stream_options.include_usage"
  ]
]

describe("nested request fields", () => {
  it.each(CASES)("%s: %j names %s", (kind, body, param) => {
    const { violation } = checkRequest(kind, body)
    expect(violation?.param).toBe(param)
    expect(violation?.message.startsWith(`${param}: `)).toBe(true)
  })
})
