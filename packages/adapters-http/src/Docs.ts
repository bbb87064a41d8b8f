/**
 * `GET /docs`: the interactive API reference (Scalar, bundled inline so it works air-gapped), served
 * gzip-compressed when the client accepts it, with an ETag and a cache lifetime. The page is ~3 MB
 * uncompressed, so it is compressed once and the result reused.
 */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiScalar } from "effect/http-api"
import { createHash } from "node:crypto"
import { gzipSync } from "node:zlib"
import { GatewayApi } from "./Api.ts"

interface Prepared {
  readonly plain: Uint8Array
  readonly gzip: Uint8Array
  readonly etag: string
  readonly contentType: string
}

const prepare = (response: HttpServerResponse.HttpServerResponse): Prepared | undefined => {
  const body = response.body
  if (body._tag !== "Uint8Array") return undefined
  const plain = body.body
  return {
    plain,
    gzip: gzipSync(plain, { level: 9 }),
    etag: `"${createHash("sha256").update(plain).digest("base64url").slice(0, 27)}"`,
    contentType: body.contentType
  }
}

const CompressedAndCached = HttpRouter.middleware((httpEffect) => {
  const prepared = new WeakMap<object, Prepared | undefined>()
  return Effect.gen(function*() {
    const response = yield* httpEffect
    let entry = prepared.get(response)
    if (!prepared.has(response)) {
      entry = prepare(response)
      prepared.set(response, entry)
    }
    if (entry === undefined) return response
    const request = yield* HttpServerRequest.HttpServerRequest
    const headers = {
      etag: entry.etag,
      "cache-control": "public, max-age=3600",
      vary: "accept-encoding"
    }
    if (request.headers["if-none-match"] === entry.etag) {
      return HttpServerResponse.empty({ status: 304, headers })
    }
    const gzip = /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")
    return HttpServerResponse.uint8Array(gzip ? entry.gzip : entry.plain, {
      contentType: entry.contentType,
      headers: gzip ? { ...headers, "content-encoding": "gzip" } : headers
    })
  })
}).layer

export const layerDocs: Layer.Layer<never, never, HttpRouter.HttpRouter> = HttpApiScalar.layer(GatewayApi, {
  path: "/docs"
}).pipe(Layer.provide(CompressedAndCached))
