/**
 * Identity providers: the OpenID Connect issuers people of the organisation sign in with ("Sign in with …" on
 * the sign-in page), how their groups map to roles, and which email domains are let in at a first sign-in.
 * Owners and admins; a role map that makes owners is an owner's to write (the API decides).
 */
import { useState } from "preact/hooks"
import {
  createIdentityProvider,
  deleteIdentityProvider,
  type IdentityProvider,
  listIdentityProviders,
  type RoleMap,
  updateIdentityProvider
} from "../api.ts"
import { html } from "../html.ts"
import { may } from "../session.ts"
import { ConfirmButton, PagedTable, PageHeader, usePagedList } from "../ui/common.ts"
import { FormAlert, FormFrame, SubmitButton, TextArea, TextField, useForm } from "../ui/forms.ts"

const words = (text: string) => text.split(/[\s,]+/).filter((word) => word !== "")

const FIELDS = [
  "name",
  "issuer",
  "client_id",
  "client_secret",
  "groups_claim",
  "allowed_domains",
  "role_map",
  "slug",
  "enabled"
]

const ROLE_MAP_EXAMPLE = `{"gateway-admins": {"organisation_role": "admin"},
 "staff": {"workspaces": {"default": "member"}}}`

/** The role map as written in the form: JSON, the same as `OIDC_ROLE_MAP`; the API checks its shape. */
const readRoleMap = (text: string): RoleMap | string => {
  if (text.trim() === "") return {}
  try {
    const parsed: unknown = JSON.parse(text)
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as RoleMap)
      : "must be a JSON object of groups"
  } catch (error) {
    return `is not JSON: ${error instanceof Error ? error.message : String(error)}`
  }
}

const NewProvider = ({ onCreated }: { readonly onCreated: () => void }) => {
  const form = useForm()
  const [fields, setFields] = useState({
    name: "",
    issuer: "",
    client_id: "",
    client_secret: "",
    groups_claim: "groups",
    allowed_domains: "",
    role_map: ""
  })
  const set = (name: keyof typeof fields) => (value: string) => setFields({ ...fields, [name]: value })
  const submit = async () => {
    const roleMap = readRoleMap(fields.role_map)
    if (typeof roleMap === "string") return form.fail("role_map", `role_map ${roleMap}`)
    await createIdentityProvider({
      name: fields.name,
      issuer: fields.issuer,
      client_id: fields.client_id,
      client_secret: fields.client_secret,
      groups_claim: fields.groups_claim,
      allowed_domains: words(fields.allowed_domains),
      role_map: roleMap
    })
    setFields({ ...fields, name: "", issuer: "", client_id: "", client_secret: "", role_map: "" })
    onCreated()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="New identity provider">
    <h2>New identity provider</h2>
    <p class="muted">Register <code>${location.origin}/auth/oidc/callback</code> as the redirect URI at the provider
      (or <code>PUBLIC_URL</code>'s, when the gateway is reached under another address).</p>
    <${FormAlert} form=${form} fields=${FIELDS} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Name" value=${fields.name} onInput=${set("name")}
        hint="The sign-in page shows “Sign in with” this name." />
      <${TextField} form=${form} name="issuer" label="Issuer URL" value=${fields.issuer} onInput=${set("issuer")}
        placeholder="https://accounts.example.com" />
      <${TextField} form=${form} name="client_id" label="Client id" value=${fields.client_id}
        onInput=${set("client_id")} />
      <${TextField} form=${form} name="client_secret" label="Client secret (write-only)" type="password"
        value=${fields.client_secret} onInput=${set("client_secret")} />
      <${TextField} form=${form} name="groups_claim" label="Groups claim" value=${fields.groups_claim}
        onInput=${set("groups_claim")} />
      <${TextField} form=${form} name="allowed_domains" label="Allowed email domains" value=${fields.allowed_domains}
        onInput=${set("allowed_domains")} placeholder="example.com"
        hint="Separated by spaces or commas. Empty: invitation only." />
    </div>
    <${TextArea} form=${form} name="role_map" label="Role map (JSON)" value=${fields.role_map}
      onInput=${set("role_map")} rows=${4}
      hint=${`Each group's organisation role and workspace roles (by slug), e.g. ${ROLE_MAP_EXAMPLE}`} />
    <${SubmitButton} form=${form} label="Add identity provider" />
  <//>`
}

const roleMapText = (map: IdentityProvider["role_map"]) => {
  const groups = Object.keys(map)
  return groups.length === 0 ? "—" : groups.join(", ")
}

export const IdentityProvidersPage = () => {
  const list = usePagedList(listIdentityProviders, [])
  const toggle = (p: IdentityProvider) => updateIdentityProvider(p.id, { enabled: !p.enabled }).then(list.loaded.reload)
  return html`<${PageHeader} title="Identity providers" />
    <p class="muted">People of the organisation sign in with these providers. Their groups map to roles at every
      sign-in. The provider the operator set by environment (<code>OIDC_ISSUER</code>), if any, is not listed here:
      it is changed there.</p>
    <${PagedTable} list=${list} caption="Identity providers"
      head=${["Name", "Issuer", "Client", "Mapped groups", "Domains", "Status", ""]} row=${(p: IdentityProvider) =>
    html`<tr><td>${p.name} <code>${p.slug}</code></td><td><code>${p.issuer}</code></td>
        <td><code>${p.client_id}</code> <code>${p.client_secret_hint}</code></td>
        <td>${roleMapText(p.role_map)}</td>
        <td>${p.allowed_domains.length === 0 ? "invitation only" : p.allowed_domains.join(", ")}</td>
        <td><span class=${`badge ${p.enabled ? "active" : "archived"}`}>${p.enabled ? "on" : "off"}</span>
          ${p.source === "environment" ? html` <span class="badge">environment</span>` : null}</td>
        <td class="actions">${
      p.source === "api" && may("identity_providers.update")
        ? html`<button type="button" onClick=${() => toggle(p)}>${p.enabled ? "Turn off" : "Turn on"}<span
            class="visually-hidden"> ${p.name}</span></button>`
        : null
    } ${
      p.source === "api" && may("identity_providers.delete")
        ? html`<${ConfirmButton} label="Delete" question=${`Delete ${p.name}? Nobody signs in with it again.`}
              onConfirm=${() => deleteIdentityProvider(p.id).then(list.loaded.reload)} />`
        : null
    }</td></tr>`} />
    ${may("identity_providers.create") ? html`<${NewProvider} onCreated=${list.loaded.reload} />` : null}`
}
