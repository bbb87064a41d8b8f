/** The renderer alone, beside mustache and wontache: renders per second of three templates. */
import Mustache from "mustache"
import wontache from "wontache"
import { escapeHtml, Template } from "../../packages/domain/src/prompts/Mustache.ts"
import { log, round } from "../support.ts"

const RENDER_CASES = {
  "chat message with partial": {
    template:
      "You are a support agent for {{company}}. {{>style}} Customer {{customer}} on plan {{plan}} asks: {{question}}",
    partials: { style: "Answer in {{language}} and keep it short." },
    view: {
      company: "Acme & Co",
      customer: "Ada",
      plan: "pro",
      question: "Why is <my> invoice \"late\"?",
      language: "English"
    }
  },
  "section over 20 items": {
    template: "{{#items}}- {{name}} ({{qty}} × {{price}}){{^last}}\n{{/last}}{{/items}}{{^items}}none{{/items}}",
    partials: {},
    view: {
      items: Array.from({ length: 20 }, (_, i) => ({ name: `item ${i}`, qty: i, price: `${i}.99`, last: i === 19 }))
    }
  },
  "dotted names and nesting": {
    template:
      "{{#user}}{{profile.name}} <{{profile.email}}> works at {{company.name}} in {{company.address.city}}{{/user}}",
    partials: {},
    view: {
      user: true,
      profile: { name: "Ada", email: "ada@example.com" },
      company: { name: "Acme", address: { city: "Ghent" } }
    }
  }
} as const

const opsPerSecond = (fn: () => unknown) => {
  const measure = (ms: number) => {
    let ops = 0
    const end = performance.now() + ms
    while (performance.now() < end) {
      for (let i = 0; i < 100; i++) fn()
      ops += 100
    }
    return (ops / ms) * 1000
  }
  measure(300)
  const runs = [measure(700), measure(700), measure(700)].sort((a, b) => a - b)
  return round(runs[1])
}

export const benchRenderer = () => {
  const results: Record<string, { ours: number; mustache: number; wontache: number }> = {}
  for (const [name, c] of Object.entries(RENDER_CASES)) {
    const ours = Template.compile(c.template)
    const ourPartials = new Map(Object.entries(c.partials).map(([k, v]) => [k, Template.compile(v)]))
    const options = { escape: escapeHtml, partial: (n: string) => ourPartials.get(n) }
    Mustache.parse(c.template)
    const wontacheTemplate = wontache(c.template)
    const wontachePartials = Object.fromEntries(Object.entries(c.partials).map(([k, v]) => [k, wontache(v)]))
    const outputs = [
      ours.render(c.view, options),
      Mustache.render(c.template, c.view, c.partials),
      wontacheTemplate(c.view, { partials: wontachePartials })
    ]
    if (new Set(outputs).size !== 1) log(`renderer outputs differ for '${name}': ${JSON.stringify(outputs)}`)
    results[name] = {
      ours: opsPerSecond(() => ours.render(c.view, options)),
      mustache: opsPerSecond(() => Mustache.render(c.template, c.view, c.partials)),
      wontache: opsPerSecond(() => wontacheTemplate(c.view, { partials: wontachePartials }))
    }
    log(`renderer '${name}': ${JSON.stringify(results[name])}`)
  }
  return results
}
