/**
 * Partials: templates other templates include with `{{>slug}}`. The list, a new partial, and the template
 * fields a new partial and a partial's new version share (`partialVersions.ts` has a partial's own page).
 */
import type { ComponentChildren } from "preact"
import { useMemo, useState } from "preact/hooks"
import { createPartial, listPartials, type Partial } from "../api.ts"
import { html } from "../html.ts"
import { href, navigate } from "../router.ts"
import { isAdminKey, may, workspaceId } from "../session.ts"
import { variablesOf } from "../template.ts"
import { PagedTable, PageHeader, usePagedList, when } from "../ui/common.ts"
import { type Form, FormAlert, FormFrame, SubmitButton, TextArea, TextField, useForm } from "../ui/forms.ts"
import { VariablesFound } from "../ui/templateFields.ts"

export const PartialsPage = () => {
  const workspace = workspaceId.value ?? undefined
  const list = usePagedList((paging) => listPartials(workspace, paging), [workspace])
  return html`
    <${PageHeader} title="Partials">
      ${may("prompts.create") ? html`<a class="button primary" href=${href("/partials/new")}>New partial</a>` : null}
    <//>
    <${PagedTable} list=${list} caption="Partials" head=${["Name", "Include as", "Published", "Status", "Updated"]}
      row=${(p: Partial) =>
    html`<tr>
        <td><a href=${href(`/partials/${p.id}`)}>${p.name}</a></td>
        <td><code>{{>${p.slug}}}</code></td>
        <td>v${p.published_version}</td>
        <td>${p.status}</td>
        <td>${when(p.last_updated_at)}</td>
      </tr>`} />`
}

/** The fields a version's errors may name. */
export const VERSION_FIELDS = ["string", "version_description"]

/**
 * A template and its version description, with the variables it names beside it; `children` come first
 * (a new partial's name and slug) and `submit` last.
 */
export const PartialTemplateFields = (
  props: {
    readonly form: Form
    readonly text: string
    readonly onText: (text: string) => void
    readonly description: string
    readonly onDescription: (description: string) => void
    readonly submit: string
    readonly children?: ComponentChildren
  }
) => {
  const variables = useMemo(() => variablesOf([props.text]), [props.text])
  return html`<div class="editor">
    <div class="editor-main">
      ${props.children}
      <${TextArea} form=${props.form} name="string" label="Template" rows=${10} value=${props.text}
        onInput=${props.onText} />
      <${TextField} form=${props.form} name="version_description" label="Version description (optional)"
        value=${props.description} onInput=${props.onDescription} />
      <${SubmitButton} form=${props.form} label=${props.submit} />
    </div>
    <aside class="editor-side"><${VariablesFound} variables=${variables} /></aside>
  </div>`
}

/** What a version adds besides its template: its description, when one is given. */
export const versionDescriptionOf = (description: string) =>
  description.trim() === "" ? {} : { version_description: description.trim() }

export const NewPartialPage = () => {
  const form = useForm()
  const [name, setName] = useState("")
  const [slug, setSlug] = useState("")
  const [text, setText] = useState("")
  const [description, setDescription] = useState("")

  const submit = async () => {
    const created = await createPartial({
      name,
      string: text,
      ...versionDescriptionOf(description),
      ...(slug.trim() === "" ? {} : { slug: slug.trim() }),
      ...(isAdminKey() && workspaceId.value !== null ? { workspace_id: workspaceId.value } : {})
    })
    navigate(`/partials/${created.id}`)
  }

  return html`
    <${PageHeader} title="New partial">
      <a class="button" href=${href("/partials")}>All partials</a>
    <//>
    <${FormFrame} form=${form} onSubmit=${submit} label="New partial">
      <${FormAlert} form=${form} fields=${["name", "slug", "workspace_id", ...VERSION_FIELDS]} />
      <${PartialTemplateFields} form=${form} text=${text} onText=${setText} description=${description}
        onDescription=${setDescription} submit="Create partial">
        <div class="grid">
          <${TextField} form=${form} name="name" label="Name" value=${name} onInput=${setName} required=${true} />
          <${TextField} form=${form} name="slug" label="Slug (optional)" value=${slug} onInput=${setSlug}
            hint="Made from the name when empty." />
        </div>
      <//>
    <//>`
}
