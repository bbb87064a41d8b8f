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
import { ConfirmButton, Json, LoadState, PageHeader, Pager, Table, useLoad, usePaging, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextArea, TextField, useForm } from "../ui/forms.ts"

const PROVIDERS = [["openai", "OpenAI"], ["together-ai", "Together AI"], ["fireworks-ai", "Fireworks AI"]] as const

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
      return form.fail("config", "The config must be a JSON object.")
    }
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
  const { paging, setPage } = usePaging()
  const workspace = workspaceId.value ?? undefined
  const loaded = useLoad(() => listVirtualKeys(workspace, paging), [workspace, paging.current_page])
  return html`<section aria-labelledby="vk-title">
    <h2 id="vk-title">Virtual keys</h2>
    <${LoadState} loaded=${loaded}>${(page: Awaited<ReturnType<typeof listVirtualKeys>>) =>
    html`<${Table} caption="Virtual keys" head=${["Name", "Slug", "Provider", "Key", "Custom host", "Created", ""]}
        empty=${page.data.length === 0} rows=${
      page.data.map((v: VirtualKey) =>
        html`<tr><td>${v.name}</td><td><code>${v.slug}</code></td><td>${v.provider}</td><td><code class="nowrap">${v.masked_key}</code></td>
          <td>${v.custom_host ?? "—"}</td><td>${when(v.created_at)}</td>
          <td>${
          can("virtual_keys.delete")
            ? html`<${ConfirmButton} label="Delete" question=${`Delete ${v.name}?`} onConfirm=${async () => {
              await deleteVirtualKey(v.id)
              loaded.reload()
            }} />`
            : null
        }</td></tr>`
      )
    } />
      <${Pager} paging=${paging} total=${page.total} hasMore=${page.has_more} onPage=${setPage} />`}<//>
    ${can("virtual_keys.create") ? html`<${VirtualKeyForm} onCreated=${loaded.reload} />` : null}
  </section>`
}

const Configs = () => {
  const { paging, setPage } = usePaging()
  const workspace = workspaceId.value ?? undefined
  const loaded = useLoad(() => listConfigs(workspace, paging), [workspace, paging.current_page])
  return html`<section aria-labelledby="configs-title">
    <h2 id="configs-title">Configs</h2>
    <${LoadState} loaded=${loaded}>${(page: Awaited<ReturnType<typeof listConfigs>>) =>
    html`<${Table} caption="Configs" head=${["Name", "Slug", "Config", "API key", ""]} empty=${page.data.length === 0}
        rows=${
      page.data.map((c: GatewayConfig) =>
        html`<tr><td>${c.name}</td><td><code>${c.slug}</code></td><td><${Json} value=${c.config} label=${`Config ${c.name}`} /></td>
          <td><code>${c.masked_api_key ?? "—"}</code></td>
          <td>${
          can("configs.delete")
            ? html`<${ConfirmButton} label="Delete" question=${`Delete ${c.name}?`} onConfirm=${async () => {
              await deleteConfig(c.id)
              loaded.reload()
            }} />`
            : null
        }</td></tr>`
      )
    } />
      <${Pager} paging=${paging} total=${page.total} hasMore=${page.has_more} onPage=${setPage} />`}<//>
    ${can("configs.create") ? html`<${ConfigForm} onCreated=${loaded.reload} />` : null}
  </section>`
}

export const ProvidersPage = () =>
  html`<${PageHeader} title="Virtual keys & configs" />
    ${can("virtual_keys.list") ? html`<${VirtualKeys} />` : null}
    ${can("configs.list") ? html`<${Configs} />` : null}`
