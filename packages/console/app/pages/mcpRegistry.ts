/**
 * The MCP registry: integrations at organisation level (open to every workspace or to chosen ones) and at
 * workspace level, with their status and its reason, each managed in full (test, sync, capabilities; see
 * `ui/mcpIntegration.ts`) and archived at any status, and the servers workspaces made of them. Header values are write-only:
 * reads show them masked.
 */
import { useState } from "preact/hooks"
import {
  archiveIntegration,
  createIntegration,
  createServer,
  listIntegrations,
  listServers,
  type McpIntegration,
  type McpServer
} from "../api.ts"
import { html } from "../html.ts"
import { isAdminKey, may, session, workspaceId } from "../session.ts"
import { ConfirmButton, PagedTable, PageHeader, useLoad, usePagedList } from "../ui/common.ts"
import { CheckboxField, FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"
import { IntegrationDetail, StatusText } from "../ui/mcpIntegration.ts"

/** An admin key must name its organisation when listing integrations. */
const organisationQuery = () => (isAdminKey() ? { organisation_id: session.value?.key.organisation_id } : {})

const visibility = (i: McpIntegration) =>
  i.workspace_id !== null
    ? "this workspace"
    : i.global_workspace_access
    ? "every workspace"
    : `${i.workspaces_count} workspace${i.workspaces_count === 1 ? "" : "s"}`

const INTEGRATION_FIELDS = [
  "name",
  "url",
  "transport",
  "auth_type",
  "configurations",
  "global_workspace_access",
  "workspace_ids",
  "workspace_id"
]

const IntegrationForm = ({ onCreated }: { readonly onCreated: () => void }) => {
  const form = useForm()
  const mayOrganisation = may("mcp_integrations.create.organisation")
  const [level, setLevel] = useState(mayOrganisation ? "organisation" : "workspace")
  const [name, setName] = useState("")
  const [url, setUrl] = useState("")
  const [transport, setTransport] = useState<McpIntegration["transport"]>("http")
  const [auth, setAuth] = useState<McpIntegration["auth_type"]>("none")
  const [headerName, setHeaderName] = useState("Authorization")
  const [headerValue, setHeaderValue] = useState("")
  const [everyWorkspace, setEveryWorkspace] = useState(true)
  const [chosen, setChosen] = useState<ReadonlyArray<string>>([])
  const workspaces = session.value?.workspaces ?? []

  const submit = async () => {
    await createIntegration({
      name,
      url,
      transport,
      auth_type: auth,
      ...(auth === "headers" ? { configurations: { headers: { [headerName]: headerValue } } } : {}),
      ...(level === "organisation"
        ? { global_workspace_access: everyWorkspace, ...(everyWorkspace ? {} : { workspace_ids: chosen }) }
        : isAdminKey() && workspaceId.value !== null
        ? { workspace_id: workspaceId.value }
        : {})
    })
    setName("")
    setUrl("")
    setHeaderValue("")
    onCreated()
  }

  return html`<${FormFrame} form=${form} onSubmit=${submit} label="New integration">
    <h2>New integration</h2>
    <${FormAlert} form=${form} fields=${INTEGRATION_FIELDS} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Name" value=${name} onInput=${setName} required=${true} />
      <${TextField} form=${form} name="url" label="URL" type="url" value=${url} onInput=${setUrl} placeholder="https://mcp.example.com/mcp" />
      <${SelectField} form=${form} name="transport" label="Transport" value=${transport} onChange=${setTransport}
        options=${[["http", "Streamable HTTP"], ["sse", "SSE"]]} />
      <${SelectField} form=${form} name="auth_type" label="Authentication" value=${auth} onChange=${setAuth}
        options=${[["none", "None"], ["headers", "Headers"], ["oauth_auto", "OAuth (automatic)"]]} />
      ${
    mayOrganisation
      ? html`<${SelectField} form=${form} name="level" label="Level" value=${level} onChange=${setLevel}
            options=${[["organisation", "Organisation"], ["workspace", "The chosen workspace"]]} />`
      : null
  }
    </div>
    ${
    auth === "headers"
      ? html`<div class="grid">
          <${TextField} form=${form} name="header_name" label="Header name" value=${headerName} onInput=${setHeaderName} />
          <${TextField} form=${form} name="configurations" label="Header value (write-only)" type="password"
            value=${headerValue} onInput=${setHeaderValue} hint="Stored encrypted; reads show it masked." />
        </div>`
      : null
  }
    ${
    level === "organisation"
      ? html`<${CheckboxField} form=${form} name="global_workspace_access" label="Open to every workspace"
          checked=${everyWorkspace} onChange=${setEveryWorkspace} />
        ${
        everyWorkspace ? null : html`<fieldset><legend>Open to these workspaces</legend>
          ${
          workspaces.map((w) =>
            html`<label class="check"><input type="checkbox" checked=${chosen.includes(w.id)} onChange=${(e: Event) =>
              setChosen(
                (e.currentTarget as HTMLInputElement).checked ? [...chosen, w.id] : chosen.filter((id) => id !== w.id)
              )} /> ${w.name}</label>`
          )
        }
        </fieldset>`
      }`
      : null
  }
    <${SubmitButton} form=${form} label="Create integration" />
  <//>`
}

const Integrations = ({ onChange }: { readonly onChange: () => void }) => {
  const [type, setType] = useState("all")
  const [status, setStatus] = useState("active")
  const [search, setSearch] = useState("")
  const workspace = workspaceId.value ?? undefined
  const list = usePagedList(
    (paging) => listIntegrations({ ...organisationQuery(), type, status, search, ...paging }),
    [type, status, search, workspace]
  )
  const changed = () => {
    list.loaded.reload()
    onChange()
  }
  const mayCreate = may("mcp_integrations.create.organisation") || may("mcp_integrations.create.workspace")
  const mayChange = (i: McpIntegration) =>
    may(i.workspace_id === null ? "mcp_integrations.update.organisation" : "mcp_integrations.update.workspace")
  const filter = useForm()
  const [openId, setOpenId] = useState<string | null>(null)
  const open = list.loaded.data?.data.find((i) => i.id === openId)
  return html`<section aria-labelledby="integrations-title">
    <h2 id="integrations-title">Integrations</h2>
    ${
    open === undefined
      ? null
      : html`<${IntegrationDetail} key=${open.id} id=${open.id} mayChange=${mayChange(open)} onChanged=${changed}
          onClose=${() => setOpenId(null)} />`
  }
    <div class="grid filters">
      <${SelectField} form=${filter} name="type" label="Level" value=${type} onChange=${setType}
        options=${[["all", "All"], ["organisation", "Organisation"], ["workspace", "Workspace"]]} />
      <${SelectField} form=${filter} name="status" label="Status" value=${status} onChange=${setStatus}
        options=${[["active", "Active or unhealthy"], ["archived", "Archived"]]} />
      <${TextField} form=${filter} name="search" label="Search" type="search" value=${search} onInput=${setSearch} />
    </div>
    <${PagedTable} list=${list} caption="Integrations" filtered=${
    search.trim() !== "" || status !== "active" || type !== "all"
  }
      head=${["Name", "URL", "Level", "Open to", "Auth", "Status", ""]}
      row=${(i: McpIntegration) =>
    html`<tr>
        <td>${i.name} <code>${i.slug}</code></td>
        <td><code>${i.url}</code> (${i.transport})</td>
        <td>${i.workspace_id === null ? "organisation" : "workspace"}</td>
        <td>${visibility(i)}</td>
        <td>${i.auth_type}</td>
        <td><${StatusText} integration=${i} /></td>
        <td class="actions"><button type="button" onClick=${() => setOpenId(i.id)}>Manage<span
          class="visually-hidden"> ${i.name}</span></button> ${
      i.status !== "archived" && mayChange(i)
        ? html`<${ConfirmButton} label="Archive"
              question=${`Archive ${i.name}? Its servers stop working for every workspace using it.`}
              done=${`${i.name} archived.`} onConfirm=${() => archiveIntegration(i.id).then(changed)} />`
        : null
    }</td>
      </tr>`} />
    ${mayCreate ? html`<${IntegrationForm} onCreated=${changed} />` : null}
  </section>`
}

/** `version` changes when an integration was added or archived, so the choice of integrations is read again. */
const Servers = ({ version }: { readonly version: number }) => {
  const workspace = workspaceId.value ?? undefined
  const list = usePagedList((paging) => listServers({ workspace_id: workspace, ...paging }), [workspace])
  const usable = useLoad(
    () => listIntegrations({ ...organisationQuery(), workspace_id: workspace, page_size: 100, current_page: 0 }),
    [workspace, version]
  )
  const integrations = usable.data?.data ?? []
  const form = useForm()
  const [name, setName] = useState("")
  const [integration, setIntegration] = useState("")
  const submit = async () => {
    await createServer({
      name,
      mcp_integration_id: integration || integrations[0]?.id || "",
      ...(isAdminKey() && workspace !== undefined ? { workspace_id: workspace } : {})
    })
    setName("")
    list.loaded.reload()
  }
  return html`<section aria-labelledby="servers-title">
    <h2 id="servers-title">Servers of the workspace</h2>
    <${PagedTable} list=${list} caption="Servers" head=${["Name", "Slug", "Integration", "Status"]} row=${(
    s: McpServer
  ) =>
    html`<tr><td>${s.name}</td><td><code>${s.slug}</code></td>
        <td>${
      integrations.find((i) => i.id === s.mcp_integration_id)?.name ?? html`<code>${s.mcp_integration_id}</code>`
    }</td>
        <td><span class=${`badge ${s.status}`}>${s.status}</span></td></tr>`} />
    ${
    may("mcp_servers.create")
      ? html`<${FormFrame} form=${form} onSubmit=${submit} label="New server">
        <h3>New server</h3>
        <${FormAlert} form=${form} fields=${["name", "mcp_integration_id"]} />
        <div class="grid">
          <${TextField} form=${form} name="name" label="Server name" value=${name} onInput=${setName} />
          <${SelectField} form=${form} name="mcp_integration_id" label="Integration" value=${integration}
            onChange=${setIntegration} options=${integrations.map((i) => [i.id, i.name] as const)} />
        </div>
        <${SubmitButton} form=${form} label="Create server" />
      <//>`
      : null
  }
  </section>`
}

export const McpRegistryPage = () => {
  const [version, setVersion] = useState(0)
  return html`<${PageHeader} title="MCP registry" />
    ${
    may("mcp_integrations.list")
      ? html`<${Integrations} onChange=${() => setVersion((v) => v + 1)} />`
      : null
  }
    ${may("mcp_servers.list") ? html`<${Servers} version=${version} />` : null}`
}
