/**
 * What the console reads out of a template as it is typed: the variables it names, chat messages as a list
 * instead of JSON text, and a line diff of two versions. The server stays the judge: these only help editing.
 */

export interface Variable {
  readonly name: string
  /** Named by a section (`{{#name}}` or `{{^name}}`): a list, an object or a flag rather than text. */
  readonly section: boolean
}

const TAG = /\{\{\{\s*([^}]+?)\s*\}\}\}|\{\{\s*([#^/&!>=<$]?)\s*([^}]*?)\s*\}\}/g

/**
 * The variables a Mustache template names, in order of first use: `{{name}}`, `{{{name}}}`, `{{& name}}` and
 * sections. Names inside a section are looked up in its items first, so only the ones outside any section,
 * and the sections themselves, are the template's own; partials, comments and `.` are not variables.
 */
export const variablesOf = (templates: ReadonlyArray<string>): ReadonlyArray<Variable> => {
  const found = new Map<string, Variable>()
  for (const template of templates) {
    const open: Array<string> = []
    for (const match of template.matchAll(TAG)) {
      const sigil = match[1] !== undefined ? "&" : match[2]!
      const name = (match[1] ?? match[3] ?? "").trim()
      if (sigil === "/") {
        if (open.at(-1) === name) open.pop()
        continue
      }
      // `{{>>name}}`: a partial whose slug is the variable's value.
      const dynamicPartial = sigil === ">" && name.startsWith(">")
      if (!dynamicPartial && (sigil === "!" || sigil === ">" || sigil === "=" || sigil === "<" || sigil === "$")) {
        continue
      }
      const variable = dynamicPartial ? name.slice(1).trim() : name
      if (variable === "" || variable === ".") continue
      const section = sigil === "#" || sigil === "^"
      if (open.length === 0 && !found.has(variable)) found.set(variable, { name: variable, section })
      if (section) open.push(variable)
    }
  }
  return [...found.values()]
}

export const ROLES = ["system", "developer", "user", "assistant", "tool"] as const

export interface Message {
  readonly role: string
  readonly content: string
}

/** A chat template's messages, when it is a JSON list of `{role, content}` with text content; else undefined. */
export const parseMessages = (template: string): Array<Message> | undefined => {
  try {
    const value: unknown = JSON.parse(template)
    if (!Array.isArray(value)) return undefined
    const messages: Array<Message> = []
    for (const item of value) {
      if (typeof item !== "object" || item === null) return undefined
      const { role, content, ...rest } = item as Record<string, unknown>
      if (typeof role !== "string" || typeof content !== "string" || Object.keys(rest).length > 0) return undefined
      messages.push({ role, content })
    }
    return messages
  } catch {
    return undefined
  }
}

export const serializeMessages = (messages: ReadonlyArray<Message>) =>
  JSON.stringify(messages.map(({ role, content }) => ({ role, content })))

/** A version as lines to compare: its model and parameters, then its messages or text. */
export const versionText = (version: {
  readonly string: string
  readonly model: string | null
  readonly parameters: Readonly<Record<string, unknown>>
}): Array<string> => {
  const messages = parseMessages(version.string)
  const head = [`model: ${version.model ?? "—"}`, `parameters: ${JSON.stringify(version.parameters)}`, ""]
  const body = messages === undefined
    ? version.string.split("\n")
    : messages.flatMap((m) => [`── ${m.role} ──`, ...m.content.split("\n")])
  return [...head, ...body]
}

export type DiffRow =
  | { readonly kind: "same"; readonly left: string; readonly right: string }
  | { readonly kind: "changed"; readonly left: string | undefined; readonly right: string | undefined }

/** Past this many cells the diff shows the versions side by side without aligning them. */
const MAX_CELLS = 4_000_000

/** A side-by-side line diff: the longest common subsequence aligned, the rest paired up as changes. */
export const diffLines = (left: ReadonlyArray<string>, right: ReadonlyArray<string>): Array<DiffRow> => {
  const n = left.length
  const m = right.length
  if (n * m > MAX_CELLS) {
    return Array.from({ length: Math.max(n, m) }, (_, i) =>
      left[i] === right[i]
        ? { kind: "same" as const, left: left[i]!, right: right[i]! }
        : { kind: "changed" as const, left: left[i], right: right[i] })
  }
  // lengths[i][j]: the longest common subsequence of left[i..] and right[j..].
  const lengths = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1))
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i]![j] = left[i] === right[j]
        ? lengths[i + 1]![j + 1]! + 1
        : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!)
    }
  }
  const rows: Array<DiffRow> = []
  let removed: Array<string> = []
  let added: Array<string> = []
  const flush = () => {
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      rows.push({ kind: "changed", left: removed[k], right: added[k] })
    }
    removed = []
    added = []
  }
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && left[i] === right[j]) {
      flush()
      rows.push({ kind: "same", left: left[i]!, right: right[j]! })
      i++
      j++
    } else if (j < m && (i === n || lengths[i]![j + 1]! >= lengths[i + 1]![j]!)) {
      added.push(right[j++]!)
    } else {
      removed.push(left[i++]!)
    }
  }
  flush()
  return rows
}
