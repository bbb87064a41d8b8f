/**
 * Portkey's OpenAPI document (`../shared/conformance/portkey/openapi.yaml`) as the contract answers are checked
 * against: its request examples, and a validator of an answer against the response schema of an operation.
 * Like the other conformance data, a clone without it skips (REQUIRE_CONFORMANCE=1 fails instead).
 */
import { Ajv, type ValidateFunction } from "ajv"
import { load } from "js-yaml"
import { existsSync, readFileSync } from "node:fs"

const file = new URL("../../../../../shared/conformance/portkey/openapi.yaml", import.meta.url)

interface Operation {
  readonly requestBody?: {
    readonly content?: Record<
      string,
      { readonly example?: unknown; readonly examples?: Record<string, { value: unknown }> }
    >
  }
  readonly responses: Record<string, { readonly content?: Record<string, { readonly schema?: object }> }>
}

export interface PortkeyDocument {
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, object> }
}

/** The document, or undefined when it is not beside the project (and REQUIRE_CONFORMANCE is not set). */
export const readPortkeyOpenApi = (): PortkeyDocument | undefined => {
  if (existsSync(file)) return load(readFileSync(file, "utf8")) as PortkeyDocument
  if (process.env.REQUIRE_CONFORMANCE === "1") throw new Error(`REQUIRE_CONFORMANCE=1 but ${file.pathname} is missing`)
  console.warn(`\n*** conformance SKIPPED: ${file.pathname} is missing (set REQUIRE_CONFORMANCE=1 to fail) ***\n`)
  return undefined
}

const operationOf = (document: PortkeyDocument, path: string, method: string): Operation => {
  const operation = document.paths[path]?.[method]
  if (operation === undefined) throw new Error(`Portkey's document has no ${method.toUpperCase()} ${path}`)
  return operation
}

/** The request examples Portkey's document gives an operation, by name (`example` alone is named `example`). */
export const requestExamples = (document: PortkeyDocument, path: string, method: string): Record<string, unknown> => {
  const json = operationOf(document, path, method).requestBody?.content?.["application/json"]
  const schemaExample = (json as { readonly schema?: { readonly example?: unknown } } | undefined)?.schema?.example
  return {
    ...(json?.example === undefined ? {} : { example: json.example }),
    ...(schemaExample === undefined ? {} : { example: schemaExample }),
    ...Object.fromEntries(Object.entries(json?.examples ?? {}).map(([name, { value }]) => [name, value]))
  }
}

/**
 * The schema with each `nullable` that has no `type` beside it dropped: OpenAPI 3.0.3 gives such a `nullable` no
 * effect ("a true value adds null to the allowed types only if type is explicitly defined"), and Ajv refuses to
 * compile it (Portkey's `PromptRenderResponse` has some).
 */
const withoutTypelessNullable = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(withoutTypelessNullable)
  if (schema === null || typeof schema !== "object") return schema
  const entries = Object.entries(schema).filter(([key]) => key !== "nullable" || "type" in schema)
  return Object.fromEntries(entries.map(([key, value]) => [key, withoutTypelessNullable(value)]))
}

const newAjv = (document: PortkeyDocument) => {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })
  ajv.addSchema({ components: withoutTypelessNullable(document.components) }, "portkey")
  return ajv
}

const errorsOf = (validate: ValidateFunction, body: unknown): ReadonlyArray<string> =>
  validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""}`)

/** Validates a body against one of the document's component schemas (`ErrorResponse`). */
export const makeSchemaValidator = (document: PortkeyDocument, name: string) => {
  const validate = newAjv(document).compile({ $ref: `portkey#/components/schemas/${name}` })
  return (body: unknown) => errorsOf(validate, body)
}

/**
 * Validates answers against the document's response schemas. The document is OpenAPI 3.0 (`nullable`, examples
 * beside schemas): Ajv takes it without strict mode; formats are not checked (the document's `uuid` ids are
 * not all UUIDs in its own examples).
 */
export const makeResponseValidator = (document: PortkeyDocument) => {
  const ajv = newAjv(document)
  const compiled = new Map<string, ValidateFunction>()
  const refsToDocument = (schema: object): object =>
    JSON.parse(JSON.stringify(schema).replaceAll("\"#/components/", "\"portkey#/components/"))

  /** The errors of `body` against the schema of the operation's 2xx answer (the first one documented); [] when none. */
  return (path: string, method: string, body: unknown): ReadonlyArray<string> => {
    const key = `${method} ${path}`
    let validate = compiled.get(key)
    if (validate === undefined) {
      const responses = operationOf(document, path, method).responses
      const success = Object.keys(responses).find((status) => status.startsWith("2"))
      const schema = success === undefined ? undefined : responses[success]?.content?.["application/json"]?.schema
      validate = ajv.compile(schema === undefined ? {} : refsToDocument(withoutTypelessNullable(schema) as object))
      compiled.set(key, validate)
    }
    return errorsOf(validate, body)
  }
}

const portkeyDocument = readPortkeyOpenApi()
const validateAnswer = portkeyDocument === undefined ? undefined : makeResponseValidator(portkeyDocument)

/**
 * Fails with ajv's errors unless `body` is valid by the document's answer to `method path` (the document's
 * path, e.g. `/collections/{collectionId}`); does nothing when the document is absent (see `readPortkeyOpenApi`).
 */
export const checkPortkeyAnswer = (method: string, path: string, body: unknown): void => {
  const errors = validateAnswer?.(path, method.toLowerCase(), body) ?? []
  if (errors.length > 0) throw new Error(`${method} ${path}: ${errors.join("; ")}\n${JSON.stringify(body)}`)
}

/** The document's configuration schema of each provider type of an integration. */
const CONFIGURATION_SCHEMAS: Readonly<Record<string, string>> = {
  openai: "OpenAIConfiguration",
  "azure-openai": "AzureOpenAIConfiguration",
  bedrock: "BedrockConfiguration",
  "vertex-ai": "VertexAIConfiguration",
  "together-ai": "CustomHostConfiguration",
  "fireworks-ai": "CustomHostConfiguration"
}

/**
 * `checkPortkeyAnswer` for an integration: its `configurations` checked against its provider type's schema. The
 * document's `oneOf` of every type's schema holds for no object at all (`OpenAIConfiguration` and
 * `CustomHostConfiguration` require nothing, so any object matches both), so the rest of the answer is checked
 * without it.
 */
export const checkPortkeyIntegrationAnswer = (method: string, path: string, body: unknown): void => {
  if (portkeyDocument === undefined) return
  const { configurations, ...rest } = body as { readonly configurations?: unknown; readonly ai_provider_id: string }
  checkPortkeyAnswer(method, path, rest)
  const schema = CONFIGURATION_SCHEMAS[rest.ai_provider_id]
  if (schema === undefined) throw new Error(`no configuration schema for ${rest.ai_provider_id}`)
  const errors = makeSchemaValidator(portkeyDocument, schema)(configurations)
  if (errors.length > 0) throw new Error(`${method} ${path} configurations: ${errors.join("; ")}`)
}
