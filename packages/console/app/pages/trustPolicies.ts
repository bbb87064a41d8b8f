/**
 * Trust policies: which workloads' tokens (a Kubernetes service account's, a CI job's) may be exchanged at
 * `POST /v1/oauth/token` for a short-lived credential, and what it may do. Admin keys of owners and admins.
 */
import { useState } from "preact/hooks"
import { createTrustPolicy, deleteTrustPolicy, listTrustPolicies, type TrustPolicy } from "../api.ts"
import { html } from "../html.ts"
import { may, workspaceId } from "../session.ts"
import { ConfirmButton, PagedTable, PageHeader, usePagedList } from "../ui/common.ts"
import { FormAlert, FormFrame, SubmitButton, TextField, useForm } from "../ui/forms.ts"

const words = (text: string) => text.split(/[\s,]+/).filter((word) => word !== "")

const NewPolicy = ({ onCreated }: { readonly onCreated: () => void }) => {
  const form = useForm()
  const [fields, setFields] = useState({
    name: "",
    issuer: "",
    jwks_uri: "",
    audience: "",
    subject_pattern: "",
    scopes: "prompts.render",
    max_ttl_seconds: "900"
  })
  const set = (name: keyof typeof fields) => (value: string) => setFields({ ...fields, [name]: value })
  const submit = async () => {
    await createTrustPolicy({
      name: fields.name,
      issuer: fields.issuer,
      ...(fields.jwks_uri === "" ? {} : { jwks_uri: fields.jwks_uri }),
      audience: fields.audience,
      subject_pattern: fields.subject_pattern,
      workspace_id: workspaceId.value ?? "",
      scopes: words(fields.scopes),
      max_ttl_seconds: Number(fields.max_ttl_seconds)
    })
    onCreated()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="New trust policy">
    <h2>New trust policy</h2>
    <${FormAlert} form=${form} fields=${Object.keys(fields).concat(["workspace_id", "subject"])} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Name" value=${fields.name} onInput=${set("name")} />
      <${TextField} form=${form} name="issuer" label="Issuer (iss)" value=${fields.issuer} onInput=${set("issuer")}
        placeholder="https://token.actions.githubusercontent.com" />
      <${TextField} form=${form} name="jwks_uri" label="JWKS URL" value=${fields.jwks_uri} onInput=${set("jwks_uri")}
        hint="Empty: found through the issuer's OIDC discovery." />
      <${TextField} form=${form} name="audience" label="Audience (aud)" value=${fields.audience}
        onInput=${set("audience")} />
      <${TextField} form=${form} name="subject_pattern" label="Subject pattern (sub)" value=${fields.subject_pattern}
        onInput=${set("subject_pattern")} placeholder="repo:org/repo:ref:refs/heads/*" hint="* stands for any text." />
      <${TextField} form=${form} name="scopes" label="Scopes" value=${fields.scopes} onInput=${set("scopes")}
        hint="Separated by spaces or commas; never more than this key holds." />
      <${TextField} form=${form} name="max_ttl_seconds" label="Credential lifetime (s)" type="number"
        value=${fields.max_ttl_seconds} onInput=${set("max_ttl_seconds")} hint="At most 3600." />
    </div>
    <p class="muted">Credentials act in the workspace chosen above.</p>
    <${SubmitButton} form=${form} label="Create trust policy" />
  <//>`
}

export const TrustPoliciesPage = () => {
  const list = usePagedList(listTrustPolicies, [])
  return html`<${PageHeader} title="Trust policies" />
    <p class="muted">Workloads exchange a token their platform gives them at <code>POST /v1/oauth/token</code> for a
      short-lived credential. Every call it makes is in the audit log under the workload's subject.</p>
    <${PagedTable} list=${list} caption="Trust policies"
      head=${["Name", "Issuer", "Audience", "Subject", "Scopes", "Lifetime", ""]} row=${(p: TrustPolicy) =>
    html`<tr><td>${p.name}</td><td><code>${p.issuer}</code></td><td><code>${p.audience}</code></td>
        <td><code>${p.subject ?? p.subject_pattern}</code></td><td>${p.scopes.join(" ")}</td>
        <td>${p.max_ttl_seconds} s</td>
        <td>${
      may("trust_policies.delete")
        ? html`<${ConfirmButton} label="Delete" question="Delete this policy? Issued credentials run out on their own."
              onConfirm=${() => deleteTrustPolicy(p.id).then(list.loaded.reload)} />`
        : null
    }</td></tr>`} />
    ${may("trust_policies.create") ? html`<${NewPolicy} onCreated=${list.loaded.reload} />` : null}`
}
