/**
 * The audit log, newest first: filters (time range, action, resource, status, user, workspace), paging, and a
 * record's detail with its request body as stored (secrets already redacted by the server).
 */
import { useEffect, useState } from "preact/hooks"
import { type AuditRecord, listAuditLogs } from "../api.ts"
import { html } from "../html.ts"
import { session } from "../session.ts"
import { Json, PagedTable, PageHeader, usePagedList, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"

interface Filters {
  readonly start_time: string
  readonly end_time: string
  readonly action: string
  readonly resource_type: string
  readonly response_status_code: string
  readonly user_id: string
  readonly workspace_id: string
}

const NO_FILTERS: Filters = {
  start_time: "",
  end_time: "",
  action: "",
  resource_type: "",
  response_status_code: "",
  user_id: "",
  workspace_id: ""
}

/** `datetime-local` values are local time; the API reads a time without a zone as UTC, so send it with one. */
const instant = (local: string) => (local === "" ? undefined : new Date(local).toISOString())

const Detail = ({ record, onClose }: { readonly record: AuditRecord; readonly onClose: () => void }) => {
  // Opening a record moves the keyboard focus to it.
  useEffect(() => document.getElementById("record-title")?.focus(), [record])
  return html`<section class="detail" aria-labelledby="record-title">
    <h2 id="record-title" tabIndex="-1">Record #${record.seq}: ${record.action} ${record.resource_type}</h2>
    <dl>
      <dt>When</dt><dd>${when(record.timestamp)}</dd>
      <dt>Request</dt><dd><code>${record.method} ${record.uri}</code> (id <code>${record.request_id}</code>)</dd>
      <dt>Status</dt><dd>${record.response_status_code}</dd>
      <dt>Resource</dt><dd>${record.resource_type} <code>${record.resource_id ?? "—"}</code></dd>
      <dt>User</dt><dd><code>${record.user_id ?? "—"}</code> (${record.user_type})</dd>
      <dt>API key</dt><dd><code>${record.api_key_id ?? "—"}</code></dd>
      <dt>Workspace</dt><dd><code>${record.workspace_id ?? "—"}</code></dd>
      <dt>Client address</dt><dd>${record.client_ip ?? "—"}</dd>
      ${
    record.sanitized ? html`<dt>Sanitized</dt><dd>The body was changed to be storable (see the README).</dd>` : null
  }
    </dl>
    <h3>Request body (secrets redacted)</h3>
    <${Json} value=${record.request_body} label="Request body" />
    <button type="button" onClick=${onClose}>Close</button>
  </section>`
}

export const AuditLogsPage = () => {
  const form = useForm()
  const [draft, setDraft] = useState<Filters>(NO_FILTERS)
  const [applied, setApplied] = useState<Filters>(NO_FILTERS)
  const [open, setOpen] = useState<AuditRecord | null>(null)
  const list = usePagedList(
    (paging) =>
      listAuditLogs({
        ...applied,
        start_time: instant(applied.start_time),
        end_time: instant(applied.end_time),
        ...paging
      }).then((page) => {
        form.report(undefined)
        return page
      }, (error: unknown) => {
        // A refused filter is shown next to its field, over an empty list.
        form.report(error)
        return { data: [], total: 0, has_more: false }
      }),
    [applied]
  )
  const set = (name: keyof Filters) => (value: string) => setDraft({ ...draft, [name]: value })
  const workspaces = session.value?.workspaces ?? []

  return html`
    <${PageHeader} title="Audit log" />
    <${FormFrame} form=${form} label="Filters" onSubmit=${async () => {
    list.setPage(0)
    setApplied(draft)
  }}>
      <${FormAlert} form=${form} fields=${Object.keys(NO_FILTERS)} />
      <div class="grid filters">
        <${TextField} form=${form} name="start_time" label="From" type="datetime-local" value=${draft.start_time}
          onInput=${set("start_time")} />
        <${TextField} form=${form} name="end_time" label="Until" type="datetime-local" value=${draft.end_time}
          onInput=${set("end_time")} />
        <${TextField} form=${form} name="action" label="Action" value=${draft.action} placeholder="create, update, delete…"
          onInput=${set("action")} />
        <${TextField} form=${form} name="resource_type" label="Resource" value=${draft.resource_type}
          placeholder="prompt, api_key…" onInput=${set("resource_type")} />
        <${TextField} form=${form} name="response_status_code" label="Status" value=${draft.response_status_code}
          placeholder="201" onInput=${set("response_status_code")} />
        <${TextField} form=${form} name="user_id" label="User id" value=${draft.user_id} onInput=${set("user_id")} />
        <${SelectField} form=${form} name="workspace_id" label="Workspace" value=${draft.workspace_id}
          onChange=${set("workspace_id")} options=${[["", "All"], ...workspaces.map((w) => [w.id, w.name] as const)]} />
      </div>
      <${SubmitButton} form=${form} label="Apply filters" />
      <button type="button" onClick=${() => {
    setDraft(NO_FILTERS)
    setApplied(NO_FILTERS)
    list.setPage(0)
  }}>Clear</button>
    <//>
    ${open === null ? null : html`<${Detail} record=${open} onClose=${() => setOpen(null)} />`}
    <${PagedTable} list=${list} caption="Audit records" head=${[
    "#",
    "When",
    "Action",
    "Resource",
    "Status",
    "User",
    ""
  ]}
      row=${(r: AuditRecord) =>
    html`<tr>
        <td>${r.seq}</td>
        <td>${when(r.timestamp)}</td>
        <td>${r.action}</td>
        <td>${r.resource_type}</td>
        <td><span class=${`status s${String(r.response_status_code)[0]}`}>${r.response_status_code}</span></td>
        <td><code>${r.user_id ?? r.user_type}</code></td>
        <td><button type="button" onClick=${() =>
      setOpen(r)}>Details<span class="visually-hidden"> of record ${r.seq}</span></button></td>
      </tr>`} />`
}
