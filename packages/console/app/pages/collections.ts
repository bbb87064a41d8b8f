/**
 * Collections: the folders of a workspace's prompts and partials. The list, with each one's default mark and
 * parent, and a form for a new one (in the workspace chosen, or the key's). The prompts page filters by them.
 */
import { useState } from "preact/hooks"
import { type Collection, createCollection, listCollections } from "../api.ts"
import { html } from "../html.ts"
import { isAdminKey, may, workspaceId } from "../session.ts"
import { PagedTable, PageHeader, usePagedList, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"

export const CollectionsPage = () => {
  const workspace = workspaceId.value ?? undefined
  const list = usePagedList((paging) => listCollections(workspace, paging), [workspace])
  const form = useForm()
  const [name, setName] = useState("")
  const [parent, setParent] = useState("")
  const parents: ReadonlyArray<readonly [string, string]> = [
    ["", "None"],
    ...(list.loaded.data?.data ?? []).map((c: Collection) => [c.id, c.name] as const)
  ]

  const submit = async () => {
    await createCollection({
      name,
      ...(parent === "" ? {} : { parent_collection_id: parent }),
      ...(isAdminKey() && workspaceId.value !== null ? { workspace_id: workspaceId.value } : {})
    })
    setName("")
    setParent("")
    list.loaded.reload()
  }

  return html`
    <${PageHeader} title="Collections" />
    <${PagedTable} list=${list} caption="Collections" head=${["Name", "Slug", "Parent", "Default", "Updated"]}
      row=${(c: Collection) =>
    html`<tr>
        <td>${c.name}</td>
        <td><code>${c.slug}</code></td>
        <td>${
      c.parent_collection_id === null
        ? ""
        : (list.loaded.data?.data.find((p: Collection) => p.id === c.parent_collection_id)?.name ?? "another page's")
    }</td>
        <td>${c.is_default ? "yes" : ""}</td>
        <td>${when(c.last_updated_at)}</td>
      </tr>`} />
    ${
    may("prompts.create")
      ? html`<${FormFrame} form=${form} onSubmit=${submit} label="New collection">
          <${FormAlert} form=${form} fields=${["name", "parent_collection_id", "workspace_id"]} />
          <div class="grid">
            <${TextField} form=${form} name="name" label="Name" value=${name} onInput=${setName} required=${true} />
            <${SelectField} form=${form} name="parent_collection_id" label="Parent" value=${parent}
              onChange=${setParent} options=${parents} />
          </div>
          <${SubmitButton} form=${form} label="Create collection" />
        <//>`
      : null
  }`
}
