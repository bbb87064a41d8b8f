/**
 * The request-object rules against OpenAI's own schemas: over many generated request objects, whatever our
 * validator accepts, OpenAI's CreateChatCompletionRequest / CreateCompletionRequest accept too.
 */
import { Ajv } from "ajv"
import fc from "fast-check"
import { expect, it } from "vitest"
import { checkRequest } from "../src/prompts/ModelRequest.ts"
import { describeConformance } from "./support/Conformance.ts"

/** OpenAPI 3.0's `nullable: true` as JSON Schema: the node, or null. */
const toJsonSchema = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(toJsonSchema)
  if (node === null || typeof node !== "object") return node
  const { nullable, ...rest } = node as Record<string, unknown>
  const converted = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, toJsonSchema(v)]))
  return nullable === true ? { anyOf: [converted, { type: "null" }] } : converted
}

// Mostly valid values, with values across every boundary and of the wrong types mixed in: enough requests
// pass our rules for the property to mean something, and enough fail to probe the edges.
const wrong = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -300, max: 300 }),
  fc.double({ min: -3, max: 3, noNaN: true }),
  fc.constantFrom("auto", "none", "required", "text", "x", "", "gpt-4o", "function"),
  fc.constant([]),
  fc.constant({})
)
const mostly = <A>(valid: fc.Arbitrary<A>) =>
  fc.oneof({ arbitrary: valid, weight: 40 }, { arbitrary: wrong, weight: 1 })
const numberIn = (min: number, max: number, integer = false) =>
  mostly(fc.oneof(
    { arbitrary: integer ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true }), weight: 12 },
    { arbitrary: fc.constantFrom(min, max, null), weight: 4 },
    {
      arbitrary: integer
        ? fc.integer({ min: min - 2, max: max + 2 })
        : fc.double({ min: min - 1, max: max + 1, noNaN: true }),
      weight: 1
    }
  ))
const name = mostly(
  fc.oneof(fc.constantFrom("get_weather", "a-b_c9", "x".repeat(64)), fc.constantFrom("has space", "x".repeat(65), ""))
)
const fnObject = fc.record(
  {
    name,
    description: mostly(fc.string()),
    parameters: mostly(fc.constant({ type: "object" })),
    strict: mostly(fc.oneof(fc.boolean(), fc.constant(null)))
  },
  { requiredKeys: ["name"] }
)
const toolCall = fc.record(
  {
    id: mostly(fc.constant("call_1")),
    type: mostly(fc.constant("function")),
    function: mostly(fc.record({ name, arguments: mostly(fc.constant("{}")) }))
  },
  { requiredKeys: ["id", "type", "function"] }
)
const userPart = mostly(fc.oneof(
  fc.record({ type: fc.constant("text"), text: mostly(fc.string()) }),
  fc.record({
    type: fc.constant("image_url"),
    image_url: mostly(
      fc.record({
        url: mostly(fc.constant("https://x/y.png")),
        detail: mostly(fc.constantFrom("auto", "low", "high", "max"))
      }, { requiredKeys: ["url"] })
    )
  })
))
const message = fc.oneof(
  fc.record({
    role: fc.constantFrom("system", "developer"),
    content: mostly(fc.string()),
    name: mostly(fc.string({ maxLength: 10 }))
  }, { requiredKeys: ["role", "content"] }),
  fc.record({
    role: fc.constant("user"),
    content: mostly(fc.oneof(fc.string(), fc.array(userPart, { minLength: 1, maxLength: 3 }), fc.constant([]))),
    name: mostly(fc.string({ maxLength: 10 }))
  }, { requiredKeys: ["role", "content"] }),
  fc.record({
    role: fc.constant("assistant"),
    content: mostly(fc.oneof(fc.string(), fc.constant(null))),
    tool_calls: mostly(fc.array(toolCall, { maxLength: 2 })),
    function_call: mostly(
      fc.oneof(fc.record({ name: fc.constant("f"), arguments: fc.constant("{}") }), fc.constant(null))
    )
  }, { requiredKeys: ["role"] }),
  fc.record({ role: fc.constant("tool"), content: mostly(fc.string()), tool_call_id: mostly(fc.constant("call_1")) }, {
    requiredKeys: ["role", "content", "tool_call_id"]
  }),
  fc.record({
    role: fc.constant("function"),
    content: mostly(fc.oneof(fc.string(), fc.constant(null))),
    name: mostly(fc.constant("f"))
  }, { requiredKeys: ["role", "content", "name"] }),
  fc.record({ role: mostly(fc.constant("robot")), content: fc.string() })
).filter(() => true)

const chatRequest = fc.record({
  model: mostly(fc.constantFrom("gpt-4o", "o3-mini", "gpt-5", "claude-x")),
  messages: mostly(fc.array(message, { minLength: 1, maxLength: 4 })),
  frequency_penalty: numberIn(-2, 2),
  presence_penalty: numberIn(-2, 2),
  logit_bias: mostly(
    fc.oneof(fc.dictionary(fc.constantFrom("50256", "12", "x"), fc.integer({ min: -120, max: 120 })), fc.constant(null))
  ),
  logprobs: mostly(fc.oneof(fc.boolean(), fc.constant(null))),
  top_logprobs: numberIn(0, 20, true),
  max_tokens: numberIn(0, 4096, true),
  max_completion_tokens: numberIn(0, 4096, true),
  n: numberIn(1, 128, true),
  response_format: mostly(fc.oneof(
    fc.record({ type: fc.constantFrom("text", "json_object") }),
    fc.record({
      type: fc.constant("json_schema"),
      json_schema: mostly(
        fc.record({
          name,
          description: mostly(fc.string()),
          schema: mostly(fc.constant({ type: "object" })),
          strict: mostly(fc.oneof(fc.boolean(), fc.constant(null)))
        }, { requiredKeys: ["name"] })
      )
    }),
    fc.record({ type: fc.constant("xml") })
  )),
  seed: numberIn(-5, 5, true),
  stop: mostly(fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 6 }), fc.constant(null))),
  stream: mostly(fc.oneof(fc.boolean(), fc.constant(null))),
  stream_options: mostly(
    fc.oneof(fc.record({ include_usage: mostly(fc.boolean()) }, { requiredKeys: [] }), fc.constant(null))
  ),
  temperature: numberIn(0, 2),
  top_p: numberIn(0, 1),
  tools: mostly(fc.array(fc.record({ type: mostly(fc.constant("function")), function: fnObject }), { maxLength: 2 })),
  tool_choice: mostly(
    fc.oneof(
      fc.constantFrom("none", "auto", "required"),
      fc.record({ type: fc.constant("function"), function: fc.record({ name }) })
    )
  ),
  parallel_tool_calls: mostly(fc.boolean()),
  user: mostly(fc.string()),
  function_call: mostly(fc.oneof(fc.constantFrom("none", "auto"), fc.record({ name }))),
  functions: mostly(fc.array(fnObject, { maxLength: 2 }))
}, { requiredKeys: [] }).chain((body) =>
  // Mostly honour the cross-field rules, so that requests also pass them often.
  fc.boolean().map((keepAsIs) => {
    if (keepAsIs) return body
    const fixed: Record<string, unknown> = { ...body }
    if ("top_logprobs" in fixed) fixed.logprobs = true
    if ("stream_options" in fixed) fixed.stream = true
    if (typeof fixed.model === "string" && /^(o|gpt-5)/.test(fixed.model)) delete fixed.max_tokens
    return fixed
  })
)

const completionRequest = fc.record({
  model: mostly(fc.constantFrom("gpt-3.5-turbo-instruct", "davinci-002")),
  prompt: mostly(
    fc.oneof(
      fc.string(),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.array(fc.integer({ min: -1, max: 50000 }), { minLength: 1, maxLength: 3 }),
      fc.array(fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }), { minLength: 1, maxLength: 2 }),
      fc.constant(null)
    )
  ),
  best_of: numberIn(0, 20, true),
  echo: mostly(fc.oneof(fc.boolean(), fc.constant(null))),
  frequency_penalty: numberIn(-2, 2),
  presence_penalty: numberIn(-2, 2),
  logit_bias: mostly(
    fc.oneof(fc.dictionary(fc.constantFrom("50256", "12"), fc.integer({ min: -120, max: 120 })), fc.constant(null))
  ),
  logprobs: numberIn(0, 5, true),
  max_tokens: numberIn(0, 100, true),
  n: numberIn(1, 128, true),
  seed: numberIn(-5, 5, true),
  stop: mostly(fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 6 }), fc.constant(null))),
  stream: mostly(fc.oneof(fc.boolean(), fc.constant(null))),
  stream_options: mostly(fc.oneof(fc.record({ include_usage: fc.boolean() }), fc.constant(null))),
  suffix: mostly(fc.oneof(fc.string(), fc.constant(null))),
  temperature: numberIn(0, 2),
  top_p: numberIn(0, 1),
  user: mostly(fc.string())
}, { requiredKeys: [] }).chain((body) =>
  fc.boolean().map((keepAsIs) => {
    if (keepAsIs) return body
    const fixed: Record<string, unknown> = { ...body, prompt: body.prompt ?? "Say hi" }
    if ("stream_options" in fixed) fixed.stream = true
    if ("best_of" in fixed) delete fixed.stream
    return fixed
  })
)

const RUNS = { numRuns: 20_000 }

describeConformance("request objects against OpenAI's schemas", "openai/schemas.json", (schemas) => {
  const ajv = new Ajv({ strict: false, allErrors: false, discriminator: false })
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isSafeInteger(n) })
  ajv.addSchema(toJsonSchema(schemas) as object, "openai")
  const openAiChat = ajv.getSchema("openai#/components/schemas/CreateChatCompletionRequest")!
  const openAiCompletion = ajv.getSchema("openai#/components/schemas/CreateCompletionRequest")!

  it("every chat request we accept, CreateChatCompletionRequest accepts", () => {
    let accepted = 0
    fc.assert(
      fc.property(chatRequest, (body) => {
        if (checkRequest("chat", body).violation !== undefined) return
        accepted++
        expect(openAiChat(body), JSON.stringify(openAiChat.errors)).toBe(true)
      }),
      RUNS
    )
    // The generator must reach the accepting side often enough for the property to mean something.
    expect(accepted).toBeGreaterThan(50)
  })

  it("every completion request we accept, CreateCompletionRequest accepts", () => {
    let accepted = 0
    fc.assert(
      fc.property(completionRequest, (body) => {
        if (checkRequest("completion", body).violation !== undefined) return
        accepted++
        expect(openAiCompletion(body), JSON.stringify(openAiCompletion.errors)).toBe(true)
      }),
      RUNS
    )
    expect(accepted).toBeGreaterThan(50)
  })
})
