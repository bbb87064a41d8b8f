/** Offset paging shared by every list port: the store pages, never the caller. */
export interface PageRequest {
  /** Rows to return, at least 1. */
  readonly limit: number
  /** Rows to skip. */
  readonly offset: number
}

export interface Page<A> {
  readonly items: ReadonlyArray<A>
  /** Rows matching the query, over all pages. */
  readonly total: number
}

export const hasMore = (page: Page<unknown>, request: PageRequest): boolean =>
  request.offset + page.items.length < page.total

/** `page_size`/`current_page` (page numbers from 0) to a page request. */
export const pageRequest = (pageSize: number, currentPage: number): PageRequest => ({
  limit: pageSize,
  offset: pageSize * currentPage
})
