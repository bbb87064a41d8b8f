/** Small pieces every page uses: loading data, paging, confirmation, copying, and showing values. */
import type { ComponentChildren } from "preact"
import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import type { ListPage, Paging } from "../api.ts"
import { html } from "../html.ts"

export interface Loaded<A> {
  readonly data: A | undefined
  readonly error: string | undefined
  readonly loading: boolean
  readonly reload: () => void
}

/** Loads with `load` whenever `deps` change; an answer that arrives after a newer request is dropped. */
export const useLoad = <A>(load: () => Promise<A>, deps: ReadonlyArray<unknown>): Loaded<A> => {
  const [state, setState] = useState<{ data?: A; error?: string; loading: boolean }>({ loading: true })
  const generation = useRef(0)
  const run = useCallback(() => {
    const mine = ++generation.current
    setState((s) => ({ ...s, loading: true }))
    load().then(
      (data) => mine === generation.current && setState({ data, loading: false }),
      (error: unknown) =>
        mine === generation.current &&
        setState({ error: error instanceof Error ? error.message : String(error), loading: false })
    )
  }, deps)
  useEffect(run, [run])
  return { data: state.data, error: state.error, loading: state.loading, reload: run }
}

export const PAGE_SIZE = 25

export const usePaging = (pageSize = PAGE_SIZE) => {
  const [page, setPage] = useState(0)
  const paging: Paging = { page_size: pageSize, current_page: page }
  return { paging, setPage }
}

export interface PagedList<A> {
  readonly loaded: Loaded<ListPage<A>>
  readonly paging: Paging
  readonly setPage: (n: number) => void
}

/** A list read a page at a time: again when the page or `deps` change. */
export const usePagedList = <A>(load: (paging: Paging) => Promise<ListPage<A>>, deps: ReadonlyArray<unknown>) => {
  const { paging, setPage } = usePaging()
  const loaded = useLoad(() => load(paging), [...deps, paging.current_page])
  return { loaded, paging, setPage }
}

/** Where a long list is: page n of m, and buttons to move. */
export const Pager = (
  props: {
    readonly paging: Paging
    readonly total: number
    readonly hasMore: boolean
    readonly onPage: (n: number) => void
  }
) => {
  const pages = Math.max(1, Math.ceil(props.total / props.paging.page_size))
  const current = props.paging.current_page
  return html`<nav class="pager" aria-label="Pages">
    <button type="button" disabled=${current === 0} onClick=${() => props.onPage(0)}>First</button>
    <button type="button" disabled=${current === 0} onClick=${() => props.onPage(current - 1)}>Previous</button>
    <span aria-live="polite">Page ${current + 1} of ${pages} · ${props.total} in all</span>
    <button type="button" disabled=${!props.hasMore} onClick=${() => props.onPage(current + 1)}>Next</button>
    <button type="button" disabled=${!props.hasMore} onClick=${() => props.onPage(pages - 1)}>Last</button>
  </nav>`
}

/** What a load shows while it runs or after it failed; the children once it has data. */
export const LoadState = <A>(
  props: { readonly loaded: Loaded<A>; readonly children: (data: A) => ComponentChildren }
) => {
  const { data, error, loading } = props.loaded
  if (error !== undefined) return html`<div class="alert" role="alert"><p>${error}</p></div>`
  if (data === undefined) return html`<p class="muted" aria-busy=${loading}>Loading…</p>`
  return html`<div aria-busy=${loading}>${props.children(data)}</div>`
}

/** A destructive action behind a second, explicit confirmation. */
export const ConfirmButton = (
  props: { readonly label: string; readonly question: string; readonly onConfirm: () => Promise<void> | void }
) => {
  const [asking, setAsking] = useState(false)
  const [error, setError] = useState<string | null>(null)
  if (!asking) {
    return html`<button type="button" class="danger" onClick=${() => setAsking(true)}>${props.label}</button>`
  }
  const confirm = async () => {
    try {
      await props.onConfirm()
      setAsking(false)
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    }
  }
  return html`<span class="confirm" role="group" aria-label=${props.question}>
    <span>${props.question}</span>
    <button type="button" class="danger" onClick=${confirm}>Yes, ${props.label.toLowerCase()}</button>
    <button type="button" onClick=${() => setAsking(false)} autoFocus>Cancel</button>
    ${error === null ? null : html`<span class="field-error" role="alert">${error}</span>`}
  </span>`
}

/** Copies `text`: the Clipboard API where the page may use it, the selection otherwise. */
export const CopyButton = ({ text, label = "Copy" }: { readonly text: string; readonly label?: string }) => {
  const [done, setDone] = useState(false)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
    } catch {
      const area = document.createElement("textarea")
      area.value = text
      document.body.append(area)
      area.select()
      document.execCommand("copy")
      area.remove()
    }
    setDone(true)
  }
  return html`<button type="button" onClick=${copy}>${done ? "Copied" : label}</button>`
}

export const Json = ({ value, label }: { readonly value: unknown; readonly label: string }) =>
  html`<pre class="json" tabIndex="0" aria-label=${label}>${JSON.stringify(value, null, 2)}</pre>`

export const when = (iso: string | null) => (iso === null ? "—" : new Date(iso).toLocaleString())

export const PageHeader = ({ title, children }: { readonly title: string; readonly children?: ComponentChildren }) =>
  html`<header class="page-header"><h1>${title}</h1><div class="actions">${children}</div></header>`

/** A list's empty state, or its rows. */
export const Table = (
  props: {
    readonly caption: string
    readonly head: ReadonlyArray<string>
    readonly rows: ComponentChildren
    readonly empty: boolean
  }
) =>
  props.empty
    ? html`<p class="muted">Nothing here yet.</p>`
    : html`<div class="table-wrap"><table>
        <caption class="visually-hidden">${props.caption}</caption>
        <thead><tr>${props.head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
        <tbody>${props.rows}</tbody>
      </table></div>`

/** A page of a list as a table (`row` makes each row), with the pager under it. */
export const PagedTable = <A>(
  props: {
    readonly list: PagedList<A>
    readonly caption: string
    readonly head: ReadonlyArray<string>
    readonly row: (item: A) => ComponentChildren
    /** Which items of the page to show; all of them unless given. */
    readonly only?: (item: A) => boolean
  }
) =>
  html`<${LoadState} loaded=${props.list.loaded}>${(page: ListPage<A>) => {
    const items = props.only === undefined ? page.data : page.data.filter(props.only)
    return html`<${Table} caption=${props.caption} head=${props.head} empty=${items.length === 0} rows=${
      items.map(props.row)
    } />
      <${Pager} paging=${props.list.paging} total=${page.total} hasMore=${page.has_more} onPage=${props.list.setPage} />`
  }}<//>`
