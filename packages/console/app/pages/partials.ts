/**
 * Partials: templates other templates include with `{{>slug}}`. Saving a partial adds a version and publishes
 * it at once (that is what the API does); the API shows a partial's published version only.
 */
import { useEffect, useMemo, useState } from "preact/hooks"
import { createPartial, getPartial, listPartials, type PartialDetails, type Prompt, updatePartial } from "../api.ts"
import { html } from "../html.ts"
import { href, navigate } from "../router.ts"
import { can, isAdminKey, workspaceId } from "../session.ts"
import { variablesOf } from "../template.ts"
import { PagedTable, PageHeader, usePagedList, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SubmitButton, TextArea, TextField, useForm } from "../ui/forms.ts"
import { VariablesFound } from "../ui/templateFields.ts"

export const PartialsPage = () => {
  const workspace = workspaceId.value ?? undefined
  const list = usePagedList((paging) => listPartials(workspace, paging), [workspace])
  return html`
    <${PageHeader} title="Partials">
      ${can("prompts.create") ? html`<a class="button primary" href=${href("/partials/new")}>New partial</a>` : null}
    <//>
    <${PagedTable} list=${list} caption="Partials" head=${["Name", "Include as", "Published", "Updated"]} row=${(
    p: Prompt
  ) =>
    html`<tr>
        <td><a href=${href(`/partials/${p.id}`)}>${p.name}</a></td>
        <td><code>{{>${p.slug}}}</code></td>
        <td>v${p.published_version}</td>
        <td>${when(p.last_updated_at)}</td>
      </tr>`} />`
}

const FIELDS = ["name", "slug", "workspace_id", "string", "version_description"]

export const PartialPage = ({ id }: { readonly id?: string }) => {
  const form = useForm()
  const [current, setCurrent] = useState<PartialDetails | null>(null)
  const [loadError, setLoadError] = useState<string | null>(null)
  const [name, setName] = useState("")
  const [slug, setSlug] = useState("")
  const [text, setText] = useState("")
  const [description, setDescription] = useState("")
  const [saved, setSaved] = useState<number | null>(null)
  const variables = useMemo(() => variablesOf([text]), [text])

  useEffect(() => {
    if (id === undefined) return
    getPartial(id).then((partial) => {
      setCurrent(partial)
      setText(partial.string)
    }, (e: Error) => setLoadError(e.message))
  }, [id])

  if (loadError !== null) return html`<div class="alert" role="alert"><p>${loadError}</p></div>`
  if (id !== undefined && current === null) return html`<p class="muted">Loading…</p>`

  const versionFields = description.trim() === "" ? {} : { version_description: description.trim() }
  const submit = async () => {
    if (id === undefined) {
      const created = await createPartial({
        name,
        string: text,
        ...versionFields,
        ...(slug.trim() === "" ? {} : { slug: slug.trim() }),
        ...(isAdminKey() && workspaceId.value !== null ? { workspace_id: workspaceId.value } : {})
      })
      navigate(`/partials/${created.id}`)
      return
    }
    const created = await updatePartial(id, { string: text, ...versionFields })
    setSaved(created.version)
    setCurrent(await getPartial(id))
    setDescription("")
  }

  return html`
    <${PageHeader} title=${current === null ? "New partial" : current.name}>
      <a class="button" href=${href("/partials")}>All partials</a>
    <//>
    ${
    current === null ? null : html`<p class="muted">Include as <code>{{>${current.slug}}}</code> · published: version
      ${current.published_version} · updated ${when(current.last_updated_at)}</p>`
  }
    ${saved === null ? null : html`<p class="notice" role="status">Version ${saved} saved and published.</p>`}
    <${FormFrame} form=${form} onSubmit=${submit} label=${current === null ? "New partial" : "New version"}>
      <${FormAlert} form=${form} fields=${FIELDS} />
      <div class="editor">
        <div class="editor-main">
          ${
    current === null
      ? html`<div class="grid">
                <${TextField} form=${form} name="name" label="Name" value=${name} onInput=${setName} required=${true} />
                <${TextField} form=${form} name="slug" label="Slug (optional)" value=${slug} onInput=${setSlug}
                  hint="Made from the name when empty." />
              </div>`
      : null
  }
          <${TextArea} form=${form} name="string" label="Template" rows=${10} value=${text} onInput=${setText} />
          <${TextField} form=${form} name="version_description" label="Version description (optional)"
            value=${description} onInput=${setDescription} />
          <${SubmitButton} form=${form} label=${
    current === null ? "Create partial" : "Save and publish a new version"
  } />
        </div>
        <aside class="editor-side"><${VariablesFound} variables=${variables} /></aside>
      </div>
    <//>`
}
