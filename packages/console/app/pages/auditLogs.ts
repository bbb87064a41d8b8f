/**
 * The audit log, newest first: filters (time range, action and resource picked from the usual ones or typed, in
 * any case; status, person by name and email, workspace), paging, and a
 * record's detail (the person by name and email, their session and identity provider) with its request body as stored (secrets already redacted by the server).
 */
import { useEffect, useState } from "preact/hooks"
import { type AuditRecord, listAuditLogs } from "../api.ts"
import { html } from "../html.ts"
import { session, workspaceId, workspaceName } from "../session.ts"
import { Json, PagedTable, PageHeader, usePagedList, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"
import { type PersonChoice, PersonName, PersonPicker, usePeople } from "../ui/people.ts"

interface Filters {
  readonly start_time: string
  readonly end_time: string
  readonly action: string
  readonly resource_type: string
  readonly response_status_code: string
  readonly user_id: string
  /** The person's email, for calls made in their sessions (any case). */
  readonly user_email: string
  readonly workspace_id: string
  /** A workload's `sub`, for the calls of credentials issued by token exchange. */
  readonly workload_subject: string
}

/** The actions and resource types offered as the person types (any other may be typed). */
const ACTIONS = [
  "create",
  "update",
  "delete",
  "publish",
  "label",
  "render",
  "rotate",
  "revoke",
  "archive",
  "test",
  "sync",
  "sign_in",
  "sign_out",
  "accept",
  "share",
  "use"
]
const RESOURCES = [
  "api_key",
  "collection",
  "config",
  "identity_provider",
  "integration",
  "invite",
  "label",
  "mcp_integration",
  "mcp_server",
  "organisation",
  "prompt",
  "prompt_partial",
  "scim_token",
  "secret_reference",
  "session",
  "trust_policy",
  "user",
  "virtual_key",
  "workspace",
  "workspace_member"
]

const NO_FILTERS: Filters = {
  start_time: "",
  end_time: "",
  action: "",
  resource_type: "",
  response_status_code: "",
  user_id: "",
  user_email: "",
  workspace_id: "",
  workload_subject: ""
}

/** `datetime-local` values are local time; the API reads a time without a zone as UTC, so send it with one. */
const instant = (local: string) => (local === "" ? undefined : new Date(local).toISOString())

const Detail = (
  { onClose, people, record }: {
    readonly record: AuditRecord
    readonly people: ReadonlyMap<string, PersonChoice> | undefined
    readonly onClose: () => void
  }
) => {
  // Opening a record moves the keyboard focus to it.
  useEffect(() => document.getElementById("record-title")?.focus(), [record])
  return html`<section class="detail" aria-labelledby="record-title">
    <h2 id="record-title" tabIndex="-1">Record #${record.seq}: ${record.action} ${record.resource_type}</h2>
    <dl>
      <dt>When</dt><dd>${when(record.timestamp)}</dd>
      <dt>Request</dt><dd><code>${record.method} ${record.uri}</code> (id <code>${record.request_id}</code>)</dd>
      <dt>Status</dt><dd>${record.response_status_code}</dd>
      <dt>Resource</dt><dd>${record.resource_type} <code>${record.resource_id ?? "—"}</code></dd>
      <dt>Person</dt><dd>${
    record.user_email ?? html`<${PersonName} id=${record.user_id} people=${people} />`
  } (${record.user_type})</dd>
      ${
    record.session_id === null ?
      null :
      html`<dt>Session</dt><dd><code>${record.session_id}</code>${
        record.identity_provider === null
          ? null
          : html` (signed in with ${record.identity_provider} as <code>${record.identity_subject}</code>)`
      }</dd>`
  }
      <dt>API key</dt><dd><code>${record.api_key_id ?? "—"}</code></dd>
      ${
    record.workload_subject === null
      ? null
      : html`<dt>Workload</dt><dd><code>${record.workload_subject}</code> of <code>${record.workload_issuer}</code></dd>`
  }
      <dt>Workspace</dt><dd>${record.workspace_id === null ? "—" : workspaceName(record.workspace_id)}</dd>
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
  const people = usePeople(workspaceId.value)

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
          onInput=${set("action")} choices=${ACTIONS} hint="Pick one, or type it: any case." />
        <${TextField} form=${form} name="resource_type" label="Resource" value=${draft.resource_type}
          placeholder="prompt, api_key…" onInput=${set("resource_type")} choices=${RESOURCES} />
        <${TextField} form=${form} name="response_status_code" label="Status" value=${draft.response_status_code}
          placeholder="201" onInput=${set("response_status_code")} />
        <${PersonPicker} form=${form} name="user_id" label="Person" people=${[...(people.data?.values() ?? [])]}
          value=${draft.user_id} onChange=${set("user_id")} none="Anyone" />
        <${TextField} form=${form} name="user_email" label="Person's email" type="email" value=${draft.user_email}
          onInput=${set("user_email")} placeholder="ada@example.com" />
        <${TextField} form=${form} name="workload_subject" label="Workload subject" value=${draft.workload_subject}
          onInput=${set("workload_subject")} placeholder="system:serviceaccount:ns:sa" />
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
    ${open === null ? null : html`<${Detail} record=${open} people=${people.data} onClose=${() => setOpen(null)} />`}
    <${PagedTable} list=${list} caption="Audit records"
      filtered=${Object.values(applied).some((v) => v !== "")} head=${[
    "#",
    "When",
    "Action",
    "Resource",
    "Status",
    "Person",
    ""
  ]}
      row=${(r: AuditRecord) =>
    html`<tr>
        <td>${r.seq}</td>
        <td>${when(r.timestamp)}</td>
        <td>${r.action}</td>
        <td>${r.resource_type}</td>
        <td><span class=${`status s${String(r.response_status_code)[0]}`}>${r.response_status_code}</span></td>
        <td>${
      r.user_email ?? (r.user_id === null ? r.user_type : html`<${PersonName} id=${r.user_id} people=${people.data} />`)
    }</td>
        <td><button type="button" onClick=${() =>
      setOpen(r)}>Details<span class="visually-hidden"> of record ${r.seq}</span></button></td>
      </tr>`} />`
}
