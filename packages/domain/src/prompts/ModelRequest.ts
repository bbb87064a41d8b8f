/**
 * The rules of the two model request objects a render produces: the chat completion request and the
 * completion request. A violation names its field as a path (`temperature`, `messages[1].content`).
 * Fields the rules do not know pass through untouched: providers have extensions.
 */

export type RequestKind = "chat" | "completion"

export interface Violation {
  /** The offending field, e.g. `messages[1].tool_calls[0].function.name`. */
  readonly param: string
  readonly message: string
}

export interface RequestCheck {
  /** The first rule the request breaks, if any. */
  readonly violation: Violation | undefined
  /** Deprecated fields the request uses (accepted, but worth a warning). */
  readonly deprecated: ReadonlyArray<string>
}

class Invalid {
  readonly violation: Violation
  constructor(violation: Violation) {
    this.violation = violation
  }
}

const invalid = (param: string, message: string): never => {
  throw new Invalid({ param, message: `${param}: ${message}` })
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/
/** Reasoning-series and newest-generation models reject `max_tokens`. */
const NEEDS_MAX_COMPLETION_TOKENS = /^(o1|o3|o4|gpt-5)/i

const typeOf = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value)

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const has = (body: Record<string, unknown>, key: string) => Object.hasOwn(body, key) && body[key] !== undefined

const expectString = (value: unknown, param: string) => {
  if (typeof value !== "string") invalid(param, `expected a string, got ${typeOf(value)}`)
}

const expectBoolean = (value: unknown, param: string) => {
  if (typeof value !== "boolean") invalid(param, `expected a boolean, got ${typeOf(value)}`)
}

const expectObject = (value: unknown, param: string): Record<string, unknown> => {
  if (!isObject(value)) invalid(param, `expected an object, got ${typeOf(value)}`)
  return value as Record<string, unknown>
}

const expectArray = (value: unknown, param: string, min: number, max: number): ReadonlyArray<unknown> => {
  if (!Array.isArray(value)) return invalid(param, `expected an array, got ${typeOf(value)}`)
  if (value.length < min) invalid(param, `expected at least ${min} item${min === 1 ? "" : "s"}, got ${value.length}`)
  if (value.length > max) invalid(param, `expected at most ${max} items, got ${value.length}`)
  return value
}

const expectNumber = (value: unknown, param: string, min: number, max: number, integer: boolean) => {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    return invalid(param, `expected ${integer ? "an integer" : "a number"}, got ${typeOf(value)}`)
  }
  if (integer && !Number.isInteger(value)) invalid(param, `expected an integer, got ${value}`)
  if (value < min || value > max) {
    invalid(param, `expected a value from ${min} to ${max === Number.MAX_SAFE_INTEGER ? "∞" : max}, got ${value}`)
  }
}

const expectEnum = (value: unknown, param: string, allowed: ReadonlyArray<string>) => {
  if (typeof value !== "string" || !allowed.includes(value)) {
    invalid(param, `expected one of ${allowed.map((a) => `'${a}'`).join(", ")}, got ${JSON.stringify(value)}`)
  }
}

const expectName = (value: unknown, param: string) => {
  expectString(value, param)
  if (!NAME.test(value as string)) invalid(param, "expected 1 to 64 letters, digits, '_' or '-'")
}

/**
 * Optional and nullable fields: `check` runs only on a present, non-null value. `at` is the path of the object
 * holding `key` (empty at the root): the check and the refusal of a null both get the field's full path.
 */
const optional = (
  body: Record<string, unknown>,
  key: string,
  check: (value: unknown, param: string) => void,
  nullable = true,
  at = ""
) => {
  if (!has(body, key)) return
  const value = body[key]
  const param = at === "" ? key : `${at}.${key}`
  if (value === null) {
    if (!nullable) invalid(param, "must not be null")
    return
  }
  check(value, param)
}

const MAX = Number.MAX_SAFE_INTEGER
const number = (min: number, max: number) => (value: unknown, param: string) =>
  expectNumber(value, param, min, max, false)
const integer = (min: number, max: number) => (value: unknown, param: string) =>
  expectNumber(value, param, min, max, true)

const logitBias = (value: unknown, param: string) => {
  const bias = expectObject(value, param)
  for (const [token, weight] of Object.entries(bias)) {
    if (!/^\d+$/.test(token)) invalid(`${param}.${token}`, "expected a token id (digits)")
    expectNumber(weight, `${param}.${token}`, -100, 100, true)
  }
}

const stop = (value: unknown, param: string) => {
  if (typeof value === "string") return
  const items = expectArray(value, param, 1, 4)
  items.forEach((item, i) => expectString(item, `${param}[${i}]`))
}

const streamOptions = (value: unknown, param: string) => {
  const options = expectObject(value, param)
  optional(options, "include_usage", expectBoolean, false, param)
}

// Shared by both request kinds.
const commonRules = (body: Record<string, unknown>) => {
  if (!has(body, "model")) invalid("model", "is required")
  expectString(body.model, "model")
  optional(body, "frequency_penalty", number(-2, 2))
  optional(body, "presence_penalty", number(-2, 2))
  optional(body, "logit_bias", logitBias)
  optional(body, "n", integer(1, 128))
  optional(body, "seed", integer(Number.MIN_SAFE_INTEGER, MAX))
  optional(body, "stop", stop)
  optional(body, "stream", expectBoolean)
  optional(body, "stream_options", streamOptions)
  if (has(body, "stream_options") && body.stream_options !== null && body.stream !== true) {
    invalid("stream_options", "is only allowed when stream is true")
  }
  optional(body, "temperature", number(0, 2))
  optional(body, "top_p", number(0, 1))
  optional(body, "user", expectString, false)
}

// ---------------------------------------------------------------------------------------------------------
// Chat

const functionObject = (value: unknown, param: string) => {
  const fn = expectObject(value, param)
  if (!has(fn, "name")) invalid(`${param}.name`, "is required")
  expectName(fn.name, `${param}.name`)
  optional(fn, "description", expectString, false, param)
  optional(fn, "parameters", expectObject, false, param)
  optional(fn, "strict", expectBoolean, true, param)
}

const toolCall = (value: unknown, param: string) => {
  const call = expectObject(value, param)
  if (!has(call, "id")) invalid(`${param}.id`, "is required")
  expectString(call.id, `${param}.id`)
  if (!has(call, "type")) invalid(`${param}.type`, "is required")
  expectEnum(call.type, `${param}.type`, ["function"])
  const fn = expectObject(call.function, `${param}.function`)
  if (!has(fn, "name")) invalid(`${param}.function.name`, "is required")
  expectName(fn.name, `${param}.function.name`)
  if (!has(fn, "arguments")) invalid(`${param}.function.arguments`, "is required")
  expectString(fn.arguments, `${param}.function.arguments`)
}

const userPart = (value: unknown, param: string) => {
  const part = expectObject(value, param)
  expectEnum(part.type, `${param}.type`, ["text", "image_url"])
  if (part.type === "text") {
    if (!has(part, "text")) invalid(`${param}.text`, "is required")
    expectString(part.text, `${param}.text`)
    return
  }
  const image = expectObject(part.image_url, `${param}.image_url`)
  if (!has(image, "url")) invalid(`${param}.image_url.url`, "is required")
  expectString(image.url, `${param}.image_url.url`)
  optional(image, "detail", (v, p) => expectEnum(v, p, ["auto", "low", "high"]), false, `${param}.image_url`)
}

const ROLES = ["system", "developer", "user", "assistant", "tool", "function"] as const

const message = (value: unknown, param: string, deprecated: Set<string>) => {
  const m = expectObject(value, param)
  if (!has(m, "role")) invalid(`${param}.role`, "is required")
  expectEnum(m.role, `${param}.role`, ROLES)
  const field = (key: string) => `${param}.${key}`
  const requiredString = (key: string) => {
    if (!has(m, key)) invalid(field(key), "is required")
    expectString(m[key], field(key))
  }
  const optionalName = () => optional(m, "name", expectString, false, param)
  switch (m.role) {
    case "system":
    case "developer":
      requiredString("content")
      optionalName()
      break
    case "user": {
      if (!has(m, "content")) invalid(field("content"), "is required")
      if (typeof m.content !== "string") {
        const parts = expectArray(m.content, field("content"), 1, MAX)
        parts.forEach((part, i) => userPart(part, `${field("content")}[${i}]`))
      }
      optionalName()
      break
    }
    case "assistant": {
      optional(m, "content", expectString, true, param)
      optionalName()
      optional(
        m,
        "tool_calls",
        (v, p) => {
          expectArray(v, p, 0, MAX).forEach((call, i) => toolCall(call, `${p}[${i}]`))
        },
        false,
        param
      )
      if (has(m, "function_call")) deprecated.add("function_call")
      optional(
        m,
        "function_call",
        (v, p) => {
          const call = expectObject(v, p)
          expectString(call.name, `${p}.name`)
          expectString(call.arguments, `${p}.arguments`)
        },
        true,
        param
      )
      const hasCalls = (has(m, "tool_calls") && m.tool_calls !== null) ||
        (has(m, "function_call") && m.function_call !== null)
      if ((!has(m, "content") || m.content === null) && !hasCalls) {
        invalid(field("content"), "is required unless tool_calls or function_call is given")
      }
      break
    }
    case "tool":
      requiredString("content")
      requiredString("tool_call_id")
      break
    case "function":
      deprecated.add("messages.role=function")
      if (!has(m, "content") && !Object.hasOwn(m, "content")) invalid(field("content"), "is required (it may be null)")
      if (m.content !== null) expectString(m.content, field("content"))
      requiredString("name")
      break
  }
}

const responseFormat = (value: unknown, param: string) => {
  const format = expectObject(value, param)
  expectEnum(format.type, `${param}.type`, ["text", "json_object", "json_schema"])
  if (format.type !== "json_schema") return
  const schema = expectObject(format.json_schema, `${param}.json_schema`)
  if (!has(schema, "name")) invalid(`${param}.json_schema.name`, "is required")
  expectName(schema.name, `${param}.json_schema.name`)
  optional(schema, "description", expectString, false, `${param}.json_schema`)
  optional(schema, "schema", expectObject, false, `${param}.json_schema`)
  optional(schema, "strict", expectBoolean, true, `${param}.json_schema`)
}

const toolChoice = (value: unknown, param: string) => {
  if (typeof value === "string") return expectEnum(value, param, ["none", "auto", "required"])
  const choice = expectObject(value, param)
  expectEnum(choice.type, `${param}.type`, ["function"])
  const fn = expectObject(choice.function, `${param}.function`)
  expectName(fn.name, `${param}.function.name`)
}

const thinking = (value: unknown, param: string) => {
  const config = expectObject(value, param)
  if (!has(config, "type")) invalid(`${param}.type`, "is required")
  expectEnum(config.type, `${param}.type`, ["enabled", "disabled"])
  optional(config, "budget_tokens", integer(1, MAX), false, param)
}

const chatRules = (body: Record<string, unknown>, deprecated: Set<string>) => {
  if (!has(body, "messages")) invalid("messages", "is required")
  expectArray(body.messages, "messages", 1, MAX).forEach((m, i) => message(m, `messages[${i}]`, deprecated))
  commonRules(body)
  optional(body, "logprobs", expectBoolean)
  // The specification calls it nullable, OpenAI's schema does not: rendering drops a null (meaning the
  // default) before the check, so what passes here passes OpenAI's schema too.
  optional(body, "top_logprobs", integer(0, 20), false)
  if (has(body, "top_logprobs") && body.top_logprobs !== null && body.logprobs !== true) {
    invalid("top_logprobs", "requires logprobs to be true")
  }
  if (has(body, "max_tokens")) {
    deprecated.add("max_tokens")
    if (typeof body.model === "string" && NEEDS_MAX_COMPLETION_TOKENS.test(body.model)) {
      invalid("max_tokens", `is not supported by ${body.model}; use max_completion_tokens instead`)
    }
  }
  optional(body, "max_tokens", integer(0, MAX))
  optional(body, "max_completion_tokens", integer(0, MAX))
  optional(body, "response_format", responseFormat, false)
  optional(body, "thinking", thinking)
  optional(body, "tools", (v, p) => {
    expectArray(v, p, 0, 128).forEach((tool, i) => {
      const t = expectObject(tool, `tools[${i}]`)
      if (!has(t, "type")) invalid(`tools[${i}].type`, "is required")
      expectEnum(t.type, `tools[${i}].type`, ["function"])
      if (!has(t, "function")) invalid(`tools[${i}].function`, "is required")
      functionObject(t.function, `tools[${i}].function`)
    })
  }, false)
  optional(body, "tool_choice", toolChoice, false)
  optional(body, "parallel_tool_calls", expectBoolean, false)
  if (has(body, "function_call")) {
    deprecated.add("function_call")
    const call = body.function_call
    if (typeof call === "string") expectEnum(call, "function_call", ["none", "auto"])
    else expectName(expectObject(call, "function_call").name, "function_call.name")
  }
  if (has(body, "functions")) {
    deprecated.add("functions")
    expectArray(body.functions, "functions", 1, 128).forEach((fn, i) => functionObject(fn, `functions[${i}]`))
  }
}

// ---------------------------------------------------------------------------------------------------------
// Completion

const prompt = (value: unknown, param: string) => {
  if (typeof value === "string") return
  const items = expectArray(value, param, 0, MAX)
  if (items.length === 0) return
  const first = items[0]
  if (typeof first === "string") return items.forEach((item, i) => expectString(item, `${param}[${i}]`))
  if (typeof first === "number") return items.forEach((item, i) => expectNumber(item, `${param}[${i}]`, 0, MAX, true))
  if (Array.isArray(first)) {
    return items.forEach((tokens, i) => {
      expectArray(tokens, `${param}[${i}]`, 1, MAX).forEach((t, j) =>
        expectNumber(t, `${param}[${i}][${j}]`, 0, MAX, true)
      )
    })
  }
  invalid(`${param}[0]`, "expected a string, an array of strings, of token ids, or of arrays of token ids")
}

const completionRules = (body: Record<string, unknown>) => {
  if (!has(body, "prompt")) invalid("prompt", "is required")
  optional(body, "prompt", prompt)
  commonRules(body)
  optional(body, "best_of", integer(0, 20))
  optional(body, "echo", expectBoolean)
  optional(body, "logprobs", integer(0, 5))
  optional(body, "max_tokens", integer(0, MAX))
  optional(body, "suffix", expectString)
  if (has(body, "best_of") && body.best_of !== null) {
    if (body.stream === true) invalid("best_of", "cannot be used with stream: true")
    if (has(body, "n") && body.n !== null && (body.best_of as number) <= (body.n as number)) {
      invalid("best_of", `must be greater than n (${body.n})`)
    }
  }
}

/** Fields whose null means "the default" but that OpenAI's schema does not accept as null. */
export const NULL_MEANS_DEFAULT: ReadonlyArray<string> = ["top_logprobs"]

/** Checks a request object of the given kind against every rule. */
export const checkRequest = (kind: RequestKind, body: Record<string, unknown>): RequestCheck => {
  const deprecated = new Set<string>()
  try {
    if (kind === "chat") chatRules(body, deprecated)
    else completionRules(body)
    return { violation: undefined, deprecated: [...deprecated] }
  } catch (error) {
    if (error instanceof Invalid) return { violation: error.violation, deprecated: [...deprecated] }
    throw error
  }
}
