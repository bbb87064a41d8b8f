/**
 * One MCP integration managed in full: its status with the reason and since when (`status_message`,
 * `status_changed_at`, failed checks in a row), when its capabilities were last synced, a connection test, a
 * capabilities sync, and its capabilities listed with a search and a type filter (the API's), each turned on or
 * off with a switch. Archiving is offered at any status but archived.
 */
import { useState } from "preact/hooks"
import {
  getIntegration,
  integrationMetadata,
  listCapabilities,
  type McpCapability,
  type McpIntegration,
  type McpTestResult,
  setCapabilities,
  syncCapabilities,
  testIntegration
} from "../api.ts"
import { html } from "../html.ts"
import { Empty, LoadState, Pager, useLoad, usePaging, when } from "./common.ts"
import { FormAlert, SelectField, TextField, useForm } from "./forms.ts"
import { notify } from "./toast.ts"

/** The status as a sentence: what it is, since when, and why. */
export const StatusText = ({ integration: i }: { readonly integration: McpIntegration }) =>
  html`<span class=${`badge ${i.status}`}>${i.status}</span>
    <span class="status-line"> since ${when(i.status_changed_at)}</span>${
    i.status_message === null
      ? null
      : html`<span class="status-line">: <span class="reason">${i.status_message}</span></span>`
  }`

const testText = (r: McpTestResult) =>
  r.success
    ? `Connected in ${r.response_time_ms} ms${r.status_code === null ? "" : ` (HTTP ${r.status_code})`}.`
    : `The server could not be used${r.status_code === null ? "" : ` (HTTP ${r.status_code})`}: ${
      r.error ?? "no reason given"
    }.`

const Capabilities = (
  props: { readonly id: string; readonly version: number; readonly mayChange: boolean }
) => {
  const [search, setSearch] = useState("")
  const [type, setType] = useState("")
  const { paging, setPage } = usePaging(50)
  const filter = useForm()
  const loaded = useLoad(
    () => listCapabilities(props.id, { search: search.trim(), type, ...paging }),
    [props.id, props.version, search, type, paging.current_page]
  )
  const toggle = async (c: McpCapability, enabled: boolean) => {
    try {
      await setCapabilities(props.id, { capabilities: [{ name: c.name, type: c.type, enabled }] })
      notify(`${c.name} turned ${enabled ? "on" : "off"}.`)
    } catch (error) {
      filter.report(error)
    }
    loaded.reload()
  }
  return html`<section aria-labelledby=${`caps-${props.id}`}>
    <h3 id=${`caps-${props.id}`}>Capabilities</h3>
    <${FormAlert} form=${filter} fields=${[]} />
    <div class="grid filters">
      <${TextField} form=${filter} name="search" label="Search capabilities" type="search" value=${search}
        onInput=${(v: string) => {
    setSearch(v)
    setPage(0)
  }} />
      <${SelectField} form=${filter} name="type" label="Type" value=${type} onChange=${(v: string) => {
    setType(v)
    setPage(0)
  }}
        options=${[["", "All"], ["tool", "Tools"], ["prompt", "Prompts"], ["resource", "Resources"], [
    "resource_template",
    "Resource templates"
  ]]} />
    </div>
    <${LoadState} loaded=${loaded}>${(page: { data: ReadonlyArray<McpCapability>; total: number; has_more: boolean }) =>
    page.data.length === 0
      ? html`<${Empty} filtered=${search.trim() !== "" || type !== ""} />`
      : html`<ul class="cap-list" aria-label="Capabilities">
          ${
        page.data.map((c) =>
          html`<li key=${`${c.type}:${c.name}`}>
              <input type="checkbox" role="switch" id=${`cap-${c.type}-${c.name}`} checked=${c.enabled}
                disabled=${!props.mayChange}
                onChange=${(e: Event) => void toggle(c, (e.currentTarget as HTMLInputElement).checked)} />
              <label for=${`cap-${c.type}-${c.name}`}><code>${c.name}</code> <span class="badge">${c.type}</span></label>
              <span class="muted">${c.description ?? ""}</span>
            </li>`
        )
      }
        </ul>
        <${Pager} paging=${paging} total=${page.total} hasMore=${page.has_more} onPage=${setPage} of="capabilities" />`}<//>
  </section>`
}

export const IntegrationDetail = (
  props: {
    readonly id: string
    readonly mayChange: boolean
    readonly onChanged: () => void
    readonly onClose: () => void
  }
) => {
  const integration = useLoad(() => getIntegration(props.id), [props.id])
  const [version, setVersion] = useState(0)
  const metadata = useLoad(() => integrationMetadata(props.id), [props.id, version])
  const [tested, setTested] = useState<string | null>(null)
  const actions = useForm()
  const test = () =>
    actions.run(async () => {
      const result = await testIntegration(props.id)
      setTested(`${testText(result)} (${new Date().toLocaleTimeString()})`)
      if (result.success) notify("Connection test passed.")
      integration.reload()
    })
  const sync = () =>
    actions.run(async () => {
      const result = await syncCapabilities(props.id)
      notify(`Synced: ${result.total} capabilities (${result.added} new, ${result.removed} gone).`)
      setVersion((v) => v + 1)
      integration.reload()
    })
  return html`<${LoadState} loaded=${integration}>${(i: McpIntegration) =>
    html`<section class="detail" aria-labelledby="integration-title">
      <h2 id="integration-title">Integration ${i.name}</h2>
      <dl>
        <dt>Status</dt><dd><${StatusText} integration=${i} /></dd>
        <dt>Failed checks in a row</dt><dd>${i.consecutive_failures}</dd>
        <dt>URL</dt><dd><code>${i.url}</code> (${i.transport})</dd>
        <dt>Capabilities synced</dt><dd>${
      metadata.data === undefined
        ? "…"
        : metadata.data.last_synced_at === null
        ? "never"
        : when(metadata.data.last_synced_at)
    }</dd>
        <dt>Last test</dt><dd><span role="status">${tested ?? "not tested in this page"}</span></dd>
        <dt>Created</dt><dd>${when(i.created_at)}</dd>
      </dl>
      <${FormAlert} form=${actions} fields=${[]} />
      ${
      i.status === "archived" || !props.mayChange
        ? null
        : html`<p class="actions">
            <button type="button" disabled=${actions.busy.value} onClick=${test}>Test connection</button>
            <button type="button" disabled=${actions.busy.value} onClick=${sync}>Sync capabilities</button>
          </p>`
    }
      <${Capabilities} id=${i.id} version=${version} mayChange=${props.mayChange && i.status !== "archived"} />
      <p><button type="button" onClick=${props.onClose}>Close</button></p>
    </section>`}<//>`
}
