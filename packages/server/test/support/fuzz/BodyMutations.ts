/**
 * Mutations of a valid JSON body: fields dropped, duplicated, retyped, wrapped in arrays or joined by extra
 * ones, and whole bodies that are not JSON, not UTF-8, empty or absent.
 */
import fc from "fast-check"
import {
  classicValuesFor,
  hostileKey,
  hostileValue,
  hostileValueFor,
  type JsonNode,
  type Labelled,
  toNode,
  writeJson
} from "./HostileValues.ts"

/** What is sent as the body: text, raw bytes, or nothing at all. */
export type BodyBytes = string | Uint8Array | undefined

type Path = ReadonlyArray<number>

interface Located {
  readonly path: Path
  readonly name: string
  readonly node: JsonNode
}

/** Every node of the tree with a readable name (`body.config.provider`, `body.scopes[0]`). */
const locate = (node: JsonNode, path: Path = [], name = "body"): Array<Located> => {
  const here = { path, name, node }
  switch (node._tag) {
    case "Array":
      return [here, ...node.items.flatMap((item, i) => locate(item, [...path, i], `${name}[${i}]`))]
    case "Object":
      return [here, ...node.entries.flatMap(([key, value], i) => locate(value, [...path, i], `${name}.${key}`))]
    default:
      return [here]
  }
}

/** The tree with the node at `path` replaced by what `change` returns: nodes to put there (none drops it). */
const update = (node: JsonNode, path: Path, change: (node: JsonNode) => ReadonlyArray<JsonNode>): JsonNode => {
  if (path.length === 0) return change(node)[0] ?? node
  const [index, ...rest] = path
  const inner = (child: JsonNode) => rest.length === 0 ? change(child) : [update(child, rest, change)]
  switch (node._tag) {
    case "Array":
      return { _tag: "Array", items: node.items.flatMap((item, i) => i === index ? inner(item) : [item]) }
    case "Object":
      return {
        _tag: "Object",
        entries: node.entries.flatMap(([key, value], i) =>
          i === index ? inner(value).map((v) => [key, v] as const) : [[key, value] as const]
        )
      }
    default:
      return node
  }
}

const addEntry = (node: JsonNode, path: Path, key: string, value: JsonNode): JsonNode =>
  update(
    node,
    path,
    (target) => target._tag === "Object" ? [{ _tag: "Object", entries: [...target.entries, [key, value]] }] : [target]
  )

type TreeMutation = (tree: JsonNode) => Labelled<JsonNode>

/** The node replaced by a hostile value, mostly of its own type. */
const replaced = (at: Located): fc.Arbitrary<TreeMutation> =>
  hostileValueFor(at.node).map((value) => (tree) => ({
    label: `${at.name} := ${value.label}`,
    value: update(tree, at.path, () => [value.value])
  }))

const treeMutations = (nodes: ReadonlyArray<Located>): fc.Arbitrary<TreeMutation> => {
  const anyNode = fc.constantFrom(...nodes)
  const inner = nodes.filter((n) => n.path.length > 0)
  const innerNode = inner.length > 0 ? fc.constantFrom(...inner) : anyNode
  // Replacing a value with a hostile one finds the most; the structural changes are a lighter share.
  return fc.oneof(
    {
      weight: 4,
      // The request's own fields (depth 1) weigh more than what is nested in free-form JSON objects.
      arbitrary: fc.oneof(...nodes.map((at) => ({ weight: at.path.length === 1 ? 3 : 1, arbitrary: replaced(at) })))
    },
    innerNode.map((at): TreeMutation => (tree) => ({
      label: `${at.name} dropped`,
      value: update(tree, at.path, () => [])
    })),
    fc.tuple(innerNode, fc.option(hostileValue, { nil: undefined })).map(([at, value]): TreeMutation => (tree) => ({
      label: `${at.name} duplicated${value === undefined ? "" : ` with ${value.label}`}`,
      value: update(tree, at.path, (node) => [node, value?.value ?? node])
    })),
    anyNode.map((at): TreeMutation => (tree) => ({
      label: `${at.name} wrapped in an array`,
      value: update(tree, at.path, (node) => [{ _tag: "Array", items: [node] }])
    })),
    fc.tuple(anyNode, hostileKey, hostileValue).map(([at, key, value]): TreeMutation => (tree) => ({
      label: `${at.name}[${JSON.stringify(key)}] added := ${value.label}`,
      value: addEntry(tree, at.path, key, value.value)
    }))
  )
}

const INVALID_UTF8 = [Uint8Array.of(0xff, 0xfe), Uint8Array.of(0xc0, 0xaf), Uint8Array.of(0xed, 0xa0, 0x80)]

const withBytes = (text: string, at: number, bytes: Uint8Array) => {
  const encoded = new TextEncoder().encode(text)
  const cut = Math.min(at, encoded.length)
  return new Uint8Array([...encoded.subarray(0, cut), ...bytes, ...encoded.subarray(cut)])
}

/** Bodies that are not the example at all: broken JSON, other JSON types, bad bytes, nothing. */
const wholeBodies = (exampleText: string): fc.Arbitrary<Labelled<BodyBytes>> =>
  fc.oneof(
    fc.constantFrom<Labelled<BodyBytes>>(
      { label: "no body", value: undefined },
      { label: "empty body", value: "" },
      { label: "only whitespace", value: " \n\t " },
      { label: "unclosed object", value: "{" },
      { label: "missing value", value: "{\"a\":}" },
      { label: "single quotes", value: "{'name':'x'}" },
      { label: "trailing comma", value: "[1,]" },
      { label: "null", value: "null" },
      { label: "an array", value: "[]" },
      { label: "a number", value: "42" },
      { label: "a string", value: "\"text\"" },
      { label: "BOM before the example", value: `\ufeff${exampleText}` },
      { label: "example twice", value: `${exampleText}${exampleText}` },
      { label: "example then garbage", value: `${exampleText}garbage` },
      { label: "example in an array", value: `[${exampleText}]` },
      { label: "10,000-deep array body", value: `${"[".repeat(10_000)}${"]".repeat(10_000)}` },
      { label: "10,000-deep object body", value: `${"{\"a\":".repeat(10_000)}1${"}".repeat(10_000)}` }
    ),
    fc.nat({ max: Math.max(0, exampleText.length - 1) }).map((n) => ({
      label: `example cut at ${n}`,
      value: exampleText.slice(0, n)
    })),
    fc.tuple(fc.nat({ max: exampleText.length }), fc.constantFrom(...INVALID_UTF8)).map(([at, bytes]) => ({
      label: `invalid UTF-8 ${[...bytes].map((b) => b.toString(16)).join(" ")} at byte ${at}`,
      value: withBytes(exampleText, at, bytes)
    })),
    fc.string({ unit: "binary", maxLength: 60 }).map((s) => ({ label: `random text ${JSON.stringify(s)}`, value: s }))
  )

/**
 * Mutations of the example body: usually one to three changes inside the tree, sometimes a whole other
 * body. For endpoints without a body, bodies they should ignore or refuse.
 */
export const bodyMutation = (example: unknown): fc.Arbitrary<Labelled<BodyBytes>> => {
  if (example === undefined) return wholeBodies("{}")
  const tree = toNode(example)
  const exampleText = writeJson(tree)
  const inTree = fc.array(treeMutations(locate(tree)), { minLength: 1, maxLength: 3 }).map((changes) => {
    let current = tree
    const labels: Array<string> = []
    for (const change of changes) {
      const changed = change(current)
      current = changed.value
      labels.push(changed.label)
    }
    return { label: labels.join("; "), value: writeJson(current) }
  })
  return fc.oneof({ weight: 4, arbitrary: inTree }, { weight: 1, arbitrary: wholeBodies(exampleText) })
}

/** The example body as sent unmutated. */
export const exampleBody = (example: unknown): BodyBytes => example === undefined ? undefined : JSON.stringify(example)

/**
 * The classic body mutations: every field of the example replaced by each of its classic values, and the
 * bodies that broke parsers (too deep, unclosed, empty).
 */
export const classicBodies = (example: unknown): ReadonlyArray<Labelled<BodyBytes>> => {
  const whole: Array<Labelled<BodyBytes>> = [
    { label: "10,000-deep array body", value: `${"[".repeat(10_000)}${"]".repeat(10_000)}` },
    { label: "unclosed object", value: "{" },
    { label: "empty body", value: "" }
  ]
  if (example === undefined) return []
  const tree = toNode(example)
  const fields = locate(tree).filter((at) => at.path.length > 0)
  return [
    ...fields.flatMap((at) =>
      classicValuesFor(at.node).map((value) => ({
        label: `${at.name} := ${value.label}`,
        value: writeJson(update(tree, at.path, () => [value.value]))
      }))
    ),
    ...whole
  ]
}
