/**
 * Listing `GET /v1/mcp-integrations`, 4 connections: the first and a deep page at 1,000 and at 100,000
 * integrations, on one store.
 */
import {
  type BenchStore,
  bin,
  DURATION,
  load,
  log,
  prepare,
  type Prepared,
  round,
  type Server,
  startServer
} from "../support.ts"

const listing = async (server: Server, prepared: Prepared, rows: number) => {
  const base = `${server.url}/v1/mcp-integrations?organisation_id=${prepared.organisationId}&page_size=100`
  const headers = { "x-service-api-key": prepared.key }
  const first = await load({ url: `${base}&current_page=0`, headers }, Math.min(DURATION, 5), 4)
  const deep = await load(
    { url: `${base}&current_page=${Math.floor(rows / 100) - 1}`, headers },
    Math.min(DURATION, 5),
    4
  )
  return { rows, first, deep }
}

/** First and deep pages at 1,000 and 100,000 integrations on one store; the small leg may reuse a server. */
export const benchListing = async (
  store: BenchStore,
  reuse?: { readonly prepared: Prepared; readonly server: Server }
) => {
  const legs = []
  for (const rows of [1_000, 100_000]) {
    const prepared = rows === 1_000 && reuse !== undefined ? reuse.prepared : await prepare(rows, store)
    const server = rows === 1_000 && reuse !== undefined
      ? reuse.server
      : await startServer(bin, ["serve"], prepared.env)
    log(`listing on ${store}: ${rows.toLocaleString("en")} integrations`)
    legs.push(await listing(server, prepared, rows))
    await server.stop()
    prepared.cleanup()
  }
  const [smallLeg, largeLeg] = legs as [typeof legs[number], typeof legs[number]]
  return {
    store,
    small: smallLeg,
    large: largeLeg,
    first_page_large_over_small: round(largeLeg.first.p50 / Math.max(smallLeg.first.p50, 0.01), 2),
    deep_page_large_over_small: round(largeLeg.deep.p50 / Math.max(smallLeg.deep.p50, 0.01), 2)
  }
}
