/**
 * Subject patterns: globs where `*` stands for any run of characters (`/` and `:` included) and every other
 * character for itself. Matched by a two-pointer scan that backtracks only to the last `*`, so a match takes at
 * most pattern × subject steps whatever the input: no regular expression, nothing catastrophic.
 */

export const MAX_SUBJECT_PATTERN_LENGTH = 256

export const matchesGlob = (pattern: string, subject: string): boolean => {
  let p = 0
  let s = 0
  let star = -1
  let resume = 0
  while (s < subject.length) {
    if (p < pattern.length && pattern[p] === "*") {
      star = p++
      resume = s
    } else if (p < pattern.length && pattern[p] === subject[s]) {
      p++
      s++
    } else if (star !== -1) {
      p = star + 1
      s = ++resume
    } else {
      return false
    }
  }
  while (p < pattern.length && pattern[p] === "*") p++
  return p === pattern.length
}

/** What is wrong with a pattern, or undefined: bounded length, and at least one character that is not `*`. */
export const subjectPatternProblem = (pattern: string): string | undefined => {
  if (pattern.length > MAX_SUBJECT_PATTERN_LENGTH) {
    return `subject_pattern may be at most ${MAX_SUBJECT_PATTERN_LENGTH} characters.`
  }
  if (!/[^*]/.test(pattern)) {
    return "subject_pattern must name something besides '*': a policy for every subject of an issuer is refused."
  }
  return undefined
}
