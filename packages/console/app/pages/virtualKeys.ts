/**
 * Virtual keys: a provider key stored encrypted, used by slug. The key is write-only: the form takes it, the
 * list shows it masked.
 */
import { useState } from "preact/hooks"
import { createVirtualKey, deleteVirtualKey, listVirtualKeys, type VirtualKey } from "../api.ts"
import { html } from "../html.ts"
import { may, newCredentialPlacement, workspaceId } from "../session.ts"
import { ConfirmButton, PagedTable, usePagedList, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"

const PROVIDERS = [["openai", "OpenAI"], ["together-ai", "Together AI"], ["fireworks-ai", "Fireworks AI"]] as const

const VirtualKeyForm = ({ onCreated }: { readonly onCreated: () => void }) => {
  const form = useForm()
  const [name, setName] = useState("")
  const [provider, setProvider] = useState("openai")
  const [key, setKey] = useState("")
  const [host, setHost] = useState("")
  const submit = async () => {
    await createVirtualKey({
      name,
      provider,
      key,
      ...(host.trim() === "" ? {} : { custom_host: host.trim() }),
      ...newCredentialPlacement()
    })
    setName("")
    setKey("")
    onCreated()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="New virtual key">
    <h3>New virtual key</h3>
    <${FormAlert} form=${form} fields=${["name", "provider", "key", "custom_host", "workspace_id", "slug"]} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Name" value=${name} onInput=${setName} />
      <${SelectField} form=${form} name="provider" label="Provider" value=${provider} onChange=${setProvider} options=${PROVIDERS} />
      <${TextField} form=${form} name="key" label="Provider key (write-only)" type="password" value=${key} onInput=${setKey}
        hint="Encrypted at rest; never shown again." />
      <${TextField} form=${form} name="custom_host" label="Custom host (optional)" value=${host} onInput=${setHost} />
    </div>
    <${SubmitButton} form=${form} label="Create virtual key" />
  <//>`
}

export const VirtualKeys = () => {
  const workspace = workspaceId.value ?? undefined
  const list = usePagedList((paging) => listVirtualKeys(workspace, paging), [workspace])
  const reload = list.loaded.reload
  return html`<section aria-labelledby="vk-title">
    <h2 id="vk-title">Virtual keys</h2>
    <${PagedTable} list=${list} caption="Virtual keys" head=${[
    "Name",
    "Slug",
    "Provider",
    "Key",
    "Custom host",
    "Created",
    ""
  ]}
      row=${(v: VirtualKey) =>
    html`<tr><td>${v.name}</td><td><code>${v.slug}</code></td><td>${v.provider}</td>
        <td><code class="nowrap">${v.masked_key}</code></td><td>${v.custom_host ?? "—"}</td><td>${
      when(v.created_at)
    }</td>
        <td>${
      may("virtual_keys.delete")
        ? html`<${ConfirmButton} label="Delete" question=${`Delete ${v.name}?`}
              onConfirm=${() => deleteVirtualKey(v.id).then(reload)} />`
        : null
    }</td></tr>`} />
    ${may("virtual_keys.create") ? html`<${VirtualKeyForm} onCreated=${reload} />` : null}
  </section>`
}
