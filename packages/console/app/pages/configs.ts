/**
 * Configs: how to reach a provider, stored by slug. A config's provider key is write-only: the form takes it,
 * the list shows it masked.
 */
import { useState } from "preact/hooks"
import { createConfig, deleteConfig, type GatewayConfig, listConfigs } from "../api.ts"
import { html } from "../html.ts"
import { may, newCredentialPlacement, workspaceId } from "../session.ts"
import { ConfirmButton, Json, PagedTable, usePagedList } from "../ui/common.ts"
import { FormAlert, FormFrame, SubmitButton, TextArea, TextField, useForm } from "../ui/forms.ts"

/** A config is a JSON object: not an array, a string or null. */
const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const ConfigForm = ({ onCreated }: { readonly onCreated: () => void }) => {
  const form = useForm()
  const [name, setName] = useState("")
  const [text, setText] = useState("{\n  \"virtual_key\": \"\"\n}")
  const submit = async () => {
    let config: unknown
    try {
      config = JSON.parse(text)
    } catch {
      config = undefined
    }
    if (!isObject(config)) return form.fail("config", "The config must be a JSON object.")
    await createConfig({ name, config, ...newCredentialPlacement() })
    setName("")
    onCreated()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="New config">
    <h3>New config</h3>
    <${FormAlert} form=${form} fields=${["name", "config", "workspace_id", "slug"]} />
    <${TextField} form=${form} name="name" label="Name" value=${name} onInput=${setName} />
    <${TextArea} form=${form} name="config" label="Config (JSON)" rows=${5} value=${text} onInput=${setText}
      hint="provider and api_key (write-only), or virtual_key; optionally custom_host and request_timeout." />
    <${SubmitButton} form=${form} label="Create config" />
  <//>`
}

export const Configs = () => {
  const workspace = workspaceId.value ?? undefined
  const list = usePagedList((paging) => listConfigs(workspace, paging), [workspace])
  const reload = list.loaded.reload
  return html`<section aria-labelledby="configs-title">
    <h2 id="configs-title">Configs</h2>
    <${PagedTable} list=${list} caption="Configs" head=${["Name", "Slug", "Config", "API key", ""]}
      row=${(c: GatewayConfig) =>
    html`<tr><td>${c.name}</td><td><code>${c.slug}</code></td>
        <td><${Json} value=${c.config} label=${`Config ${c.name}`} /></td><td><code>${
      c.masked_api_key ?? "—"
    }</code></td>
        <td>${
      may("configs.delete")
        ? html`<${ConfirmButton} label="Delete" question=${`Delete ${c.name}?`}
              onConfirm=${() => deleteConfig(c.id).then(reload)} />`
        : null
    }</td></tr>`} />
    ${may("configs.create") ? html`<${ConfigForm} onCreated=${reload} />` : null}
  </section>`
}
