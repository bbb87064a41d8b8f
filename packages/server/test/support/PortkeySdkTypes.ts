/**
 * Portkey's Node SDK (`portkey-ai`, the devDependency) read two ways, so a test can hold the gateway to it:
 * - `sdkMethods`: every method of the SDK's resource objects under the given families, found on a live client's
 *   class prototypes (`admin.workspaces.users.create`, …), so a method a new SDK adds cannot go unnoticed;
 * - `declaredAnswerErrors`: an answer checked against the type the SDK's `.d.ts` declares for that method's
 *   `APIPromise<T>`, read with the TypeScript compiler: every declared property present carries the declared JSON
 *   type (a `Date` arrives as an ISO 8601 string, as JSON has no dates; `null` only where declared), and a
 *   property the SDK declares required is present. `any` admits anything, as it does in the SDK.
 */
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import ts from "typescript"

const require = createRequire(import.meta.url)
const sdkRoot = dirname(dirname(require.resolve("portkey-ai")))
const clientDts = join(sdkRoot, "src", "client.d.ts")

/** The paths (`family.resource.method`) of every method under `families` of a live SDK client. */
export const sdkMethods = (client: object, families: ReadonlyArray<string>): ReadonlyArray<string> => {
  const found: Array<string> = []
  const seen = new Set<object>()
  const walk = (value: unknown, path: string): void => {
    if (value === null || typeof value !== "object" || seen.has(value)) return
    seen.add(value)
    const prototype = Object.getPrototypeOf(value) as Record<string, unknown> | null
    if (prototype === null || prototype === Object.prototype) return
    for (const name of Object.getOwnPropertyNames(prototype)) {
      if (name !== "constructor" && typeof prototype[name] === "function") found.push(`${path}.${name}`)
    }
    for (const [key, child] of Object.entries(value)) {
      if (key !== "client" && !key.startsWith("_")) walk(child, `${path}.${key}`)
    }
  }
  for (const family of families) walk((client as Record<string, unknown>)[family], family)
  return found.sort()
}

let compiled: { readonly checker: ts.TypeChecker; readonly portkey: ts.Type } | undefined

const program = () => {
  if (compiled !== undefined) return compiled
  const built = ts.createProgram([clientDts], { noEmit: true, skipLibCheck: true, types: [], strict: true })
  const checker = built.getTypeChecker()
  const source = built.getSourceFile(clientDts)
  if (source === undefined) throw new Error(`cannot read ${clientDts}`)
  let portkey: ts.Type | undefined
  source.forEachChild((node) => {
    if (ts.isClassDeclaration(node) && node.name?.text === "Portkey") portkey = checker.getTypeAtLocation(node)
  })
  if (portkey === undefined) throw new Error(`no class Portkey in ${clientDts}`)
  compiled = { checker, portkey }
  return compiled
}

/** The type the SDK declares a method (`admin.workspaces.create`) answers: the T of its `APIPromise<T>`. */
const answerType = (method: string): ts.Type => {
  const { checker, portkey } = program()
  let type = portkey
  for (const name of method.split(".")) {
    const property = checker.getPropertyOfType(type, name)
    if (property === undefined) throw new Error(`the SDK's types have no ${method} (at ${name})`)
    type = checker.getTypeOfSymbol(property)
  }
  const signatures = type.getCallSignatures()
  if (signatures.length === 0) throw new Error(`the SDK's ${method} is not a method`)
  // Overloads (a streaming one) declare different answers: the last is the one of the implementation.
  const returned = signatures[signatures.length - 1].getReturnType()
  const name = returned.getSymbol()?.getName()
  if (name !== "APIPromise" && name !== "Promise") return returned
  const [answer] = checker.getTypeArguments(returned as ts.TypeReference)
  if (answer === undefined) throw new Error(`the SDK's ${method} answers ${checker.typeToString(returned)}`)
  return answer
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/

const errorsAt = (type: ts.Type, value: unknown, at: string, depth: number): ReadonlyArray<string> => {
  const { checker } = program()
  const flags = type.getFlags()
  const describe = () => `${at || "the answer"}: ${JSON.stringify(value)} is not ${checker.typeToString(type)}`
  if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown) || depth > 12) return []
  if (type.isUnion()) {
    if (type.types.some((member) => errorsAt(member, value, at, depth + 1).length === 0)) return []
    // One type besides null and undefined: its own errors say where inside it the answer differs.
    const present = type.types.filter((member) => !(member.getFlags() & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)))
    return present.length === 1 && value !== null && value !== undefined
      ? errorsAt(present[0], value, at, depth + 1)
      : [describe()]
  }
  if (type.isIntersection()) return type.types.flatMap((member) => errorsAt(member, value, at, depth + 1))
  if (flags & ts.TypeFlags.Null) return value === null ? [] : [describe()]
  if (flags & ts.TypeFlags.Undefined) return value === undefined ? [] : [describe()]
  if (type.isStringLiteral() || type.isNumberLiteral()) return value === type.value ? [] : [describe()]
  if (flags & ts.TypeFlags.BooleanLiteral) {
    return value === (checker.typeToString(type) === "true") ? [] : [describe()]
  }
  if (flags & ts.TypeFlags.StringLike) return typeof value === "string" ? [] : [describe()]
  if (flags & ts.TypeFlags.NumberLike) return typeof value === "number" ? [] : [describe()]
  if (flags & ts.TypeFlags.BooleanLike) return typeof value === "boolean" ? [] : [describe()]
  if (!(flags & ts.TypeFlags.Object)) return []
  if (type.getCallSignatures().length > 0) return []
  if (type.getSymbol()?.getName() === "Date") {
    return typeof value === "string" && ISO_8601.test(value) ? [] : [describe()]
  }
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    if (!Array.isArray(value)) return [describe()]
    const [item] = checker.getTypeArguments(type as ts.TypeReference)
    return item === undefined ? [] : value.flatMap((element, i) => errorsAt(item, element, `${at}[${i}]`, depth + 1))
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [describe()]
  const record = value as Record<string, unknown>
  const errors: Array<string> = []
  const declared = new Set<string>()
  for (const property of checker.getPropertiesOfType(type)) {
    const name = property.getName()
    declared.add(name)
    const propertyType = checker.getTypeOfSymbol(property)
    if (propertyType.getCallSignatures().length > 0) continue // getHeaders(), added by the SDK
    const optional = (property.getFlags() & ts.SymbolFlags.Optional) !== 0
    if (!(name in record)) {
      if (!optional) errors.push(`${at}.${name}: required by the SDK's type, absent`)
      continue
    }
    errors.push(...errorsAt(propertyType, record[name], `${at}.${name}`, depth + 1))
  }
  const index = checker.getIndexInfosOfType(type).find((info) => info.keyType.getFlags() & ts.TypeFlags.String)
  if (index !== undefined) {
    for (const [name, element] of Object.entries(record)) {
      if (!declared.has(name)) errors.push(...errorsAt(index.type, element, `${at}.${name}`, depth + 1))
    }
  }
  return errors
}

/**
 * The ways `answer` differs from what the SDK declares its `method` (`admin.workspaces.create`) answers; [] when
 * it conforms. The answer is taken as it went over the wire (JSON), without the SDK's `getHeaders`.
 */
export const declaredAnswerErrors = (method: string, answer: unknown): ReadonlyArray<string> =>
  errorsAt(answerType(method), answer === undefined ? undefined : JSON.parse(JSON.stringify(answer)), "", 0)

/** The type the SDK declares `method` answers, as TypeScript prints it (for messages). */
export const declaredAnswer = (method: string): string => program().checker.typeToString(answerType(method))
