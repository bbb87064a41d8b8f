/**
 * The prompts of the workspace, a page at a time. The API has no prompt search yet: the search box filters
 * the page shown by name and slug, and opens a prompt directly when it is an exact slug or id.
 */
import { useState } from "preact/hooks"
import { ApiError, type Collection, getPrompt, listCollections, listPrompts, type Prompt } from "../api.ts"
import { html } from "../html.ts"
import { href, navigate } from "../router.ts"
import { may, workspaceId } from "../session.ts"
import { PagedTable, PageHeader, useLoad, usePagedList, when } from "../ui/common.ts"

export const PromptsPage = () => {
  const workspace = workspaceId.value ?? undefined
  // "" is every collection; otherwise the list is that collection's (the API's collection_id filter).
  const [collection, setCollection] = useState("")
  const collections = useLoad(() => listCollections(workspace, { page_size: 1000, current_page: 0 }), [workspace])
  const list = usePagedList(
    (paging) => listPrompts(workspace, paging, collection === "" ? undefined : collection),
    [workspace, collection]
  )
  const [search, setSearch] = useState("")
  const [notFound, setNotFound] = useState<string | null>(null)
  const needle = search.trim().toLowerCase()

  const open = async (e: Event) => {
    e.preventDefault()
    if (needle === "") return
    try {
      const prompt = await getPrompt(search.trim())
      navigate(`/prompts/${prompt.id}`)
    } catch (error) {
      setNotFound(
        error instanceof ApiError && error.status === 404
          ? `No prompt has the slug or id '${search.trim()}'.`
          : String(error instanceof Error ? error.message : error)
      )
    }
  }

  return html`
    <${PageHeader} title="Prompts">
      ${may("prompts.create") ? html`<a class="button primary" href=${href("/prompts/new")}>New prompt</a>` : null}
    <//>
    <form class="toolbar" role="search" onSubmit=${open}>
      <label for="prompt-search">Search</label>
      <input id="prompt-search" type="search" value=${search} placeholder="name or slug; Enter opens a slug or id"
        onInput=${(e: Event) => {
    setSearch((e.currentTarget as HTMLInputElement).value)
    setNotFound(null)
  }} />
      <label for="prompt-collection">Collection</label>
      <select id="prompt-collection" value=${collection}
        onChange=${(e: Event) => setCollection((e.currentTarget as HTMLSelectElement).value)}>
        <option value="">All collections</option>
        ${(collections.data?.data ?? []).map((c: Collection) => html`<option value=${c.id}>${c.name}</option>`)}
      </select>
    </form>
    ${notFound === null ? null : html`<p class="field-error" role="alert">${notFound}</p>`}
    <${PagedTable} list=${list} caption="Prompts" head=${["Name", "Slug", "Published", "Updated"]}
      filtered=${collection !== ""}
      only=${(p: Prompt) =>
    needle === "" || p.name.toLowerCase().includes(needle) || p.slug.toLowerCase().includes(needle)}
      row=${(p: Prompt) =>
    html`<tr>
        <td><a href=${href(`/prompts/${p.id}`)}>${p.name}</a></td>
        <td><code>${p.slug}</code></td>
        <td>v${p.published_version}</td>
        <td>${when(p.last_updated_at)}</td>
      </tr>`} />`
}
