import { SchemaIssue } from "effect"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** `["messages", 2, "content"]` → `messages[2].content`; the envelope's `param`. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string | null => {
  let out = ""
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`
    else out += out.length === 0 ? String(segment) : `.${String(segment)}`
  }
  return out.length === 0 ? null : out
}

/**
 * A field's problem as a sentence. The domain's shared rules (Rules.ts there) say what a field "must be", and
 * read the same whether the service or the decoding refuses: "name must be 1 to 255 characters.".
 */
const inSentence = (param: string, message: string) =>
  message.startsWith("must ") ? `${param} ${message}.` : `${param}: ${message}`

/** The first problem of a schema issue, as a message and the path of the offending field. */
export const firstProblem = (issue: SchemaIssue.Issue): { readonly message: string; readonly param: string | null } => {
  const problems = formatter(issue).issues
  const first = problems[0]
  if (first === undefined) return { message: "The request is invalid.", param: null }
  const param = formatPath((first.path ?? []).map((p) => (typeof p === "object" && p !== null ? p.key : p)))
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})` : ""
  return { message: param === null ? `${first.message}${more}` : `${inSentence(param, first.message)}${more}`, param }
}
