// The work every render baseline does: look the template up in a Map, substitute the variables into
// each message (with one partial), merge the hyperparameters, and answer JSON.
export const PARTIAL = "Answer in {{language}} and keep it short."
export const TEMPLATE = [
  { role: "system", content: "You are a support agent for {{company}}. {{>style}}" },
  { role: "user", content: "Customer {{customer}} on plan {{plan}} asks: {{question}}" }
]

const compile = (text) =>
  text.split(/(\{\{>?\s*[\w.]+\s*\}\})/g).map((part) => {
    const tag = /^\{\{(>?)\s*([\w.]+)\s*\}\}$/.exec(part)
    return tag === null ? { text: part } : tag[1] === ">" ? { partial: tag[2] } : { name: tag[2] }
  })

const partials = new Map([["style", compile(PARTIAL)]])
const render = (parts, variables) => {
  let out = ""
  for (const part of parts) {
    if (part.text !== undefined) out += part.text
    else if (part.partial !== undefined) out += render(partials.get(part.partial) ?? [], variables)
    else {
      const value = variables[part.name]
      out += value === undefined || value === null ? "" : String(value)
    }
  }
  return out
}

export const prompts = new Map([[
  "support",
  {
    parameters: { model: "gpt-4o", temperature: 0.2, max_completion_tokens: 256 },
    messages: TEMPLATE.map((m) => ({ role: m.role, parts: compile(m.content) }))
  }
]])

/** The render result for a parsed body, or undefined when the prompt is unknown. */
export const renderBody = (id, body) => {
  const prompt = prompts.get(id)
  if (prompt === undefined) return undefined
  const { variables = {}, ...rest } = body
  return {
    success: true,
    data: {
      ...prompt.parameters,
      ...rest,
      messages: prompt.messages.map((m) => ({ role: m.role, content: render(m.parts, variables) }))
    }
  }
}
