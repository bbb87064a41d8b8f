/**
 * Providers: a workspace's `@slug` handle on an integration, optionally restricted to some of its models. Listed
 * with their integration by name, created, changed (name, models, note) and deleted; deleting one says which
 * calls stop working.
 */
import { useState } from "preact/hooks"
import {
  createProvider,
  deleteProvider,
  type GatewayProvider,
  listProviderIntegrations,
  listProviders,
  updateProvider
} from "../api.ts"
import { html } from "../html.ts"
import { may, workspaceId } from "../session.ts"
import { ConfirmButton, PagedTable, useLoad, usePagedList, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SubmitButton, TextField, useForm } from "../ui/forms.ts"
import { notify } from "../ui/toast.ts"

const words = (text: string) => text.split(/[\s,]+/).filter((word) => word !== "")

const ProviderForm = (
  props: { readonly integrations: ReadonlyArray<string>; readonly onCreated: () => void }
) => {
  const form = useForm()
  const [fields, setFields] = useState({ name: "", slug: "", integration_id: "", models: "" })
  const set = (name: keyof typeof fields) => (value: string) => setFields({ ...fields, [name]: value })
  const submit = async () => {
    const workspace = workspaceId.value
    const models = words(fields.models)
    const made = await createProvider({
      name: fields.name,
      integration_id: fields.integration_id.trim(),
      ...(fields.slug.trim() === "" ? {} : { slug: fields.slug.trim() }),
      ...(models.length === 0 ? {} : { models }),
      ...(workspace === null ? {} : { workspace_id: workspace })
    })
    setFields({ name: "", slug: "", integration_id: "", models: "" })
    notify(`Provider @${made.slug} created.`)
    props.onCreated()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="New provider">
    <h3>New provider</h3>
    <${FormAlert} form=${form} fields=${["name", "slug", "integration_id", "models", "workspace_id"]} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Provider name" value=${fields.name} onInput=${set("name")} />
      <${TextField} form=${form} name="slug" label="Provider slug (optional)" value=${fields.slug}
        onInput=${set("slug")} hint="Calls name it as @slug." />
      <${TextField} form=${form} name="integration_id" label="Integration (slug or id)" value=${fields.integration_id}
        onInput=${set("integration_id")} choices=${props.integrations} />
      <${TextField} form=${form} name="models" label="Models (optional)" value=${fields.models}
        onInput=${set("models")} hint="Separated by spaces or commas. Empty: every model the integration allows." />
    </div>
    <${SubmitButton} form=${form} label="Create provider" />
  <//>`
}

const ProviderEdit = (
  { provider: p, onDone }: { readonly provider: GatewayProvider; readonly onDone: () => void }
) => {
  const form = useForm()
  const [name, setName] = useState(p.name)
  const [models, setModels] = useState((p.models ?? []).join(", "))
  const [note, setNote] = useState(p.note ?? "")
  const submit = async () => {
    const listed = words(models)
    await updateProvider(p.id, {
      name,
      models: listed.length === 0 ? null : listed,
      note: note.trim() === "" ? null : note.trim()
    })
    notify(`Provider @${p.slug} updated.`)
    onDone()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label=${`Edit provider @${p.slug}`}>
    <h3>Edit provider <code>@${p.slug}</code></h3>
    <${FormAlert} form=${form} fields=${["name", "models", "note"]} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Name of the provider" value=${name} onInput=${setName} />
      <${TextField} form=${form} name="models" label="Models of the provider" value=${models} onInput=${setModels}
        hint="Separated by spaces or commas. Empty: every model the integration allows." />
      <${TextField} form=${form} name="note" label="Note (optional)" value=${note} onInput=${setNote} />
    </div>
    <${SubmitButton} form=${form} label="Save provider" /> <button type="button" onClick=${onDone}>Cancel</button>
  <//>`
}

export const Providers = ({ version, onChange }: { readonly version: number; readonly onChange: () => void }) => {
  const workspace = workspaceId.value ?? undefined
  const list = usePagedList((paging) => listProviders(workspace, paging), [workspace, version])
  const integrations = useLoad(
    () => listProviderIntegrations(workspace, { page_size: 100, current_page: 0 }),
    [workspace, version]
  )
  const known = integrations.data?.data ?? []
  const [editing, setEditing] = useState<string | null>(null)
  const changed = () => {
    setEditing(null)
    // The page moves `version`, which reads the list again.
    onChange()
  }
  const integrationOf = (p: GatewayProvider) => {
    const found = known.find((i) => i.id === p.integration_id)
    return found === undefined ? html`<code>${p.integration_id}</code>` : html`${found.name} <code>${found.slug}</code>`
  }
  const editingNow = list.loaded.data?.data.find((p) => p.id === editing)
  return html`<section aria-labelledby="providers-title">
    <h2 id="providers-title">Providers</h2>
    <${PagedTable} list=${list} caption="Providers" head=${["Name", "Slug", "Integration", "Models", "Created", ""]}
      row=${(p: GatewayProvider) =>
    html`<tr><td>${p.name}</td><td><code>@${p.slug}</code></td><td>${integrationOf(p)}</td>
        <td>${p.models === null ? "all the integration allows" : p.models.join(", ")}</td>
        <td>${when(p.created_at)}</td>
        <td class="actions">${
      may("providers.update")
        ? html`<button type="button" onClick=${() =>
          setEditing(p.id)}>Edit<span class="visually-hidden"> @${p.slug}</span></button> `
        : null
    }${
      may("providers.delete")
        ? html`<${ConfirmButton} label=${`Delete @${p.slug}`}
            question=${`Delete @${p.slug}? Calls naming @${p.slug} (x-portkey-provider, a config's provider, a model "@${p.slug}/…") are refused from then on; its integration stays.`}
            done=${`Provider @${p.slug} deleted.`} onConfirm=${() => deleteProvider(p.id).then(changed)} />`
        : null
    }</td></tr>`} />
    ${
    editingNow === undefined
      ? null
      : html`<${ProviderEdit} key=${editingNow.id} provider=${editingNow} onDone=${changed} />`
  }
    ${
    may("providers.create")
      ? html`<${ProviderForm} integrations=${known.map((i) => i.slug)} onCreated=${changed} />`
      : null
  }
  </section>`
}
