/**
 * One API key in full: when it was last used, its rotation and its rate limits; editing its name, description,
 * expiry and rate limits (`PUT /v1/api-keys/{id}`, only the fields changed); and rotating it behind a
 * confirmation (`POST /v1/api-keys/{id}/rotate`), with how long the old secret keeps working.
 */
import { useEffect, useState } from "preact/hooks"
import { type ApiKey, rotateApiKey, type RotatedApiKey, updateApiKey } from "../api.ts"
import { html } from "../html.ts"
import { workspaceName } from "../session.ts"
import {
  inTransition,
  mayLimit,
  mayRotate,
  mayUpdate,
  rateLimitDraft,
  RateLimitsField,
  rateLimitsText,
  readRateLimits
} from "../ui/apiKeyParts.ts"
import { ConfirmButton, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SubmitButton, TextField, useForm } from "../ui/forms.ts"
import { PersonName, usePeople } from "../ui/people.ts"
import { describeScope, ScopePicker } from "../ui/scopes.ts"
import { notify } from "../ui/toast.ts"

/** A `datetime-local` value (local time, to the minute) for an instant. */
const localInput = (iso: string | null) => {
  if (iso === null) return ""
  const at = new Date(iso)
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
}

const EDIT_FIELDS = ["name", "description", "expires_at", "scopes", "rate_limits"]

const EditKeyForm = (
  props: { readonly apiKey: ApiKey; readonly onSaved: () => void; readonly onCancel: () => void }
) => {
  const key = props.apiKey
  const form = useForm()
  const [name, setName] = useState(key.name)
  const [description, setDescription] = useState(key.description ?? "")
  const [expires, setExpires] = useState(localInput(key.expires_at ?? null))
  const [limits, setLimits] = useState(rateLimitDraft(key.rate_limits))
  const [scopes, setScopes] = useState<Set<string>>(new Set(key.scopes))
  const limitable = mayLimit(key)
  const scopesChanged = !(scopes.size === key.scopes.length && key.scopes.every((s) => scopes.has(s)))

  const submit = async () => {
    const rateLimits = readRateLimits(limits)
    if (typeof rateLimits === "string") return form.fail("rate_limits", rateLimits)
    // Only what changed: an unchanged expiry in the past would be refused, and no key may send its own limits.
    const changes = {
      ...(name !== key.name ? { name } : {}),
      ...(description.trim() !== (key.description ?? "")
        ? { description: description.trim() === "" ? null : description.trim() }
        : {}),
      ...(expires !== localInput(key.expires_at ?? null)
        ? { expires_at: expires === "" ? null : new Date(expires).toISOString() }
        : {}),
      ...(limitable && rateLimitsText(rateLimits) !== rateLimitsText(key.rate_limits)
        ? { rate_limits: rateLimits }
        : {}),
      ...(limitable && scopesChanged ? { scopes: [...scopes] } : {})
    }
    if (Object.keys(changes).length > 0) {
      await updateApiKey(key.id, changes)
      notify(`Key ${name} saved.`)
    }
    props.onSaved()
  }

  return html`<${FormFrame} form=${form} onSubmit=${submit} label="Edit key">
    <h3>Edit</h3>
    <${FormAlert} form=${form} fields=${EDIT_FIELDS} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Name" value=${name} onInput=${setName} required=${true} />
      <${TextField} form=${form} name="description" label="Description" value=${description}
        onInput=${setDescription} hint="Empty to clear it." />
      <${TextField} form=${form} name="expires_at" label="Expires" type="datetime-local" value=${expires}
        onInput=${setExpires} hint="Empty for never." />
    </div>
    ${
    limitable
      ? html`<${ScopePicker} form=${form} chosen=${scopes} onChange=${setScopes} also=${key.scopes} />
          <${RateLimitsField} form=${form} value=${limits} onChange=${setLimits} />`
      : html`<p class="muted">This session's own key: its scopes and rate limits are changed with another key.</p>`
  }
    <${SubmitButton} form=${form} label="Save changes" />
    <button type="button" onClick=${props.onCancel}>Cancel</button>
  <//>`
}

const MINUTE_MS = 60_000

/** The transition period asked for, with the question before the rotation; the new secret goes to `onRotated`. */
const RotateKey = (
  props: { readonly apiKey: ApiKey; readonly onRotated: (rotated: RotatedApiKey) => void }
) => {
  const form = useForm()
  const [minutes, setMinutes] = useState("30")
  const rotate = () =>
    form.run(async () => {
      const text = minutes.trim()
      const value = Number(text)
      if (text !== "" && (!Number.isFinite(value) || value < 0)) {
        return form.fail("transition_period_ms", "A number of minutes from 0, or empty for the default.")
      }
      props.onRotated(await rotateApiKey(props.apiKey.id, text === "" ? undefined : Math.round(value * MINUTE_MS)))
    })
  return html`<section aria-labelledby="rotate-title">
    <h3 id="rotate-title">Rotate</h3>
    <p class="muted">A new secret for the same key, scopes and limits. Clients move to it while the old secret
      still works.</p>
    <${FormAlert} form=${form} fields=${["transition_period_ms"]} />
    <div class="grid">
      <${TextField} form=${form} name="transition_period_ms" label="Old secret keeps working for (minutes)"
        type="number" value=${minutes} onInput=${setMinutes}
        hint="0 ends it at once; at most 7 days (10080). Empty for the default, 30." />
    </div>
    <${ConfirmButton} label="Rotate"
      question=${`Rotate ${props.apiKey.name}? Its current secret stops working when the period ends.`}
      onConfirm=${rotate} />
  </section>`
}

export const KeyDetail = (
  props: {
    readonly apiKey: ApiKey
    readonly onChanged: () => void
    readonly onRotated: (rotated: RotatedApiKey) => void
    readonly onClose: () => void
  }
) => {
  const key = props.apiKey
  const [editing, setEditing] = useState(false)
  const people = usePeople(key.workspace_id ?? null)
  // Opening a key moves the keyboard focus to it.
  useEffect(() => document.getElementById("key-title")?.focus(), [key.id])
  return html`<section class="detail" aria-labelledby="key-title">
    <h2 id="key-title" tabIndex="-1">Key ${key.name}</h2>
    ${
    key.status === "revoked"
      ? html`<p class="alert"><strong>Revoked.</strong> No secret of this key works any more, and it cannot be
          edited or rotated.</p>`
      : null
  }
    <dl>
      <dt>Id</dt><dd><code>${key.id}</code></dd>
      <dt>Key</dt><dd><code>${key.masked_key}</code> (${key.type}, ${key.status})</dd>
      <dt>Description</dt><dd>${key.description ?? "—"}</dd>
      <dt>Workspace</dt><dd>${key.workspace_id === undefined ? "—" : workspaceName(key.workspace_id)}</dd>
      <dt>User</dt><dd><${PersonName} id=${key.user_id} people=${people.data} /></dd>
      <dt>Scopes</dt><dd><ul class="links">${
    key.scopes.map((s) => html`<li>${describeScope(s)} <code>${s}</code></li>`)
  }</ul></dd>
      <dt>Rate limits</dt><dd>${rateLimitsText(key.rate_limits)}</dd>
      <dt>Last used</dt><dd>${key.last_used_at === null ? "never" : when(key.last_used_at)} (to the minute)</dd>
      <dt>Rotated</dt><dd>${key.rotated_at === null ? "never" : when(key.rotated_at)}</dd>
      <dt>Old secret works until</dt><dd>${
    key.status === "revoked"
      ? "— (revoked: neither secret works)"
      : key.transition_ends_at === null
      ? "—"
      : `${when(key.transition_ends_at)}${inTransition(key) ? " (in transition)" : " (ended)"}`
  }</dd>
      <dt>Expires</dt><dd>${key.expires_at === undefined ? "never" : when(key.expires_at)}</dd>
      <dt>Created</dt><dd>${when(key.created_at)} by key <code>${key.created_by_api_key_id ?? "—"}</code></dd>
      <dt>Last changed</dt><dd>${when(key.last_updated_at)}</dd>
    </dl>
    ${
    !mayUpdate(key)
      ? null
      : editing
      ? html`<${EditKeyForm} apiKey=${key} onCancel=${() => setEditing(false)} onSaved=${() => {
        setEditing(false)
        props.onChanged()
      }} />`
      : html`<button type="button" onClick=${() => setEditing(true)}>Edit</button>`
  }
    ${
    !mayRotate(key)
      ? null
      : inTransition(key)
      ? html`<p class="muted">Rotated: it can be rotated again once the old secret stops working.</p>`
      : html`<${RotateKey} apiKey=${key} onRotated=${props.onRotated} />`
  }
    <p><button type="button" onClick=${props.onClose}>Close</button></p>
  </section>`
}
