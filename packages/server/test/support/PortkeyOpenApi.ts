/**
 * Portkey's OpenAPI document (../shared/conformance/portkey/openapi.yaml) as a test's contract: the response
 * schema of an operation, compiled with ajv (OpenAPI 3.0's `nullable` included), to validate our answers.
 */
import { Ajv, type ValidateFunction } from "ajv"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { parse } from "yaml"

const documentPath = fileURLToPath(new URL("../../../../../shared/conformance/portkey/openapi.yaml", import.meta.url))

export const portkeyDocument: any = parse(readFileSync(documentPath, "utf8"))

const ajv = new Ajv({
  strict: false,
  allErrors: true,
  formats: {
    "date-time": (text: string) => !Number.isNaN(Date.parse(text)),
    uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
  }
})
ajv.addSchema({ components: portkeyDocument.components }, "portkey")

/**
 * The validator of Portkey's `status` answer to `method path` (the document's path, e.g. `/collections/{collectionId}`).
 * References into `components` resolve against the document.
 */
export const portkeyResponse = (method: string, path: string, status = 200): ValidateFunction => {
  const operation = portkeyDocument.paths[path]?.[method.toLowerCase()]
  if (operation === undefined) throw new Error(`Portkey's document has no ${method} ${path}`)
  const schema = operation.responses[String(status)]?.content?.["application/json"]?.schema
  if (schema === undefined) throw new Error(`Portkey's document has no ${status} JSON answer to ${method} ${path}`)
  const rewritten = JSON.parse(
    JSON.stringify(schema).replaceAll("\"#/components/", "\"portkey#/components/")
  )
  return ajv.compile(rewritten)
}

/** Fails with ajv's errors unless `body` is valid by Portkey's answer to `method path`. */
export const checkPortkeyAnswer = (method: string, path: string, body: unknown, status = 200): void => {
  const validate = portkeyResponse(method, path, status)
  if (!validate(body)) {
    throw new Error(`${method} ${path}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(body)}`)
  }
}
