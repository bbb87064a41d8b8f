/**
 * Virtual keys (a provider key stored encrypted, used by slug) and configs (how to reach a provider). Provider
 * keys are write-only: the forms take them, the lists show them masked.
 */
import { useState } from "preact/hooks"
import {
  createConfig,
  createVirtualKey,
  deleteConfig,
  deleteVirtualKey,
  type GatewayConfig,
  listConfigs,
  listVirtualKeys,
  type VirtualKey
} from "../api.ts"
import { html } from "../html.ts"
import { can, isAdminKey, workspaceId } from "../session.ts"
import { ConfirmButton, Json, PagedTable, PageHeader, usePagedList, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextArea, TextField, useForm } from "../ui/forms.ts"

const PROVIDERS = [["openai", "OpenAI"], ["together-ai", "Together AI"], ["fireworks-ai", "Fireworks AI"]] as const

/** A config is a JSON object: not an array, a string or null. */
const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Where a new credential goes: an admin key names the chosen workspace, a workspace key its own. */
const placement = () => (isAdminKey() && workspaceId.value !== null ? { workspace_id: workspaceId.value } : {})

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
      ...placement()
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
    await createConfig({ name, config, ...placement() })
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

const VirtualKeys = () => {
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
      can("virtual_keys.delete")
        ? html`<${ConfirmButton} label="Delete" question=${`Delete ${v.name}?`}
              onConfirm=${() => deleteVirtualKey(v.id).then(reload)} />`
        : null
    }</td></tr>`} />
    ${can("virtual_keys.create") ? html`<${VirtualKeyForm} onCreated=${reload} />` : null}
  </section>`
}

const Configs = () => {
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
      can("configs.delete")
        ? html`<${ConfirmButton} label="Delete" question=${`Delete ${c.name}?`}
              onConfirm=${() => deleteConfig(c.id).then(reload)} />`
        : null
    }</td></tr>`} />
    ${can("configs.create") ? html`<${ConfigForm} onCreated=${reload} />` : null}
  </section>`
}

export const ProvidersPage = () =>
  html`<${PageHeader} title="Virtual keys & configs" />
    ${can("virtual_keys.list") ? html`<${VirtualKeys} />` : null}
    ${can("configs.list") ? html`<${Configs} />` : null}`
