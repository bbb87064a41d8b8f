/**
 * The console's HTTP routes: `GET /` redirects to `/console`, and `/console` with every path under it answers
 * with the page (the app routes itself from the URL) or one of its assets. Every answer carries a strict
 * Content-Security-Policy and refuses framing; files go out compressed, with an ETag, and a matching
 * `If-None-Match` answers 304.
 */
import { Effect } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { type Asset, buildConsoleAssets, CONSOLE_PATH, type ConsoleAssets } from "./ConsoleAssets.ts"

/**
 * Scripts only from the process, plus the one inline import map by its hash (browsers load import maps
 * only inline); the API is called on the same origin only; no plugins, no framing, no base rewriting.
 */
export const contentSecurityPolicy = (importMapHash: string) =>
  [
    "default-src 'none'",
    `script-src 'self' '${importMapHash}'`,
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join("; ")

const securityHeaders = (assets: ConsoleAssets) => ({
  "content-security-policy": contentSecurityPolicy(assets.importMapHash),
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cross-origin-opener-policy": "same-origin"
})

type Encoding = "br" | "gzip"

/** The encodings a client accepts, by `Accept-Encoding` (a `q=0` refuses one). */
const acceptedEncodings = (header: string | undefined): ReadonlySet<string> =>
  new Set(
    (header ?? "").split(",").flatMap((part) => {
      const [name, ...parameters] = part.split(";").map((s) => s.trim().toLowerCase())
      const refused = parameters.some((p) => /^q=0(\.0*)?$/.test(p))
      return name === undefined || name === "" || refused ? [] : [name]
    })
  )

const chooseEncoding = (asset: Asset, header: string | undefined): Encoding | undefined => {
  const accepted = acceptedEncodings(header)
  if (asset.br !== undefined && accepted.has("br")) return "br"
  if (asset.gzip !== undefined && accepted.has("gzip")) return "gzip"
  return undefined
}

const etagOf = (asset: Asset, encoding: Encoding | undefined) =>
  `"${asset.etag}${encoding === undefined ? "" : `-${encoding}`}"`

const matches = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined &&
  (ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag))

const pathOf = (url: string) => {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

/**
 * The console's routes, over assets built once, on the first request to the console (the package's own
 * unless given): compressing them took ~0.3 s of every start, most of whose processes never serve it.
 */
export const layerConsole = (options: { readonly assets?: ConsoleAssets } = {}) =>
  HttpRouter.use((router) =>
    Effect.gen(function*() {
      let built: { readonly assets: ConsoleAssets; readonly security: ReturnType<typeof securityHeaders> } | undefined
      const consoleAssets = () => {
        if (built === undefined) {
          const assets = options.assets ?? buildConsoleAssets()
          built = { assets, security: securityHeaders(assets) }
        }
        return built
      }

      const send = (asset: Asset, request: HttpServerRequest.HttpServerRequest) => {
        const { security } = consoleAssets()
        const encoding = chooseEncoding(asset, request.headers["accept-encoding"])
        const etag = etagOf(asset, encoding)
        const headers = { ...security, etag, "cache-control": asset.cacheControl, vary: "accept-encoding" }
        if (matches(request.headers["if-none-match"], etag)) {
          return Effect.succeed(HttpServerResponse.empty({ status: 304, headers }))
        }
        const body = encoding === undefined ? asset.identity : asset[encoding]!
        return Effect.succeed(HttpServerResponse.uint8Array(body, {
          contentType: asset.contentType,
          headers: encoding === undefined ? headers : { ...headers, "content-encoding": encoding }
        }))
      }

      const notFound = Effect.sync(() =>
        HttpServerResponse.text("Not found", { status: 404, headers: consoleAssets().security })
      )

      yield* router.add(
        "GET",
        "/",
        Effect.sync(() => HttpServerResponse.redirect(CONSOLE_PATH, { status: 302, headers: consoleAssets().security }))
      )
      // The wildcard route answers `/console` itself too.
      yield* router.add("GET", `${CONSOLE_PATH}/*`, (request) => {
        const path = pathOf(request.url)
        const { assets } = consoleAssets()
        const asset = assets.files.get(path)
        if (asset !== undefined) return send(asset, request)
        // A missing file is a 404; any other path is one of the app's pages.
        const isFile = path.startsWith(`${CONSOLE_PATH}/app/`) || path.startsWith(`${CONSOLE_PATH}/vendor/`)
        return isFile ? notFound : send(assets.page, request)
      })
    })
  )
