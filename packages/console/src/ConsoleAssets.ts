/**
 * The console's static files, built once at start: its TypeScript type-stripped by Node, the vendor modules
 * (Preact, htm, signals, uqr) read from wherever Node resolves them, and the page with its import map. Each file
 * is compressed (brotli and gzip) and hashed for its ETag here, so that serving one is a table lookup.
 */
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { stripTypeScriptTypes } from "node:module"
import { extname, join, relative, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"

/** Where the console is served; every asset lives under it. */
export const CONSOLE_PATH = "/console"

/** The modules the console imports by bare name, mapped by the page's import map to files the process serves. */
export const VENDOR_MODULES = [
  "preact",
  "preact/hooks",
  "@preact/signals",
  "@preact/signals-core",
  "htm",
  // QR codes, drawn in the browser (the second factor's enrolment): nothing leaves the page to make one.
  "uqr"
] as const

export interface Asset {
  readonly contentType: string
  readonly identity: Uint8Array
  readonly gzip: Uint8Array | undefined
  readonly br: Uint8Array | undefined
  /** A strong validator of the uncompressed bytes; each encoding gets its own suffix. */
  readonly etag: string
  readonly cacheControl: string
}

export interface ConsoleAssets {
  /** By URL path, e.g. `/console/app/main.ts`. */
  readonly files: ReadonlyMap<string, Asset>
  /** The page every console route answers with; the app routes itself from the URL. */
  readonly page: Asset
  /** The hash of the page's inline import map, the only inline script the Content-Security-Policy allows. */
  readonly importMapHash: string
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".ts": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".html": "text/html; charset=utf-8"
}

/** The console's own files change with each release of the package: revalidated on every load (ETag, 304). */
const REVALIDATE = "no-cache"
/** Vendor modules carry their content hash in the URL, so a cached copy is never stale. */
const IMMUTABLE = "public, max-age=31536000, immutable"

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("base64")

const makeAsset = (bytes: Uint8Array, contentType: string, cacheControl: string): Asset => {
  const gzip = gzipSync(bytes, { level: 9 })
  const br = brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length }
  })
  return {
    contentType,
    identity: bytes,
    // An encoding that saves nothing (a tiny file) is not offered.
    gzip: gzip.length < bytes.length ? gzip : undefined,
    br: br.length < bytes.length ? br : undefined,
    etag: sha256(bytes).slice(0, 27).replace(/\+/g, "-").replace(/\//g, "_"),
    cacheControl
  }
}

const utf8 = (text: string) => new TextEncoder().encode(text)

/**
 * Node announces `stripTypeScriptTypes` as experimental with a plain-text warning on stderr, once; the server's
 * stderr carries one JSON object a line, so that one warning is held back while the console's files are built.
 */
const quietly = <A>(build: () => A): A => {
  const emitWarning = process.emitWarning
  process.emitWarning = ((warning: string | Error, ...rest: Array<unknown>) => {
    const text = typeof warning === "string" ? warning : warning.message
    if (text.includes("stripTypeScriptTypes")) return
    return (emitWarning as (...args: Array<unknown>) => void).call(process, warning, ...rest)
  }) as typeof process.emitWarning
  try {
    return build()
  } finally {
    process.emitWarning = emitWarning
  }
}

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]
  )

/** The app's own files: TypeScript modules (served type-stripped), the stylesheet and the icon. */
const appFiles = (appDir: string): Array<[string, Asset]> =>
  filesUnder(appDir).flatMap((file): Array<[string, Asset]> => {
    const extension = extname(file)
    const contentType = CONTENT_TYPES[extension]
    if (contentType === undefined || extension === ".html" || file.endsWith(".d.ts")) return []
    const urlPath = `${CONSOLE_PATH}/app/${relative(appDir, file).split(sep).join("/")}`
    const source = readFileSync(file)
    const bytes = extension === ".ts"
      ? utf8(stripTypeScriptTypes(source.toString("utf8"), { mode: "strip" }))
      : new Uint8Array(source)
    return [[urlPath, makeAsset(bytes, contentType, REVALIDATE)]]
  })

/** Vendor modules have no source maps to serve; the comment would only make a browser's tools ask for one. */
const withoutSourceMap = (code: string) => code.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, "\n")

const vendorFiles = (resolve: (specifier: string) => string) =>
  VENDOR_MODULES.map((specifier) => {
    const file = fileURLToPath(resolve(specifier))
    const bytes = utf8(withoutSourceMap(readFileSync(file, "utf8")))
    const hash = sha256(bytes).slice(0, 12).replace(/[+/]/g, "_")
    const urlPath = `${CONSOLE_PATH}/vendor/${specifier.replace(/[@/]/g, "_")}.${hash}.mjs`
    return { specifier, urlPath, asset: makeAsset(bytes, CONTENT_TYPES[".mjs"]!, IMMUTABLE) }
  })

export interface ConsoleAssetOptions {
  /** The folder of the console's browser code; the package's own `app/` unless given. */
  readonly appDir?: string
  /** Resolves a vendor module to a file URL; `import.meta.resolve` from this package unless given. */
  readonly resolve?: (specifier: string) => string
}

export const buildConsoleAssets = (options: ConsoleAssetOptions = {}): ConsoleAssets =>
  quietly(() => {
    const appDir = options.appDir ?? fileURLToPath(new URL("../app/", import.meta.url))
    const vendor = vendorFiles(options.resolve ?? ((specifier) => import.meta.resolve(specifier)))
    const importMap = JSON.stringify({ imports: Object.fromEntries(vendor.map((v) => [v.specifier, v.urlPath])) })
    const html = readFileSync(join(appDir, "index.html"), "utf8")
    if (!html.includes("<!-- import map -->")) throw new Error("console index.html has no <!-- import map --> marker")
    const page = html.replace("<!-- import map -->", () => `<script type="importmap">${importMap}</script>`)
    return {
      files: new Map([...appFiles(appDir), ...vendor.map((v) => [v.urlPath, v.asset] as const)]),
      page: makeAsset(utf8(page), CONTENT_TYPES[".html"]!, REVALIDATE),
      importMapHash: `sha256-${sha256(importMap)}`
    }
  })
