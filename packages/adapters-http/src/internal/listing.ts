import { hasMore, type Page, type PageRequest, pageRequest } from "@gateway-control/domain"

export interface PageQuery {
  readonly page_size?: number | undefined
  readonly current_page?: number | undefined
}

/** `page_size` (default 100) and `current_page` (default 0) as a page request. */
export const pageOf = (query: PageQuery) => pageRequest(query.page_size ?? 100, query.current_page ?? 0)

/** The list envelope every list endpoint answers with. */
export const listBody = <A>(page: Page<A>, request: PageRequest) => ({
  object: "list" as const,
  data: page.items,
  total: page.total,
  has_more: hasMore(page, request)
})
