/**
 * Seeds and run counts of the randomised tests, read from the environment so that a printed seed replays
 * the same run and a longer run is one variable away.
 */
export const integerFromEnv = (name: string, fallback: () => number): number => {
  const text = process.env[name]
  if (text === undefined || text === "") return fallback()
  const value = Number(text)
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got '${text}'`)
  return value
}
