/**
 * Pieces of the API keys page that creation, editing and rotation share: a secret shown once, the rate limits
 * as a field and as text, and what the signed-in key may do to a key.
 */
import { useId } from "preact/hooks"
import type { ApiKey, RateLimit, RateLimitUnit } from "../api.ts"
import { html } from "../html.ts"
import { may, session } from "../session.ts"
import { CopyButton } from "./common.ts"
import { errorFor, type Form } from "./forms.ts"

/** A secret, once: it cannot be read again. `title` and `note` say whether it is a new key or a rotated one. */
export const NewSecret = (
  props: { readonly secret: string; readonly title: string; readonly note?: string; readonly onDone: () => void }
) =>
  html`<section class="new-key" aria-labelledby="new-key-title">
    <h2 id="new-key-title">${props.title}</h2>
    <p class="warning"><strong>This is the only time the key is shown.</strong> Store it somewhere safe; the
      gateway keeps only its digest and cannot show it again.</p>
    ${props.note === undefined ? null : html`<p>${props.note}</p>`}
    <div class="copy-row">
      <label for="new-key-value" class="visually-hidden">New API key</label>
      <input id="new-key-value" readonly autoFocus value=${props.secret} onFocus=${(e: Event) =>
    (e.currentTarget as HTMLInputElement).select()} />
      <${CopyButton} text=${props.secret} />
    </div>
    <button type="button" onClick=${props.onDone}>I have stored it</button>
  </section>`

const UNITS: ReadonlyArray<readonly [unit: RateLimitUnit, label: string, short: string]> = [
  ["rps", "Requests per second", "s"],
  ["rpm", "Requests per minute", "min"],
  ["rph", "Requests per hour", "h"],
  ["rpd", "Requests per day", "day"]
]

/** The limits as typed: a text a unit, empty for no limit over that window. */
export type RateLimitDraft = Readonly<Record<RateLimitUnit, string>>

export const rateLimitDraft = (limits: ReadonlyArray<RateLimit> = []): RateLimitDraft => {
  const draft: Record<RateLimitUnit, string> = { rps: "", rpm: "", rph: "", rpd: "" }
  for (const limit of limits) draft[limit.unit] = String(limit.value)
  return draft
}

/** The API's `rate_limits` from what was typed; a message when a value is not a whole number from 1. */
export const readRateLimits = (draft: RateLimitDraft): ReadonlyArray<RateLimit> | string => {
  const limits: Array<RateLimit> = []
  for (const [unit, label] of UNITS) {
    const text = draft[unit].trim()
    if (text === "") continue
    const value = Number(text)
    if (!Number.isSafeInteger(value) || value < 1) return `${label} must be a whole number from 1, or empty.`
    limits.push({ type: "requests", unit, value })
  }
  return limits
}

/** `5/s, 100/min`, or `none`. */
export const rateLimitsText = (limits: ReadonlyArray<RateLimit>) =>
  limits.length === 0
    ? "none"
    : UNITS.flatMap(([unit, , short]) => limits.filter((l) => l.unit === unit).map((l) => `${l.value}/${short}`))
      .join(", ")

/** One number a window; its errors (`rate_limits[1]` and the like) shown under it. */
export const RateLimitsField = (
  props: { readonly form: Form; readonly value: RateLimitDraft; readonly onChange: (draft: RateLimitDraft) => void }
) => {
  const id = useId()
  const error = errorFor(props.form, "rate_limits")
  const describedBy = `${id}-hint${error === undefined ? "" : ` ${id}-error`}`
  return html`<fieldset>
    <legend>Rate limits (optional)</legend>
    <p class="hint" id=${`${id}-hint`}>Empty for no limit over that window. A call past a limit answers 429.</p>
    <div class="grid">
      ${
    UNITS.map(([unit, label]) =>
      html`<div class="field">
          <label for=${`${id}-${unit}`}>${label}</label>
          <input id=${`${id}-${unit}`} name=${`rate_limits.${unit}`} type="number" min="1" step="1"
            inputMode="numeric" value=${props.value[unit]} aria-describedby=${describedBy}
            aria-invalid=${error === undefined ? undefined : "true"}
            onInput=${(e: Event) =>
        props.onChange({ ...props.value, [unit]: (e.currentTarget as HTMLInputElement).value })} />
        </div>`
    )
  }
    </div>
    ${error === undefined ? null : html`<p class="field-error" id=${`${id}-error`} role="alert">${error}</p>`}
  </fieldset>`
}

/** Is the key still in its rotation's transition, when its previous secret works too? */
export const inTransition = (key: ApiKey, now = Date.now()) =>
  key.transition_ends_at !== null && Date.parse(key.transition_ends_at) > now

/** Rotating needs the kind's `…_api_keys.rotate` scope, and an admin key for an admin key, as creating one does. */
export const mayRotate = (key: ApiKey) =>
  key.status === "active" &&
  key.id !== session.value?.key.id &&
  may(`api_keys.rotate.${key.type.replace("-", "_")}`)

export const mayUpdate = (key: ApiKey) => key.status === "active" && may("api_keys.update")

/** No key changes its own rate limits. */
export const mayLimit = (key: ApiKey) => key.id !== session.value?.key.id
