/**
 * Integrations and providers: an integration is a credential for one AI provider (its key write-only, shown
 * masked), with the health of that credential as the last check found it (active, failing with the provider's
 * reason, or expired) and a button to test it now; a provider is a workspace's `@slug` handle on an
 * integration, optionally restricted to some of its models.
 */
import { useState } from "preact/hooks"
import {
  createProvider,
  createProviderIntegration,
  type CredentialHealth,
  type GatewayProvider,
  getProviderIntegration,
  listProviderIntegrations,
  listProviders,
  type ProviderIntegration,
  testProviderIntegration
} from "../api.ts"
import { html } from "../html.ts"
import { may, workspaceId } from "../session.ts"
import { PagedTable, PageHeader, useLoad, usePagedList, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"
import { notify } from "../ui/toast.ts"

const PROVIDER_TYPES = [
  ["openai", "OpenAI"],
  ["together-ai", "Together AI"],
  ["fireworks-ai", "Fireworks AI"],
  ["azure-openai", "Azure OpenAI"],
  ["bedrock", "AWS Bedrock"],
  ["vertex-ai", "Vertex AI"]
] as const

const LEVELS = [["workspace", "This workspace only"], ["organisation", "The organisation"]] as const

const words = (text: string) => text.split(/[\s,]+/).filter((word) => word !== "")

const HealthCell = ({ health }: { readonly health: CredentialHealth | undefined }) =>
  health === undefined
    ? html`<span class="muted">not checked yet</span>`
    : html`<span class=${`badge ${health.status === "active" ? "active" : "archived"}`}>${health.status}</span>
      ${health.status_message === null ? null : html` <span>${health.status_message}</span>`}
      <br /><small class="muted">Last success ${when(health.last_success_at)}; last failure ${
      when(health.last_failure_at)
    }</small>`

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
      <${TextField} form=${form} name="secret_mappings" label="Or: secret reference for the key (id or slug)"
        value=${fields.secret_reference_id} onInput=${set("secret_reference_id")}
        hint="The key is fetched from the secret manager when the integration is used." />
      <${TextField} form=${form} name="configurations" label="Custom host (optional)" value=${fields.custom_host}
        onInput=${set("custom_host")} />
      ${
    may("integrations.create.organisation") && may("integrations.create.workspace")
      ? html`<${SelectField} form=${form} name="workspace_id" label="Level" value=${fields.level}
        onChange=${set("level")} options=${LEVELS}
        hint="An organisation's integration is shared with workspaces through the API." />`
      : null
  }
    </div>
    <${SubmitButton} form=${form} label="Create integration" />
  <//>`
}

type NewIntegrationType = Parameters<typeof createProviderIntegration>[0]["ai_provider_id"]

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

/** The health cell (read from the integration itself: the list leaves it out) and the Test button. */
const HealthAndTest = ({ integration }: { readonly integration: ProviderIntegration }) => {
  const loaded = useLoad(() => getProviderIntegration(integration.slug), [integration.slug])
  const [tested, setTested] = useState<CredentialHealth | undefined>(undefined)
  const health = tested ?? loaded.data?.credential_health ?? integration.credential_health
  const mayTest = may("integrations.update.workspace") || may("integrations.update.organisation")
  return html`<td><${HealthCell} health=${health} /></td>
    <td class="actions">${
    mayTest ? html`<${TestButton} integration=${integration} onTested=${setTested} />` : null
  }</td>`
}

export const Integrations = () => {
  const workspace = workspaceId.value ?? undefined
  const list = usePagedList((paging) => listProviderIntegrations(workspace, paging), [workspace])
  const reload = list.loaded.reload
  return html`<section aria-labelledby="integrations-title">
    <h2 id="integrations-title">Integrations</h2>
    <${PagedTable} list=${list} caption="Integrations"
      head=${["Name", "Type", "Key", "Credential health", ""]} row=${(i: ProviderIntegration) =>
    html`<tr><td>${i.name} <code>${i.slug}</code></td><td>${i.ai_provider_id}</td>
        <td><code class="nowrap">${i.masked_key ?? "—"}</code></td>
        <${HealthAndTest} integration=${i} /></tr>`} />
    ${
    may("integrations.create.workspace") || may("integrations.create.organisation")
      ? html`<${IntegrationForm} onCreated=${reload} />`
      : null
  }
  </section>`
}

const ProviderForm = ({ onCreated }: { readonly onCreated: () => void }) => {
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
    onCreated()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="New provider">
    <h3>New provider</h3>
    <${FormAlert} form=${form} fields=${["name", "slug", "integration_id", "models", "workspace_id"]} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Provider name" value=${fields.name} onInput=${set("name")} />
      <${TextField} form=${form} name="slug" label="Provider slug (optional)" value=${fields.slug}
        onInput=${set("slug")} hint="Calls name it as @slug." />
      <${TextField} form=${form} name="integration_id" label="Integration (slug or id)" value=${fields.integration_id}
        onInput=${set("integration_id")} />
      <${TextField} form=${form} name="models" label="Models (optional)" value=${fields.models}
        onInput=${set("models")} hint="Separated by spaces or commas. Empty: every model the integration allows." />
    </div>
    <${SubmitButton} form=${form} label="Create provider" />
  <//>`
}

export const Providers = () => {
  const workspace = workspaceId.value ?? undefined
  const list = usePagedList((paging) => listProviders(workspace, paging), [workspace])
  const reload = list.loaded.reload
  return html`<section aria-labelledby="providers-title">
    <h2 id="providers-title">Providers</h2>
    <${PagedTable} list=${list} caption="Providers" head=${["Name", "Slug", "Integration", "Models", "Created"]}
      row=${(p: GatewayProvider) =>
    html`<tr><td>${p.name}</td><td><code>@${p.slug}</code></td><td><code>${p.integration_id}</code></td>
        <td>${p.models === null ? "all the integration allows" : p.models.join(", ")}</td>
        <td>${when(p.created_at)}</td></tr>`} />
    ${may("providers.create") ? html`<${ProviderForm} onCreated=${reload} />` : null}
  </section>`
}

export const IntegrationsPage = () =>
  html`<${PageHeader} title="Integrations & providers" />
    ${may("integrations.list") || may("workspace_integrations.list") ? html`<${Integrations} />` : null}
    ${may("providers.list") ? html`<${Providers} />` : null}`
