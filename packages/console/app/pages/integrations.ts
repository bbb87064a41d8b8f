/**
 * Integrations and providers: an integration is a credential for one AI provider (its key write-only, shown
 * masked), with the health of that credential as the last check found it (active, failing with the provider's
 * reason, or expired) and a button to test it now; Manage changes it (name, key rotated, secret reference, host),
 * shares it with workspaces, allows models, or deletes it. Providers (gatewayProviders.ts) are a workspace's
 * `@slug` handles on integrations; secret references (secretReferences.ts) say where a key lives instead.
 */
import { useState } from "preact/hooks"
import {
  createProviderIntegration,
  type CredentialHealth,
  listProviderIntegrations,
  type ProviderIntegration,
  testProviderIntegration
} from "../api.ts"
import { html } from "../html.ts"
import { isAdminKey, may, workspaceId } from "../session.ts"
import { PagedTable, PageHeader, usePagedList, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"
import { IntegrationManage, mayChangeIntegration } from "../ui/integrationManage.ts"
import { SecretReferenceChoice } from "../ui/secretReferenceChoice.ts"
import { notify } from "../ui/toast.ts"
import { workspaceName } from "../ui/workspaceChecks.ts"
import { Providers } from "./gatewayProviders.ts"
import { SecretReferences } from "./secretReferences.ts"

const PROVIDER_TYPES = [
  ["openai", "OpenAI"],
  ["together-ai", "Together AI"],
  ["fireworks-ai", "Fireworks AI"],
  ["azure-openai", "Azure OpenAI"],
  ["bedrock", "AWS Bedrock"],
  ["vertex-ai", "Vertex AI"]
] as const

const LEVELS = [["workspace", "This workspace only"], ["organisation", "The organisation"]] as const

const HealthCell = ({ health }: { readonly health: CredentialHealth | undefined }) =>
  health === undefined
    ? html`<span class="muted">not checked yet</span>`
    : html`<span class=${`badge ${health.status === "active" ? "active" : "archived"}`}>${health.status}</span>
      ${health.status_message === null ? null : html` <span>${health.status_message}</span>`}
      <br /><small class="muted">Last success ${when(health.last_success_at)}; last failure ${
      when(health.last_failure_at)
    }</small>`

type NewIntegrationType = Parameters<typeof createProviderIntegration>[0]["ai_provider_id"]

const IntegrationForm = ({ onCreated }: { readonly onCreated: () => void }) => {
  const form = useForm()
  const [fields, setFields] = useState({
    name: "",
    slug: "",
    ai_provider_id: "openai",
    key: "",
    custom_host: "",
    level: may("integrations.create.workspace") ? "workspace" : "organisation",
    secret_reference_id: ""
  })
  const set = (name: keyof typeof fields) => (value: string) => setFields({ ...fields, [name]: value })
  const submit = async () => {
    const workspace = workspaceId.value
    const host = fields.custom_host.trim()
    const reference = fields.secret_reference_id.trim()
    const made = await createProviderIntegration({
      name: fields.name,
      ai_provider_id: fields.ai_provider_id as NewIntegrationType,
      ...(fields.slug.trim() === "" ? {} : { slug: fields.slug.trim() }),
      ...(fields.key === "" ? {} : { key: fields.key }),
      ...(reference === "" ? {} : { secret_mappings: [{ target_field: "key", secret_reference_id: reference }] }),
      ...(host === "" ? {} : { configurations: { custom_host: host } }),
      ...(fields.level === "workspace" && workspace !== null ? { workspace_id: workspace } : {})
    })
    setFields({ ...fields, name: "", slug: "", key: "", custom_host: "", secret_reference_id: "" })
    notify(`Integration ${made.slug} created.`)
    onCreated()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="New integration">
    <h3>New integration</h3>
    <${FormAlert} form=${form} fields=${[
    "name",
    "slug",
    "ai_provider_id",
    "key",
    "secret_mappings",
    "configurations",
    "workspace_id"
  ]} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Name" value=${fields.name} onInput=${set("name")} />
      <${TextField} form=${form} name="slug" label="Slug (optional)" value=${fields.slug} onInput=${set("slug")} />
      <${SelectField} form=${form} name="ai_provider_id" label="Provider type" value=${fields.ai_provider_id}
        onChange=${set("ai_provider_id")} options=${PROVIDER_TYPES} />
      <${TextField} form=${form} name="key" label="API key (write-only)" type="password" value=${fields.key}
        onInput=${set("key")} hint="Encrypted at rest; shown masked from now on." />
      <${SecretReferenceChoice} form=${form} value=${fields.secret_reference_id} onChange=${set("secret_reference_id")}
        none="None: the API key above" />
      <${TextField} form=${form} name="configurations" label="Custom host (optional)" value=${fields.custom_host}
        onInput=${set("custom_host")} />
      ${
    may("integrations.create.organisation") && may("integrations.create.workspace")
      ? html`<${SelectField} form=${form} name="workspace_id" label="Level" value=${fields.level}
        onChange=${set("level")} options=${LEVELS}
        hint="An organisation's integration is shared with workspaces under Manage." />`
      : null
  }
    </div>
    <${SubmitButton} form=${form} label="Create integration" />
  <//>`
}

const TestButton = (
  { integration, onTested }: {
    readonly integration: ProviderIntegration
    readonly onTested: (health: CredentialHealth) => void
  }
) => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const test = async () => {
    setBusy(true)
    setError(null)
    try {
      const health = await testProviderIntegration(integration.slug)
      notify(
        `${integration.name}: ${health.status}${health.status_message === null ? "" : ` (${health.status_message})`}.`
      )
      onTested(health)
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure))
    } finally {
      setBusy(false)
    }
  }
  return html`<button type="button" disabled=${busy} onClick=${() => void test()}>${
    busy ? "Testing…" : "Test"
  }<span class="visually-hidden"> ${integration.name}</span></button>${
    error === null ? null : html`<p role="alert" class="error">${error}</p>`
  }`
}

/** The health cell (as the list read it, or as a test here just found it), Test and Manage. */
const HealthAndActions = (
  { integration, onManage }: { readonly integration: ProviderIntegration; readonly onManage: () => void }
) => {
  const [tested, setTested] = useState<CredentialHealth | undefined>(undefined)
  // The newer of the two: a test run here, or the check the list last read (the background checker's).
  const listed = integration.credential_health
  const health = tested === undefined || (listed !== undefined && listed.checked_at > tested.checked_at)
    ? listed
    : tested
  return html`<td><${HealthCell} health=${health} /></td>
    <td class="actions">${
    mayChangeIntegration(integration) ? html`<${TestButton} integration=${integration} onTested=${setTested} /> ` : null
  }<button type="button" onClick=${onManage}>Manage<span class="visually-hidden"> ${integration.name}</span></button></td>`
}

/** Where an integration may be used: the organisation's (shared with N workspaces, or all), or one workspace's. */
const levelText = (i: ProviderIntegration) =>
  i.workspace_id !== null
    ? `workspace ${workspaceName(i.workspace_id)}`
    : i.global_workspace_access_settings?.enabled === true
    ? "organisation, every workspace"
    : `organisation, ${i.workspace_count} workspace${i.workspace_count === 1 ? "" : "s"}`

const SHOW = [["all", "The organisation's catalogue"], ["usable", "What this workspace may use"]] as const

const Integrations = ({ version, onChange }: { readonly version: number; readonly onChange: () => void }) => {
  // An admin manages the organisation's whole catalogue (an integration not yet shared is in it); a member sees
  // what their workspace may use.
  const [show, setShow] = useState(isAdminKey() ? "all" : "usable")
  const filter = useForm()
  const workspace = show === "all" ? undefined : workspaceId.value ?? undefined
  const list = usePagedList((paging) => listProviderIntegrations(workspace, paging), [workspace, show])
  const [open, setOpen] = useState<string | null>(null)
  const changed = () => {
    list.loaded.reload()
    onChange()
  }
  const opened = list.loaded.data?.data.find((i) => i.id === open)
  return html`<section aria-labelledby="integrations-title">
    <h2 id="integrations-title">Integrations</h2>
    ${
    isAdminKey()
      ? html`<div class="grid filters"><${SelectField} form=${filter} name="show" label="Show" value=${show}
          onChange=${setShow} options=${SHOW} /></div>`
      : null
  }
    <${PagedTable} list=${list} caption="Integrations" filtered=${show === "usable" && isAdminKey()}
      head=${["Name", "Type", "Level", "Key", "Credential health", ""]} row=${(i: ProviderIntegration) =>
    html`<tr><td>${i.name} <code>${i.slug}</code></td><td>${i.ai_provider_id}</td><td>${levelText(i)}</td>
        <td><code class="nowrap">${
      i.masked_key ?? (i.secret_mappings.length > 0 ? "secret reference" : "—")
    }</code></td>
        <${HealthAndActions} integration=${i} onManage=${() => setOpen(i.id)} /></tr>`} />
    ${
    opened === undefined
      ? null
      : html`<${IntegrationManage} key=${opened.id} integration=${opened} version=${version} onChanged=${changed}
          onDeleted=${() => {
        setOpen(null)
        changed()
      }} onClose=${() => setOpen(null)} />`
  }
    ${
    may("integrations.create.workspace") || may("integrations.create.organisation")
      ? html`<${IntegrationForm} onCreated=${changed} />`
      : null
  }
  </section>`
}

/**
 * `version` moves when an integration or a provider changes, so what each part shows of the others (providers'
 * integrations, an integration's providers, a reference's integrations) is read again.
 */
export const IntegrationsPage = () => {
  const [version, setVersion] = useState(0)
  const changed = () => setVersion((v) => v + 1)
  return html`<${PageHeader} title="Integrations & providers" />
    ${
    may("integrations.list") || may("workspace_integrations.list")
      ? html`<${Integrations} version=${version} onChange=${changed} />`
      : null
  }
    ${may("providers.list") ? html`<${Providers} version=${version} onChange=${changed} />` : null}
    ${may("secret_references.list") ? html`<${SecretReferences} version=${version} />` : null}`
}
