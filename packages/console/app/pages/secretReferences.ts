/**
 * Secret references: where a secret lives in the organisation's own secret manager (Vault, AWS Secrets Manager,
 * Azure Key Vault, or the gateway's secrets file) and the login to fetch it. Listed, created, changed and deleted
 * here; the secret's value is never shown (the gateway never answers it), only where it lives, and the login's
 * secret fields are write-only. Deleting one names the integrations that take a secret from it.
 */
import { useState } from "preact/hooks"
import {
  createSecretReference,
  deleteSecretReference,
  listProviderIntegrations,
  listSecretReferences,
  type SecretManagerType,
  type SecretReferenceItem,
  updateSecretReference
} from "../api.ts"
import { html } from "../html.ts"
import { may } from "../session.ts"
import { ConfirmButton, PagedTable, useLoad, usePagedList } from "../ui/common.ts"
import { CheckboxField, FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"
import { authConfigOf, loginOf, MANAGER_OPTIONS, MANAGERS } from "../ui/secretLogins.ts"
import { notify } from "../ui/toast.ts"
import { WorkspaceChecks, workspaceName } from "../ui/workspaceChecks.ts"

const FIELDS = ["name", "slug", "manager_type", "secret_path", "secret_key", "auth_config", "allowed_workspaces"]

/** The form of a new reference, or of a change to `existing` (its manager stays; its secrets are kept unless typed). */
const ReferenceForm = (
  { existing, onDone }: { readonly existing?: SecretReferenceItem; readonly onDone: () => void }
) => {
  const form = useForm()
  const [type, setType] = useState<SecretManagerType>(existing?.manager_type ?? "hashicorp_vault")
  const [kind, setKind] = useState(loginOf(type, existing?.auth_config ?? {}).kind)
  const manager = MANAGERS[type]
  const login = manager.logins.find((l) => l.kind === kind) ?? manager.logins[0]!
  // The login's non-secret fields as stored; secret ones are never read back in clear.
  const [auth, setAuth] = useState<Readonly<Record<string, string>>>(
    Object.fromEntries(
      login.fields.filter((f) => f.secret !== true).map((f) => [f.name, existing?.auth_config[f.name] ?? ""])
    )
  )
  const [fields, setFields] = useState({
    name: existing?.name ?? "",
    slug: "",
    secret_path: existing?.secret_path ?? "",
    secret_key: existing?.secret_key ?? ""
  })
  const [everyWorkspace, setEveryWorkspace] = useState(existing?.allow_all_workspaces ?? true)
  const [allowed, setAllowed] = useState<ReadonlyArray<string>>(existing?.allowed_workspaces ?? [])
  const set = (name: keyof typeof fields) => (value: string) => setFields({ ...fields, [name]: value })
  const chooseType = (value: string) => {
    const next = value as SecretManagerType
    setType(next)
    setKind(MANAGERS[next].logins[0]!.kind)
    setAuth({})
  }
  const submit = async () => {
    const authConfig = authConfigOf(type, login, auth)
    const where = everyWorkspace ? { allow_all_workspaces: true } : { allowed_workspaces: allowed }
    const key = fields.secret_key.trim()
    if (existing === undefined) {
      const made = await createSecretReference({
        name: fields.name,
        manager_type: type,
        secret_path: fields.secret_path.trim(),
        ...(fields.slug.trim() === "" ? {} : { slug: fields.slug.trim() }),
        ...(key === "" ? {} : { secret_key: key }),
        ...(authConfig === undefined ? {} : { auth_config: authConfig }),
        ...where
      })
      setFields({ name: "", slug: "", secret_path: "", secret_key: "" })
      setAuth({})
      notify(`Secret reference ${made.slug} created.`)
    } else {
      await updateSecretReference(existing.id, {
        name: fields.name,
        secret_path: fields.secret_path.trim(),
        secret_key: key === "" ? null : key,
        ...(authConfig === undefined ? {} : { auth_config: authConfig }),
        ...where
      })
      notify(`Secret reference ${existing.slug} updated.`)
    }
    onDone()
  }
  const label = existing === undefined ? "New secret reference" : `Edit secret reference ${existing.name}`
  return html`<${FormFrame} form=${form} onSubmit=${submit} label=${label}>
    <h3>${label}</h3>
    <${FormAlert} form=${form} fields=${[...FIELDS, ...login.fields.map((f) => `auth_config.${f.name}`)]} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Reference name" value=${fields.name} onInput=${set("name")} />
      ${
    existing === undefined
      ? html`<${TextField} form=${form} name="slug" label="Reference slug (optional)" value=${fields.slug}
          onInput=${set("slug")} />
        <${SelectField} form=${form} name="manager_type" label="Secret manager" value=${type}
          onChange=${chooseType} options=${MANAGER_OPTIONS} />`
      : html`<p><strong>Secret manager</strong><br />${manager.label}</p>`
  }
      ${
    manager.logins.length > 1
      ? html`<${SelectField} form=${form} name=${`auth_config.${manager.discriminator}`} label="Login"
          value=${login.kind} onChange=${(value: string) => {
        setKind(value)
        setAuth({})
      }} options=${manager.logins.map((l) => [l.kind, l.label] as const)} />`
      : null
  }
      <${TextField} form=${form} name="secret_path" label="Secret path" value=${fields.secret_path}
        onInput=${set("secret_path")} hint=${`Where the secret is: ${manager.path}.`} />
      <${TextField} form=${form} name="secret_key" label="Field of a JSON secret (optional)" value=${fields.secret_key}
        onInput=${set("secret_key")} hint="Empty: the whole value." />
      ${
    login.fields.map((f) =>
      html`<${TextField} key=${`${type}-${login.kind}-${f.name}`} form=${form} name=${`auth_config.${f.name}`}
          label=${`${f.label}${f.optional === true ? " (optional)" : ""}${f.secret === true ? " (write-only)" : ""}`}
          type=${f.secret === true ? "password" : "text"} value=${auth[f.name] ?? ""}
          onInput=${(value: string) => setAuth({ ...auth, [f.name]: value })}
          hint=${
        f.secret === true
          ? existing === undefined ? "Stored encrypted; read back masked." : "Stored; leave empty to keep it."
          : undefined
      } />`
    )
  }
    </div>
    <${CheckboxField} form=${form} name="allow_all_workspaces" label="Every workspace may use it"
      checked=${everyWorkspace} onChange=${setEveryWorkspace} />
    ${
    everyWorkspace
      ? null
      : html`<${WorkspaceChecks} form=${form} name="allowed_workspaces" legend="Workspaces that may use it"
          chosen=${allowed} onChange=${setAllowed} />`
  }
    <${SubmitButton} form=${form} label=${existing === undefined ? "Create secret reference" : "Save reference"} />
    ${existing === undefined ? null : html` <button type="button" onClick=${onDone}>Cancel</button>`}
  <//>`
}

const where = (r: SecretReferenceItem) =>
  html`<code>${r.secret_path}</code>${r.secret_key === null ? null : html` field <code>${r.secret_key}</code>`}`

const openTo = (r: SecretReferenceItem) =>
  r.allow_all_workspaces ? "every workspace" : r.allowed_workspaces.map(workspaceName).join(", ") || "no workspace"

/** `version` moves when integrations change, so which of them use a reference is read again. */
export const SecretReferences = ({ version }: { readonly version: number }) => {
  const list = usePagedList((paging) => listSecretReferences(paging), [])
  // Which integrations take a secret from each reference, to name them before a delete.
  const integrations = useLoad(() => listProviderIntegrations(undefined, { page_size: 100, current_page: 0 }), [
    version
  ])
  const [editing, setEditing] = useState<string | null>(null)
  const usedBy = (r: SecretReferenceItem) =>
    (integrations.data?.data ?? []).filter((i) =>
      i.secret_mappings.some((m) => m.secret_reference_id === r.id || m.secret_reference_id === r.slug)
    ).map((i) => i.name)
  const changed = () => {
    setEditing(null)
    list.loaded.reload()
  }
  const question = (r: SecretReferenceItem) => {
    const users = usedBy(r)
    return `Delete ${r.name}? ${
      users.length === 0
        ? "No integration listed here takes a secret from it."
        : `${users.join(", ")} can then no longer fetch ${users.length === 1 ? "its" : "their"} secret.`
    } The secret itself stays in its manager.`
  }
  const editingNow = list.loaded.data?.data.find((r) => r.id === editing)
  return html`<section aria-labelledby="secret-references-title">
    <h2 id="secret-references-title">Secret references</h2>
    <p class="muted">A credential can stay in your own secret manager: the gateway fetches it when it calls out,
      and never stores, logs or shows it. Only where it lives is shown here.</p>
    <${PagedTable} list=${list} caption="Secret references" head=${["Name", "Manager", "Where", "Open to", ""]}
      row=${(r: SecretReferenceItem) =>
    html`<tr><td>${r.name} <code>${r.slug}</code></td><td>${MANAGERS[r.manager_type].label}</td>
        <td>${where(r)}</td><td>${openTo(r)}</td>
        <td class="actions">${
      may("secret_references.update")
        ? html`<button type="button" onClick=${() =>
          setEditing(r.id)}>Edit<span class="visually-hidden"> ${r.name}</span></button> `
        : null
    }${
      may("secret_references.delete")
        ? html`<${ConfirmButton} label=${`Delete ${r.name}`} question=${question(r)}
            done=${`Secret reference ${r.slug} deleted.`} onConfirm=${() =>
          deleteSecretReference(r.id).then(changed)} />`
        : null
    }</td></tr>`} />
    ${
    editingNow === undefined
      ? null
      : html`<${ReferenceForm} key=${editingNow.id} existing=${editingNow} onDone=${changed} />`
  }
    ${may("secret_references.create") ? html`<${ReferenceForm} onDone=${changed} />` : null}
  </section>`
}
