/**
 * `GET /docs`: the interactive API reference (Scalar, bundled inline so it works air-gapped), served
 * gzip-compressed when the client accepts it, with an ETag and a cache lifetime. The page is ~3 MB
 * uncompressed, so it is compressed once and the result reused.
 *
 * The page is made on the first request, not at start: Scalar's bundle is ~3 MB of JavaScript, which held
 * ~12 MB of heap in every process, most of which never serves the page.
 */
import type { Layer } from "effect"
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as HttpApiScalar from "effect/http-api/HttpApiScalar"
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

/** The page as Scalar makes it for the contract: its router, built for this one request and dropped. */
const makePage = Effect.scoped(
  Effect.flatMap(
    HttpRouter.toHttpEffect(HttpApiScalar.layer(GatewayApi, { path: "/docs", scalar: { withDefaultFonts: false } })),
    (scalar) => Effect.orDie(scalar)
  )
)

/** The page, compressed and cached, with revalidation. A page that is not bytes is served as it is. */
export const layerDocs: Layer.Layer<never, never, HttpRouter.HttpRouter> = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const page = yield* Effect.cached(Effect.map(makePage, (response) => prepare(response) ?? response))
    yield* router.add(
      "GET",
      "/docs",
      Effect.gen(function*() {
        const entry = yield* page
        if (HttpServerResponse.isHttpServerResponse(entry)) return entry
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
    )
  })
)
