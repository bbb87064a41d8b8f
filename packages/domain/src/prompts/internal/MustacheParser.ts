/**
 * The Mustache parser: template text into a tree of nodes, with the specification's standalone-line rules.
 * Nesting is bounded (`MAX_TEMPLATE_DEPTH`) so that nothing downstream (the code generator, the generated
 * code, V8's parser of it) recurses without limit.
 */

/** A template that cannot be compiled, with where the problem is. */
export class TemplateSyntaxError extends Error {
  readonly line: number
  readonly column: number
  constructor(message: string, line: number, column: number) {
    super(`${message} at line ${line}, column ${column}`)
    this.line = line
    this.column = column
  }
}

/**
 * Sections, inverted sections, blocks and parent tags may nest this deep. Far beyond any real template;
 * 3,000 levels overflowed the stack while compiling.
 */
export const MAX_TEMPLATE_DEPTH = 100

export type Path = ReadonlyArray<string>

export type Node =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "variable"; readonly name: string; readonly path: Path; readonly escape: boolean }
  | {
    readonly kind: "section"
    readonly name: string
    readonly path: Path
    readonly inverted: boolean
    readonly children: ReadonlyArray<Node>
  }
  | { readonly kind: "partial"; readonly name: string; readonly dynamic: boolean; readonly indent: string }
  | { readonly kind: "block"; readonly name: string; readonly children: ReadonlyArray<Node> }
  | {
    readonly kind: "parent"
    readonly name: string
    readonly dynamic: boolean
    readonly indent: string
    readonly blocks: ReadonlyMap<string, ReadonlyArray<Node>>
  }

export interface PartialReference {
  readonly name: string
  /** The partial's name is read from this variable at render time. */
  readonly dynamic: boolean
}

interface Tag {
  readonly kind: "tag"
  /** '' for a variable, else one of `# ^ / > < $ & { ! =`. */
  readonly sigil: string
  readonly content: string
  readonly start: number
  readonly end: number
  standalone: boolean
  indent: string
}

interface Text {
  readonly kind: "text"
  text: string
}

type Token = Tag | Text

const STANDALONE_SIGILS = new Set(["#", "^", "/", ">", "<", "$", "!", "="])

const position = (source: string, offset: number) => {
  let line = 1
  let lineStart = 0
  for (let i = 0; i < offset; i++) {
    if (source.charCodeAt(i) === 10) {
      line++
      lineStart = i + 1
    }
  }
  return { line, column: offset - lineStart + 1 }
}

const fail = (source: string, offset: number, message: string): never => {
  const { column, line } = position(source, offset)
  throw new TemplateSyntaxError(message, line, column)
}

const isBlank = (text: string) => /^[ \t]*$/.test(text)

const tokenize = (source: string): Array<Token> => {
  const tokens: Array<Token> = []
  let open = "{{"
  let close = "}}"
  let cursor = 0
  while (cursor < source.length) {
    const start = source.indexOf(open, cursor)
    if (start === -1) {
      tokens.push({ kind: "text", text: source.slice(cursor) })
      break
    }
    if (start > cursor) tokens.push({ kind: "text", text: source.slice(cursor, start) })
    let inner = start + open.length
    let sigil = source[inner] ?? ""
    let closing = close
    if (sigil === "{") closing = `}${close}`
    else if (sigil === "=") closing = `=${close}`
    if ("#^/><$&{!=".includes(sigil) && sigil !== "") inner++
    else sigil = ""
    // `{{>>name}}` and `{{>*name}}`: a partial whose name comes from a variable.
    if (sigil === ">" || sigil === "<") {
      let probe = inner
      while (source[probe] === " " || source[probe] === "\t") probe++
      if (source[probe] === "*" || (sigil === ">" && source[probe] === ">")) {
        sigil = `${sigil}*`
        inner = probe + 1
      }
    }
    const end = source.indexOf(closing, inner)
    if (end === -1) fail(source, start, `Unclosed tag '${open}'`)
    const content = source.slice(inner, end).trim()
    const tagEnd = end + closing.length
    if (sigil === "=") {
      const parts = content.split(/\s+/)
      if (parts.length !== 2 || parts.some((p) => p.length === 0 || p.includes("="))) {
        fail(source, start, `Invalid set-delimiter tag '${source.slice(start, tagEnd)}'`)
      }
      open = parts[0]
      close = parts[1]
    } else if (sigil !== "!" && content.length === 0) {
      fail(source, start, "Empty tag")
    }
    tokens.push({
      kind: "tag",
      sigil: sigil === "{" ? "&" : sigil,
      content,
      start,
      end: tagEnd,
      standalone: false,
      indent: ""
    })
    cursor = tagEnd
  }
  markStandalone(tokens)
  return tokens
}

/**
 * A section, comment, partial or delimiter tag alone on its line is "standalone": the line's indentation
 * and its line ending are removed (a standalone partial keeps the indentation for its own lines). A parent
 * tag directly followed by its closing tag counts as one tag. Decisions read the original text; the trims
 * are applied afterwards, so consecutive standalone lines are each seen as they were written.
 */
const markStandalone = (tokens: Array<Token>) => {
  const originals = tokens.map((t) => (t.kind === "text" ? t.text : ""))
  const headTrim = new Map<number, number>()
  const tailTrim = new Map<number, number>()
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    if (token.kind !== "tag" || !STANDALONE_SIGILS.has(token.sigil.charAt(0))) continue
    let last = i
    const next = tokens[i + 1]
    if (token.sigil.startsWith("<") && next?.kind === "tag" && next.sigil === "/") last = i + 1
    // What precedes on the same line must be blank text that starts the line (or the template).
    let indent = ""
    if (i > 0) {
      if (tokens[i - 1].kind !== "text") continue
      const before = originals[i - 1]
      const newline = before.lastIndexOf("\n")
      const tail = before.slice(newline + 1)
      if (!isBlank(tail) || (newline === -1 && i - 1 > 0)) continue
      indent = tail
    }
    // What follows on the same line must be blank up to a line ending, or the end of the template.
    let rest = 0
    if (last + 1 < tokens.length) {
      if (tokens[last + 1].kind !== "text") continue
      const match = /^[ \t]*(\r?\n|$)/.exec(originals[last + 1])
      if (match === null || (match[1] === "" && last + 2 < tokens.length)) continue
      rest = match[0].length
    }
    token.standalone = true
    token.indent = indent
    if (i > 0) tailTrim.set(i - 1, indent.length)
    if (last + 1 < tokens.length) headTrim.set(last + 1, rest)
    i = last
  }
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    if (token.kind !== "text") continue
    const original = originals[i]
    const head = headTrim.get(i) ?? 0
    const tail = tailTrim.get(i) ?? 0
    token.text = head + tail >= original.length ? "" : original.slice(head, original.length - tail)
  }
}

export const toPath = (name: string): Path => (name === "." ? [] : name.split("."))

interface Frame {
  readonly sigil: string
  readonly name: string
  readonly start: number
  readonly nodes: Array<Node>
  readonly blocks: Map<string, ReadonlyArray<Node>>
}

const build = (source: string, tokens: ReadonlyArray<Token>): ReadonlyArray<Node> => {
  const root: Frame = { sigil: "", name: "", start: 0, nodes: [], blocks: new Map() }
  const stack: Array<Frame> = [root]
  for (const token of tokens) {
    const frame = stack[stack.length - 1]
    if (token.kind === "text") {
      if (token.text.length > 0 && frame.sigil !== "<" && frame.sigil !== "<*") {
        frame.nodes.push({ kind: "text", text: token.text })
      }
      continue
    }
    switch (token.sigil) {
      case "!":
      case "=":
        break
      case "":
      case "&":
        if (frame.sigil === "<" || frame.sigil === "<*") break
        frame.nodes.push({
          kind: "variable",
          name: token.content,
          path: toPath(token.content),
          escape: token.sigil === ""
        })
        break
      case ">":
      case ">*":
        if (frame.sigil === "<" || frame.sigil === "<*") break
        frame.nodes.push({ kind: "partial", name: token.content, dynamic: token.sigil === ">*", indent: token.indent })
        break
      case "#":
      case "^":
      case "$":
      case "<":
      case "<*":
        // The root frame is not a level: `stack.length` is the depth this tag opens.
        if (stack.length > MAX_TEMPLATE_DEPTH) {
          fail(source, token.start, `Sections are nested deeper than ${MAX_TEMPLATE_DEPTH} levels`)
        }
        stack.push({ sigil: token.sigil, name: token.content, start: token.start, nodes: [], blocks: new Map() })
        break
      case "/": {
        if (stack.length === 1) fail(source, token.start, `Closing tag '${token.content}' without an opening tag`)
        const opened = stack.pop()!
        if (opened.name !== token.content) {
          fail(source, token.start, `Closing tag '${token.content}' does not match the open section '${opened.name}'`)
        }
        const parent = stack[stack.length - 1]
        const inParent = parent.sigil === "<" || parent.sigil === "<*"
        if (opened.sigil === "$") {
          // Inside a parent tag a block is an override; elsewhere it renders its default content.
          if (inParent) parent.blocks.set(opened.name, opened.nodes)
          else parent.nodes.push({ kind: "block", name: opened.name, children: opened.nodes })
        } else if (inParent) {
          break
        } else if (opened.sigil === "<" || opened.sigil === "<*") {
          const indent = tokens.find((t): t is Tag => t.kind === "tag" && t.start === opened.start)?.indent ?? ""
          parent.nodes.push({
            kind: "parent",
            name: opened.name,
            dynamic: opened.sigil === "<*",
            indent,
            blocks: opened.blocks
          })
        } else {
          parent.nodes.push({
            kind: "section",
            name: opened.name,
            path: toPath(opened.name),
            inverted: opened.sigil === "^",
            children: opened.nodes
          })
        }
        break
      }
    }
  }
  if (stack.length > 1) {
    const open = stack[stack.length - 1]
    fail(source, open.start, `Unclosed section '${open.name}'`)
  }
  return root.nodes
}

const collectPartials = (nodes: ReadonlyArray<Node>, into: Map<string, PartialReference>) => {
  for (const node of nodes) {
    switch (node.kind) {
      case "partial":
      case "parent":
        into.set(`${node.dynamic ? "*" : ""}${node.name}`, { name: node.name, dynamic: node.dynamic })
        if (node.kind === "parent") { for (const block of node.blocks.values()) collectPartials(block, into) }
        break
      case "section":
      case "block":
        collectPartials(node.children, into)
        break
    }
  }
}

/**
 * A template's nodes and the partials it names directly; throws `TemplateSyntaxError` for an unclosed
 * section or tag, a bad delimiter, or nesting deeper than `MAX_TEMPLATE_DEPTH`.
 */
export const parse = (source: string) => {
  const nodes = build(source, tokenize(source))
  const references = new Map<string, PartialReference>()
  collectPartials(nodes, references)
  return { nodes, partials: [...references.values()] }
}
