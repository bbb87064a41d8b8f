/**
 * API keys: the list (masked), a new key with scopes chosen from the signed-in key's own (a key can never
 * give more than it has), the new key shown once, and revocation behind a confirmation.
 */
import { useState } from "preact/hooks"
import { type ApiKey, createApiKey, listApiKeys, revokeApiKey } from "../api.ts"
import { html } from "../html.ts"
import { can, isAdminKey, session, workspaceId } from "../session.ts"
import { ConfirmButton, CopyButton, PagedTable, PageHeader, usePagedList, when } from "../ui/common.ts"
import {
  errorFor,
  type Form,
  FormAlert,
  FormFrame,
  SelectField,
  SubmitButton,
  TextField,
  useForm
} from "../ui/forms.ts"

const KINDS = [
  ["organisation/service", "Admin key (organisation)", "organisation_service_api_keys.create"],
  ["workspace/service", "Workspace service key", "workspace_service_api_keys.create"],
  ["workspace/user", "Workspace user key", "workspace_user_api_keys.create"]
] as const

const ScopePicker = (
  props: { readonly form: Form; readonly chosen: ReadonlySet<string>; readonly onChange: (s: Set<string>) => void }
) => {
  const own = session.value?.key.scopes ?? []
  const [filter, setFilter] = useState("")
  const shown = own.filter((s) => s.includes(filter.trim()))
  const toggle = (scope: string, on: boolean) => {
    const next = new Set(props.chosen)
    if (on) next.add(scope)
    else next.delete(scope)
    props.onChange(next)
  }
  const error = errorFor(props.form, "scopes")
  return html`<fieldset class="scopes" aria-describedby=${error === undefined ? undefined : "scopes-error"}>
    <legend>Scopes (${props.chosen.size} of the ${own.length} this key has)</legend>
    <label>Filter scopes <input type="search" value=${filter}
      onInput=${(e: Event) => setFilter((e.currentTarget as HTMLInputElement).value)} /></label>
    <div class="scope-list">
      ${
    shown.map((scope) =>
      html`<label class="check"><input type="checkbox" name="scopes" value=${scope} checked=${props.chosen.has(scope)}
          onChange=${(e: Event) => toggle(scope, (e.currentTarget as HTMLInputElement).checked)} /> ${scope}</label>`
    )
  }
    </div>
    ${error === undefined ? null : html`<p class="field-error" id="scopes-error" role="alert">${error}</p>`}
  </fieldset>`
}

/** The new key, once: it cannot be read again. */
const NewKey = ({ secret, onDone }: { readonly secret: string; readonly onDone: () => void }) =>
  html`<section class="new-key" aria-labelledby="new-key-title">
    <h2 id="new-key-title">Copy the new key now</h2>
    <p class="warning"><strong>This is the only time the key is shown.</strong> Store it somewhere safe; the
      gateway keeps only its digest and cannot show it again.</p>
    <div class="copy-row">
      <label for="new-key-value" class="visually-hidden">New API key</label>
      <input id="new-key-value" readonly autoFocus value=${secret} onFocus=${(e: Event) =>
    (e.currentTarget as HTMLInputElement).select()} />
      <${CopyButton} text=${secret} />
    </div>
    <button type="button" onClick=${onDone}>I have stored it</button>
  </section>`

const FIELDS = ["name", "type", "workspace_id", "user_id", "description", "expires_at", "scopes"]

const CreateKeyForm = ({ onCreated }: { readonly onCreated: (secret: string) => void }) => {
  const form = useForm()
  const kinds = KINDS.filter(([kind, , scope]) => can(scope) && (kind !== "organisation/service" || isAdminKey()))
  const [kind, setKind] = useState<string>(
    kinds.find(([k]) => k !== "organisation/service")?.[0] ?? kinds[0]?.[0] ?? ""
  )
  const [name, setName] = useState("")
  const [userId, setUserId] = useState("")
  const [description, setDescription] = useState("")
  const [expires, setExpires] = useState("")
  const [scopes, setScopes] = useState<Set<string>>(new Set())
  if (kinds.length === 0) return null

  const submit = async () => {
    const workspaceKey = kind !== "organisation/service"
    const created = await createApiKey(kind, {
      name,
      scopes: [...scopes],
      ...(workspaceKey && isAdminKey() && workspaceId.value !== null ? { workspace_id: workspaceId.value } : {}),
      ...(kind === "workspace/user" && userId.trim() !== "" ? { user_id: userId.trim() } : {}),
      ...(description.trim() === "" ? {} : { description: description.trim() }),
      ...(expires === "" ? {} : { expires_at: new Date(expires).toISOString() })
    })
    setName("")
    setScopes(new Set())
    onCreated(created.key)
  }

  return html`<${FormFrame} form=${form} onSubmit=${submit} label="New API key">
    <h2>New API key</h2>
    <${FormAlert} form=${form} fields=${FIELDS} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Name" value=${name} onInput=${setName} required=${true} />
      <${SelectField} form=${form} name="type" label="Kind" value=${kind} onChange=${setKind}
        options=${kinds.map(([k, label]) => [k, label] as const)} />
      ${
    kind === "workspace/user"
      ? html`<${TextField} form=${form} name="user_id" label="User id" value=${userId} onInput=${setUserId}
            hint="The member the key acts as; your own user when empty." />`
      : null
  }
      <${TextField} form=${form} name="description" label="Description (optional)" value=${description} onInput=${setDescription} />
      <${TextField} form=${form} name="expires_at" label="Expires (optional)" type="datetime-local" value=${expires}
        onInput=${setExpires} />
    </div>
    ${
    kind !== "organisation/service" && isAdminKey()
      ? html`<p class="muted">For the workspace chosen at the top of the page.</p>`
      : null
  }
    <${ScopePicker} form=${form} chosen=${scopes} onChange=${setScopes} />
    <${SubmitButton} form=${form} label="Create key" />
  <//>`
}

export const ApiKeysPage = () => {
  const workspace = isAdminKey() ? undefined : workspaceId.value ?? undefined
  const list = usePagedList((paging) => listApiKeys(workspace, paging), [workspace])
  const [secret, setSecret] = useState<string | null>(null)
  const ownId = session.value?.key.id

  return html`
    <${PageHeader} title="API keys" />
    ${secret === null ? null : html`<${NewKey} secret=${secret} onDone=${() => setSecret(null)} />`}
    <${PagedTable} list=${list} caption="API keys" head=${[
    "Name",
    "Key",
    "Kind",
    "Workspace",
    "Scopes",
    "Status",
    "Created",
    ""
  ]}
      row=${(key: ApiKey) =>
    html`<tr>
        <td>${key.name}${key.id === ownId ? html` <span class="badge">this session</span>` : null}</td>
        <td><code class="nowrap">${key.masked_key}</code></td>
        <td>${key.type}</td>
        <td>${key.workspace_id === null ? "—" : html`<code>${key.workspace_id}</code>`}</td>
        <td><span title=${key.scopes.join(", ")}>${key.scopes.length}</span></td>
        <td><span class=${`badge ${key.status}`}>${key.status}</span></td>
        <td>${when(key.created_at)}</td>
        <td>${
      key.status === "active" && can("api_keys.delete") && key.id !== ownId
        ? html`<${ConfirmButton} label="Revoke" question=${`Revoke ${key.name}? It stops working at once.`}
              onConfirm=${() => revokeApiKey(key.id).then(list.loaded.reload)} />`
        : null
    }</td>
      </tr>`} />
    <${CreateKeyForm} onCreated=${(key: string) => {
    setSecret(key)
    list.loaded.reload()
  }} />`
}
