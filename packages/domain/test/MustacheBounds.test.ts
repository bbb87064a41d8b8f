/**
 * The engine's bounds: output length stops a render as it grows, a step budget stops its work however little
 * it outputs, the output encoding reaches every
 * interpolation whatever its tag, section nesting is a syntax error past its limit, and values too deep to
 * serialise are refused rather than overflowing the stack.
 */
import { describe, expect, it } from "vitest"
import {
  MAX_TEMPLATE_DEPTH,
  MAX_VALUE_DEPTH,
  noEscape,
  type RenderOptions,
  RenderStepsExceeded,
  RenderTooLarge,
  stepBudget,
  Template,
  TemplateSyntaxError,
  ValueTooDeep
} from "../src/prompts/Mustache.ts"

const compileAll = (partials: Record<string, string>) =>
  new Map(Object.entries(partials).map(([name, text]) => [name, Template.compile(text)]))

const renderWith = (
  template: string,
  view: unknown,
  options: Partial<RenderOptions> = {},
  partials: Record<string, string> = {}
) => {
  const compiled = compileAll(partials)
  return Template.compile(template).render(view, {
    escape: noEscape,
    partial: (name) => compiled.get(name),
    ...options
  })
}

describe("the output length bound", () => {
  it("renders output of exactly maxLength, and throws one unit past it", () => {
    expect(renderWith("ab{{v}}", { v: "cde" }, { maxLength: 5 })).toBe("abcde")
    expect(() => renderWith("ab{{v}}", { v: "cdef" }, { maxLength: 5 })).toThrow(RenderTooLarge)
    expect(() => renderWith("{{#list}}xy{{/list}}", { list: [1, 2, 3] }, { maxLength: 5 })).toThrow(RenderTooLarge)
  })

  it("stops a section over many items as soon as the bound is crossed, not after building the output", () => {
    const big = Template.compile("x".repeat(1_000))
    let expansions = 0
    const render = () =>
      Template.compile("{{#items}}{{>big}}{{/items}}").render({ items: Array.from({ length: 300 }, () => 1) }, {
        escape: noEscape,
        partial: () => {
          expansions++
          return big
        },
        maxLength: 4_500
      })
    expect(render).toThrow(RenderTooLarge)
    expect(expansions).toBe(5)
  })

  it("counts the output of nested partials against the one overall bound", () => {
    // Each level adds only ten characters of its own; together they pass the bound long before the
    // partial depth limit.
    const error = (() => {
      try {
        renderWith("{{>loop}}", {}, { maxLength: 45, maxPartialDepth: 1_000 }, { loop: "0123456789{{>loop}}" })
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(RenderTooLarge)
    expect((error as RenderTooLarge).maxLength).toBe(45)
  })

  it("counts blocks and parents, and output before `base`", () => {
    const partials = { layout: "[{{$body}}{{/body}}]" }
    const template = "{{<layout}}{{$body}}{{v}}{{/body}}{{/layout}}"
    expect(renderWith(template, { v: "abc" }, { maxLength: 5 }, partials)).toBe("[abc]")
    expect(() => renderWith(template, { v: "abcd" }, { maxLength: 5 }, partials)).toThrow(RenderTooLarge)
    const compiled = Template.compile("{{v}}")
    expect(compiled.render({ v: "abc" }, { escape: noEscape, maxLength: 5 }, 2)).toBe("abc")
    expect(() => compiled.render({ v: "abc" }, { escape: noEscape, maxLength: 5 }, 3)).toThrow(RenderTooLarge)
  })

  it("is unbounded when no maxLength is given", () => {
    expect(renderWith("{{#items}}{{v}}{{/items}}", { items: [1, 2, 3, 4], v: "x".repeat(100_000) })).toHaveLength(
      400_000
    )
  })
})

describe("the step budget", () => {
  /** `items` as a list that counts how many of its items the render reads. */
  const countingList = (length: number) => {
    const reads = { count: 0 }
    const list = new Proxy(Array.from({ length }, (_, i) => i), {
      get: (target, key, receiver) => {
        if (typeof key === "string" && /^\d+$/.test(key)) reads.count++
        return Reflect.get(target, key, receiver)
      }
    })
    return { list, reads }
  }
  const caught = (render: () => unknown) => {
    try {
      render()
    } catch (error) {
      return error
    }
    return undefined
  }

  it("stops three nested sections over 1,000 items (10⁹ iterations that emit nothing) within the budget", () => {
    const { list, reads } = countingList(1_000)
    const error = caught(() =>
      renderWith("{{#a}}{{#a}}{{#a}}{{/a}}{{/a}}{{/a}}", { a: list }, { maxLength: 1_000, maxSteps: 1_000_000 })
    )
    expect(error).toBeInstanceOf(RenderStepsExceeded)
    expect((error as RenderStepsExceeded).maxSteps).toBe(1_000_000)
    // Each iteration is a step, so no more items are read than the budget allows.
    expect(reads.count).toBeGreaterThan(100_000)
    expect(reads.count).toBeLessThanOrEqual(1_000_000)
  })

  it("charges each run of a section's body, each expansion, and each frame a lookup searches", () => {
    const costs: ReadonlyArray<readonly [string, unknown, Record<string, string>, number]> = [
      // The lookup of `list` searches one frame; then one step per item.
      ["{{#list}}x{{/list}}", { list: [1, 2, 3] }, {}, 1 + 3],
      // A single value runs the body once. Inside, the stack is two deep: `y` is found on top (1), `x` one
      // frame further (2).
      ["{{#s}}{{y}}{{x}}{{/s}}", { s: { y: 1 }, x: 2 }, {}, 1 + 1 + 1 + 2],
      // A missing name searches every frame: two here.
      ["{{#s}}{{nothing}}{{/s}}", { s: {} }, {}, 1 + 1 + 2],
      // `.` reads the top frame; a dotted name pays for the whole stack.
      ["{{#list}}{{.}}{{/list}}{{a.b}}", { list: [1, 2], a: { b: 1 } }, {}, 1 + 2 * 2 + 1],
      // Expanding a partial is a step, and its own steps count against the same budget.
      ["{{>p}}{{>p}}", { v: 1 }, { p: "{{v}}" }, 2 * (1 + 1)],
      // A dynamic partial's name is looked up too.
      ["{{>*name}}", { name: "p", v: 1 }, { p: "{{v}}" }, 1 + 1 + 1],
      // A body too large to write out twice (its code is shared by lists and single values) costs the same.
      [`{{#s}}${"{{x}}".repeat(100)}{{/s}}`, { s: [{ x: 1 }, { x: 2 }] }, {}, 1 + 2 * (1 + 100)],
      [`{{#s}}${"{{x}}".repeat(100)}{{/s}}`, { s: { x: 1 } }, {}, 1 + 1 + 100],
      // An inverted section and a falsy section cost their lookup only.
      ["{{^list}}none{{/list}}{{#list}}x{{/list}}", { list: [] }, {}, 1 + 1]
    ]
    for (const [template, view, partials, steps] of costs) {
      expect(renderWith(template, view, { maxSteps: steps }, partials), template).toBeTypeOf("string")
      expect(() => renderWith(template, view, { maxSteps: steps - 1 }, partials), template).toThrow(
        RenderStepsExceeded
      )
    }
  })

  it("is one budget for the whole render: blocks, parents and the strings that share it", () => {
    const partials = { layout: "[{{$body}}{{/body}}]" }
    // The parent expansion, the block's, and the lookup of `v` inside it.
    const template = "{{<layout}}{{$body}}{{v}}{{/body}}{{/layout}}"
    expect(renderWith(template, { v: "a" }, { maxSteps: 3 }, partials)).toBe("[a]")
    expect(() => renderWith(template, { v: "a" }, { maxSteps: 2 }, partials)).toThrow(RenderStepsExceeded)

    const options: RenderOptions = { escape: noEscape, maxSteps: 5 }
    const budget = stepBudget(options)
    const section = Template.compile("{{#list}}x{{/list}}")
    expect(section.render({ list: [1, 2] }, options, 0, budget)).toBe("xx")
    expect(budget.left).toBe(2)
    expect(() => section.render({ list: [1, 2] }, options, 0, budget)).toThrow(RenderStepsExceeded)
  })

  it("is unbounded when no maxSteps is given", () => {
    const list = Array.from({ length: 200 }, (_, i) => i)
    expect(renderWith("{{#a}}{{#a}}{{#a}}{{/a}}{{/a}}{{/a}}", { a: list })).toBe("")
  })
})

describe("the output encoding", () => {
  const encode = (value: string) => `<${value}>`

  it("applies to every interpolation whatever its tag, and never to template text", () => {
    expect(renderWith("a{{v}}b{{{v}}}c{{& v}}d{{=<% %>=}}<%v%><%{v}%>", { v: "x" }, { encode }))
      .toBe("a<x>b<x>c<x>d<x><x>")
  })

  it("applies after escape, and inside sections, partials, dynamic partials and blocks", () => {
    const escape = (value: string) => value.toUpperCase()
    const partials = { inner: "p{{{v}}}", layout: "[{{$b}}{{/b}}]" }
    const template = "{{#list}}{{.}}{{/list}}|{{>inner}}|{{>*which}}|{{<layout}}{{$b}}{{&v}}{{/b}}{{/layout}}|{{v}}"
    expect(renderWith(template, { list: ["i", "j"], v: "x", which: "inner" }, { encode, escape }, partials))
      .toBe("<I><J>|p<x>|p<x>|[<x>]|<X>")
  })

  it("leaves output as it was when none is given", () => {
    expect(renderWith("{{{v}}}{{v}}", { v: "\"" })).toBe("\"\"")
  })
})

describe("section nesting", () => {
  const nested = (depth: number, open: (i: number) => string, close: (i: number) => string) => {
    const levels = Array.from({ length: depth }, (_, i) => i)
    return `${levels.map(open).join("")}x${levels.reverse().map(close).join("")}`
  }

  it(`compiles and renders sections nested ${MAX_TEMPLATE_DEPTH} deep, of every kind`, () => {
    const kinds = ["#", "^", "$"]
    const template = nested(MAX_TEMPLATE_DEPTH, (i) => `{{${kinds[i % 3]}s${i}}}`, (i) => `{{/s${i}}}`)
    const view = Object.fromEntries(Array.from({ length: MAX_TEMPLATE_DEPTH }, (_, i) => [`s${i}`, i % 3 === 0]))
    expect(renderWith(template, view)).toBe("x")
  })

  it.each([MAX_TEMPLATE_DEPTH + 1, 3_000, 100_000])("refuses %i levels with a syntax error at the tag", (depth) => {
    const template = nested(depth, () => "{{#a}}", () => "{{/a}}")
    expect(() => Template.compile(template)).toThrow(TemplateSyntaxError)
    expect(() => Template.compile(template)).toThrow(
      `Sections are nested deeper than ${MAX_TEMPLATE_DEPTH} levels at line 1, column ${6 * MAX_TEMPLATE_DEPTH + 1}`
    )
  })

  it("counts parent tags and blocks inside them", () => {
    const template = nested(MAX_TEMPLATE_DEPTH / 2 + 1, () => "{{<p}}{{$b}}", () => "{{/b}}{{/p}}")
    expect(() => Template.compile(template)).toThrow(TemplateSyntaxError)
    const fits = nested(MAX_TEMPLATE_DEPTH / 2, () => "{{<p}}{{$b}}", () => "{{/b}}{{/p}}")
    expect(Template.compile(fits).partials).toEqual([{ name: "p", dynamic: false }])
  })
})

describe("interpolated values", () => {
  const deep = (depth: number): unknown => {
    let value: unknown = 1
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value }
    return value
  }

  it(`inserts objects and arrays nested up to ${MAX_VALUE_DEPTH} levels as JSON`, () => {
    const value = deep(MAX_VALUE_DEPTH)
    expect(renderWith("{{v}}", { v: value })).toBe(JSON.stringify(value))
  })

  it("refuses deeper ones, naming the variable, however deep they go", () => {
    for (const depth of [MAX_VALUE_DEPTH + 1, 100_000]) {
      expect(() => renderWith("{{#s}}{{v.w}}{{/s}}", { s: true, v: { w: deep(depth) } })).toThrow(
        new ValueTooDeep("v.w")
      )
    }
    expect(() => renderWith("{{>*name}}", { name: deep(100_000) })).toThrow(ValueTooDeep)
  })

  it("walks sections over deeply nested data without recursion", () => {
    // Sections push one frame per level the template names; the data's own depth costs nothing.
    expect(renderWith("{{#v}}{{#k}}ok{{/k}}{{/v}}", { v: { k: deep(100_000) } })).toBe("ok")
  })
})
