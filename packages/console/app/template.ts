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

/** A partial a template names outside any section: `{{>slug}}`, `{{>slug@N}}`, or `{{>>name}}` (the slug a variable's value). */
export interface PartialRef {
  /** The slug; for a dynamic partial, the variable whose value is the slug. */
  readonly name: string
  readonly version: number | undefined
  readonly dynamic: boolean
}

/** The partials a template expands outside sections, in order (their variables are the template's own). */
export const partialsOf = (template: string): ReadonlyArray<PartialRef> => {
  const found: Array<PartialRef> = []
  const open: Array<string> = []
  for (const match of template.matchAll(TAG)) {
    const sigil = match[1] !== undefined ? "&" : match[2]!
    const name = (match[1] ?? match[3] ?? "").trim()
    if (sigil === "#" || sigil === "^") open.push(name)
    if (sigil === "/" && open.at(-1) === name) open.pop()
    if (sigil !== ">" || open.length > 0) continue
    if (name.startsWith(">")) {
      found.push({ name: name.slice(1).trim(), version: undefined, dynamic: true })
      continue
    }
    const at = /^(.+)@(\d+)$/.exec(name)
    found.push({ name: at?.[1] ?? name, version: at === null ? undefined : Number(at[2]), dynamic: false })
  }
  return found
}

/** The most partials deep a render expands (the server's MAX_PARTIAL_DEPTH). */
const MAX_PARTIAL_DEPTH = 16

export interface DetectedVariables {
  readonly variables: ReadonlyArray<Variable & { readonly partial?: string }>
  /** Partials that could not be read (missing, archived, or not the caller's to read). */
  readonly unresolved: ReadonlyArray<string>
}

/**
 * The variables of templates and of the partials they expand, resolved as the render would: a partial's published
 * version (or `@N`), a dynamic partial through the value its variable has now, nested partials too. `load` answers
 * a partial's template, or undefined when it renders as missing.
 */
export const variablesWithPartials = async (
  templates: ReadonlyArray<string>,
  values: Readonly<Record<string, string>>,
  load: (slug: string, version: number | undefined) => Promise<string | undefined>
): Promise<DetectedVariables> => {
  const found = new Map<string, Variable & { readonly partial?: string }>()
  const unresolved = new Set<string>()
  const loaded = new Map<string, Promise<string | undefined>>()
  const visit = async (template: string, partial: string | undefined, depth: number): Promise<void> => {
    for (const variable of variablesOf([template])) {
      if (!found.has(variable.name)) {
        found.set(variable.name, partial === undefined ? variable : { ...variable, partial })
      }
    }
    if (depth >= MAX_PARTIAL_DEPTH) return
    for (const ref of partialsOf(template)) {
      const slug = ref.dynamic ? values[ref.name]?.trim() ?? "" : ref.name
      if (slug === "") continue
      const key = `${slug}@${ref.version ?? ""}`
      if (!loaded.has(key)) loaded.set(key, load(slug, ref.version).catch(() => undefined))
      const text = await loaded.get(key)!
      if (text === undefined) unresolved.add(slug)
      else await visit(text, slug, depth + 1)
    }
  }
  for (const template of templates) await visit(template, undefined, 0)
  return { variables: [...found.values()], unresolved: [...unresolved] }
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
