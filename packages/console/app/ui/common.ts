/** Small pieces every page uses: loading data, paging, confirmation, copying, and showing values. */
import type { ComponentChildren } from "preact"
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks"
import type { ListPage, Paging } from "../api.ts"
import { html } from "../html.ts"
import { notify } from "./toast.ts"

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
    /** What the pages are of, naming the navigation ("Pages of API keys") where a page has several lists. */
    readonly of?: string
  }
) => {
  const pages = Math.max(1, Math.ceil(props.total / props.paging.page_size))
  const current = props.paging.current_page
  return html`<nav class="pager" aria-label=${props.of === undefined ? "Pages" : `Pages of ${props.of}`}>
    <button type="button" disabled=${current === 0} onClick=${() => props.onPage(0)}>First</button>
    <button type="button" disabled=${current === 0} onClick=${() => props.onPage(current - 1)}>Previous</button>
    <span aria-live="polite">Page ${current + 1} of ${pages} · ${props.total} in all</span>
    <button type="button" disabled=${!props.hasMore} onClick=${() => props.onPage(current + 1)}>Next</button>
    <button type="button" disabled=${!props.hasMore} onClick=${() => props.onPage(pages - 1)}>Last</button>
  </nav>`
}

/** Grey bars where a list will be, while it loads (announced once as "Loading…"). */
export const Skeleton = ({ rows = 3 }: { readonly rows?: number }) =>
  html`<div class="skeleton" aria-busy="true">
    <span class="visually-hidden">Loading…</span>
    ${Array.from({ length: rows }, (_, i) => html`<div class="skeleton-bar" key=${i} aria-hidden="true"></div>`)}
  </div>`

/** A failed load: what went wrong, and a button to try again (a network failure is usually passing). */
export const LoadError = ({ error, retry }: { readonly error: string; readonly retry: () => void }) =>
  html`<div class="alert" role="alert">
    <p>${error}</p>
    <button type="button" onClick=${retry}>Retry</button>
  </div>`

/** What a load shows while it runs or after it failed; the children once it has data. */
export const LoadState = <A>(
  props: { readonly loaded: Loaded<A>; readonly children: (data: A) => ComponentChildren }
) => {
  const { data, error, loading, reload } = props.loaded
  if (error !== undefined) {
    return loading ? html`<${Skeleton} />` : html`<${LoadError} error=${error} retry=${reload} />`
  }
  if (data === undefined) return html`<${Skeleton} />`
  return html`<div aria-busy=${loading}>${props.children(data)}</div>`
}

/**
 * An action behind a second, explicit confirmation that says what will change (`question`), such as a
 * destructive one (red unless `danger` is false). A failure is shown beside it; `done` is announced as a toast.
 */
export const ConfirmButton = (
  props: {
    readonly label: string
    readonly question: string
    readonly onConfirm: () => Promise<void> | void
    readonly danger?: boolean
    /** The toast once it is done. */
    readonly done?: string
  }
) => {
  const [asking, setAsking] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const tone = props.danger === false ? "" : "danger"
  if (!asking) {
    return html`<button type="button" class=${tone} onClick=${() => setAsking(true)}>${props.label}</button>`
  }
  const confirm = async () => {
    try {
      await props.onConfirm()
      setAsking(false)
      if (props.done !== undefined) notify(props.done)
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    }
  }
  return html`<span class="confirm" role="group" aria-label=${props.question}>
    <span>${props.question}</span>
    <button type="button" class=${props.danger === false ? "primary" : "danger"} onClick=${confirm}>Yes, ${
    props.label.charAt(0).toLowerCase() + props.label.slice(1)
  }</button>
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

/** What an empty list says: nothing made yet, or nothing matching the filters or search applied. */
export const Empty = ({ filtered }: { readonly filtered?: boolean }) =>
  filtered === true
    ? html`<p class="muted empty">No match: nothing here matches these filters.</p>`
    : html`<p class="muted empty">Nothing here yet.</p>`

/**
 * A list's empty state, or its rows. At narrow widths the table becomes one card a row, each value under its
 * column's name (set on each cell as `data-label`), so nothing scrolls sideways and a row's buttons stay in view.
 * A column headed "" holds the row's actions.
 */
export const Table = (
  props: {
    readonly caption: string
    readonly head: ReadonlyArray<string>
    readonly rows: ComponentChildren
    readonly empty: boolean
    /** The list is filtered or searched: an empty one says "No match" rather than "Nothing here yet". */
    readonly filtered?: boolean
  }
) => {
  const table = useRef<HTMLTableElement>(null)
  useLayoutEffect(() => {
    for (const row of table.current?.tBodies[0]?.rows ?? []) {
      for (const [i, cell] of [...row.cells].entries()) {
        const label = props.head[i] ?? ""
        if (cell.dataset.label !== label) cell.dataset.label = label
      }
    }
  })
  return props.empty
    ? html`<${Empty} filtered=${props.filtered} />`
    : html`<div class="table-wrap"><table ref=${table} class="cards">
        <caption class="visually-hidden">${props.caption}</caption>
        <thead><tr>${
      props.head.map((h) =>
        h === ""
          ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>`
          : html`<th scope="col">${h}</th>`
      )
    }</tr></thead>
        <tbody>${props.rows}</tbody>
      </table></div>`
}

/** A page of a list as a table (`row` makes each row), with the pager under it. */
export const PagedTable = <A>(
  props: {
    readonly list: PagedList<A>
    readonly caption: string
    readonly head: ReadonlyArray<string>
    readonly row: (item: A) => ComponentChildren
    /** Which items of the page to show; all of them unless given. */
    readonly only?: (item: A) => boolean
    /** Filters or a search are applied: an empty list says "No match". */
    readonly filtered?: boolean
  }
) =>
  html`<${LoadState} loaded=${props.list.loaded}>${(page: ListPage<A>) => {
    const items = props.only === undefined ? page.data : page.data.filter(props.only)
    return html`<${Table} caption=${props.caption} head=${props.head} empty=${items.length === 0}
      filtered=${props.filtered === true || (props.only !== undefined && page.data.length > 0)} rows=${
      items.map(props.row)
    } />
      <${Pager} paging=${props.list.paging} total=${page.total} hasMore=${page.has_more} onPage=${props.list.setPage}
        of=${props.caption} />`
  }}<//>`
