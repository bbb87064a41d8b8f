/**
 * API keys: the list (masked), filtered by status, kind and name, with when each was last used, its rotation
 * and its limits; a key's detail to edit or rotate it; a new key; and revocation behind a confirmation. A
 * secret, new or rotated, is shown once.
 */
import { useState } from "preact/hooks"
import { type ApiKey, listApiKeys, revokeApiKey, type RotatedApiKey } from "../api.ts"
import { html } from "../html.ts"
import { isAdminKey, may, session, workspaceId, workspaceName } from "../session.ts"
import { inTransition, NewSecret, rateLimitsText } from "../ui/apiKeyParts.ts"
import { ConfirmButton, PagedTable, PageHeader, usePagedList, when } from "../ui/common.ts"
import { FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"
import { CreateKeyForm } from "./apiKeyCreate.ts"
import { KeyDetail } from "./apiKeyDetail.ts"

interface Filters {
  readonly status: string
  readonly type: string
  readonly name: string
}

const NO_FILTERS: Filters = { status: "", type: "", name: "" }

const KeyFilters = (props: { readonly onApply: (filters: Filters) => void }) => {
  const form = useForm()
  const [draft, setDraft] = useState<Filters>(NO_FILTERS)
  const set = (name: keyof Filters) => (value: string) => setDraft({ ...draft, [name]: value })
  return html`<${FormFrame} form=${form} label="Key filters" onSubmit=${async () => props.onApply(draft)}>
    <div class="grid filters">
      <${SelectField} form=${form} name="status" label="Status" value=${draft.status} onChange=${set("status")}
        options=${[["", "Any"], ["active", "Active"], ["revoked", "Revoked"]]} />
      <${SelectField} form=${form} name="type" label="Kind" value=${draft.type} onChange=${set("type")}
        options=${[
    ["", "Any"],
    ["organisation-service", "Admin key (organisation)"],
    ["workspace-service", "Workspace service key"],
    ["workspace-user", "Workspace user key"]
  ]} />
      <${TextField} form=${form} name="name" label="Name contains" type="search" value=${draft.name}
        onInput=${set("name")} />
    </div>
    <${SubmitButton} form=${form} label="Apply filters" />
    <button type="button" onClick=${() => {
    setDraft(NO_FILTERS)
    props.onApply(NO_FILTERS)
  }}>Clear</button>
  <//>`
}

interface Shown {
  readonly secret: string
  readonly title: string
  readonly note?: string
}

const rotated = (key: RotatedApiKey): Shown => ({
  secret: key.key,
  title: `Copy the new secret of ${key.name} now`,
  note: key.transition_ends_at !== null && inTransition(key)
    ? `The old secret keeps working until ${when(key.transition_ends_at)}; move its clients to this one before then.`
    : "The old secret has stopped working."
})

const StatusCell = ({ apiKey }: { readonly apiKey: ApiKey }) =>
  html`<span class=${`badge ${apiKey.status}`}>${apiKey.status}</span>${
    apiKey.status === "active" && inTransition(apiKey)
      ? html` <span class="badge" title=${`Old secret works until ${when(apiKey.transition_ends_at)}`}>rotating</span>`
      : null
  }`

export const ApiKeysPage = () => {
  const workspace = isAdminKey() ? undefined : workspaceId.value ?? undefined
  const [filters, setFilters] = useState<Filters>(NO_FILTERS)
  const list = usePagedList(
    (paging) => listApiKeys({ workspace_id: workspace, ...filters }, paging),
    [workspace, filters]
  )
  const [shown, setShown] = useState<Shown | null>(null)
  const [openId, setOpenId] = useState<string | null>(null)
  const ownId = session.value?.key.id
  const open = list.loaded.data?.data.find((key) => key.id === openId)

  return html`
    <${PageHeader} title="API keys" />
    ${
    shown === null
      ? null
      : html`<${NewSecret} secret=${shown.secret} title=${shown.title} note=${shown.note}
          onDone=${() => setShown(null)} />`
  }
    <${KeyFilters} onApply=${(next: Filters) => {
    list.setPage(0)
    setFilters(next)
  }} />
    ${
    open === undefined ? null : html`<${KeyDetail} key=${open.id} apiKey=${open} onChanged=${list.loaded.reload}
          onClose=${() => setOpenId(null)} onRotated=${(key: RotatedApiKey) => {
      setShown(rotated(key))
      list.loaded.reload()
    }} />`
  }
    <${PagedTable} list=${list} caption="API keys" head=${[
    "Name",
    "Key",
    "Kind",
    "Workspace",
    "Scopes",
    "Rate limits",
    "Last used",
    "Status",
    ""
  ]}
      row=${(key: ApiKey) =>
    html`<tr>
        <td>${key.name}${key.id === ownId ? html` <span class="badge">this session</span>` : null}</td>
        <td><code class="nowrap">${key.masked_key}</code></td>
        <td>${key.type}</td>
        <td>${key.workspace_id === undefined ? "—" : workspaceName(key.workspace_id)}</td>
        <td><span title=${key.scopes.join(", ")}>${key.scopes.length}</span></td>
        <td>${rateLimitsText(key.rate_limits)}</td>
        <td>${key.last_used_at === null ? "never" : when(key.last_used_at)}</td>
        <td><${StatusCell} apiKey=${key} /></td>
        <td class="actions"><button type="button" onClick=${() => setOpenId(key.id)}>Details<span
          class="visually-hidden"> of ${key.name}</span></button> ${
      key.status === "active" && may("api_keys.delete") && key.id !== ownId
        ? html`<${ConfirmButton} label="Revoke" question=${`Revoke ${key.name}? It stops working at once.`}
              done=${`Key ${key.name} revoked.`}
              onConfirm=${() => revokeApiKey(key.id).then(list.loaded.reload)} />`
        : null
    }</td>
      </tr>`} />
    <${CreateKeyForm} onCreated=${(secret: string) => {
    setShown({ secret, title: "Copy the new key now" })
    list.loaded.reload()
  }} />`
}
