/**
 * The command lines the README tells a reader to type, read from the README itself so that a command added to it
 * is covered without touching the test: every line of its ```sh blocks, and every `code span` outside them that
 * starts with a command (its "Commands" table and the prose, e.g. `npx gateway-control --help`).
 */

export interface ReadmeCommand {
  /** The command as the README writes it, placeholders and all. */
  readonly text: string
  /** The README line it starts on. */
  readonly line: number
  /** The ```sh block it belongs to (its opening line), for lines that use the block's earlier assignments. */
  readonly block: number | undefined
}

/** What a code span must start with to be a command line, not a name (`PORT`) or a snippet of code. */
const COMMAND_START = /^(?:[A-Z_]+=\S+ )*(?:npx|npm|node|bash|curl|node_modules\/\.bin\/node) \S/

/**
 * A ```sh block's logical lines: a backslash at the end of a line and a newline inside quotes continue the
 * line, `#` outside quotes starts a comment (whole-line comments show a command's output).
 */
export const shellLines = (body: string): Array<{ readonly text: string; readonly offset: number }> => {
  const lines: Array<{ text: string; offset: number }> = []
  let current = ""
  let startLine = 0
  let lineNo = 0
  let quote: "'" | "\"" | undefined
  for (let i = 0; i < body.length; i++) {
    const char = body[i]
    if (quote === undefined && char === "#" && (current === "" || /\s$/.test(current))) {
      while (i + 1 < body.length && body[i + 1] !== "\n") i++
      continue
    }
    if (char === "\\" && quote !== "'" && i + 1 < body.length) {
      current += char + body[++i]
      if (body[i] === "\n") lineNo++
      continue
    }
    if (char === "'" || char === "\"") {
      if (quote === undefined) quote = char
      else if (quote === char) quote = undefined
    }
    if (char === "\n") {
      lineNo++
      if (quote === undefined) {
        if (current.trim() !== "") lines.push({ text: current.trim(), offset: startLine })
        current = ""
        startLine = lineNo
        continue
      }
    }
    if (current === "" && /\s/.test(char)) {
      continue
    }
    if (current === "") startLine = lineNo
    current += char
  }
  if (current.trim() !== "") lines.push({ text: current.trim(), offset: startLine })
  return lines
}

/** Every command line of the README, in the order it gives them, each once. */
export const readmeCommands = (readme: string): Array<ReadmeCommand> => {
  const found: Array<ReadmeCommand> = []
  const lines = readme.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)\s*$/.exec(lines[i])
    if (fence !== null) {
      const start = i
      const body: Array<string> = []
      for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i])
      if (fence[1] === "sh") {
        for (const { offset, text } of shellLines(body.join("\n"))) {
          found.push({ text, line: start + 2 + offset, block: start + 1 })
        }
      }
      continue
    }
    for (const span of lines[i].matchAll(/`([^`]+)`/g)) {
      if (COMMAND_START.test(span[1])) found.push({ text: span[1], line: i + 1, block: undefined })
    }
  }
  const seen = new Set<string>()
  return found.filter((command) => !seen.has(command.text) && seen.add(command.text))
}

/** A shell assignment alone on its line (`KEY=…`, `WS=$(…)`): later lines of its block use it. */
export const isAssignment = (text: string) => /^[A-Za-z_]\w*=(?:\S+|\$\(.*\))$/s.test(text)
