/**
 * SCIM tokens: the bearer tokens an identity provider provisions and deprovisions the organisation's users
 * with, at `/scim/v2`. Shown once at creation; revocable. Admin keys of owners and admins.
 */
import { useState } from "preact/hooks"
import { createScimToken, listScimTokens, revokeScimToken, type ScimToken } from "../api.ts"
import { html } from "../html.ts"
import { may } from "../session.ts"
import { ConfirmButton, PagedTable, PageHeader, usePagedList } from "../ui/common.ts"
import { FormAlert, FormFrame, SubmitButton, TextField, useForm } from "../ui/forms.ts"

const NewToken = ({ onCreated }: { readonly onCreated: () => void }) => {
  const form = useForm()
  const [name, setName] = useState("")
  const [secret, setSecret] = useState<string | null>(null)
  const submit = async () => {
    const created = await createScimToken({ name })
    setSecret(created.token)
    onCreated()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="New SCIM token">
    <h2>New SCIM token</h2>
    <${FormAlert} form=${form} fields=${["name"]} />
    <${TextField} form=${form} name="name" label="Name" value=${name} onInput=${setName} placeholder="Okta" />
    <${SubmitButton} form=${form} label="Create SCIM token" />
    ${secret === null ? null : html`<p role="status">Copy it now, it is not shown again: <code>${secret}</code></p>`}
  <//>`
}

export const ScimTokensPage = () => {
  const list = usePagedList(listScimTokens, [])
  return html`<${PageHeader} title="SCIM" />
    <p class="muted">An identity provider creates, changes and removes users at <code>/scim/v2</code> with one of
      these tokens as <code>Authorization: Bearer</code>. Setting a user <code>active: false</code>, or deleting
      them, ends their console sessions and revokes their workspace-user keys and any admin key bound to them, in
      every process at once; while inactive they cannot sign in, and reactivating them revives none. Service keys
      they created keep working: review them on the API keys page. Groups give roles through the identity
      providers' role maps.</p>
    <${PagedTable} list=${list} caption="SCIM tokens"
      head=${["Name", "Token", "Status", "Created", ""]} row=${(t: ScimToken) =>
    html`<tr><td>${t.name}</td><td><code>${t.masked_token}</code></td><td>${t.status}</td>
        <td>${t.created_at}</td>
        <td>${
      t.status === "active" && may("scim_tokens.revoke")
        ? html`<${ConfirmButton} label="Revoke" question="Revoke this token? The identity provider's next call fails."
              onConfirm=${() => revokeScimToken(t.id).then(list.loaded.reload)} />`
        : null
    }</td></tr>`} />
    ${may("scim_tokens.create") ? html`<${NewToken} onCreated=${list.loaded.reload} />` : null}`
}
