/**
 * Editing a template without writing JSON: chat messages as a list (a role and a text each), the variables
 * the template names as it is typed, and the request fields (`temperature`, `max_tokens`, …) as a form.
 */
import { html } from "../html.ts"
import { type Message, ROLES, type Variable } from "../template.ts"
import { errorFor, type Form, TextField } from "./forms.ts"

export const MessagesEditor = (
  props: {
    readonly form: Form
    readonly messages: ReadonlyArray<Message>
    readonly onChange: (messages: Array<Message>) => void
  }
) => {
  const { messages, onChange } = props
  const set = (index: number, change: Partial<Message>) =>
    onChange(messages.map((m, i) => (i === index ? { ...m, ...change } : m)))
  const move = (index: number, by: number) => {
    const next = [...messages]
    const [moved] = next.splice(index, 1)
    next.splice(index + by, 0, moved!)
    onChange(next)
  }
  // The API names the template `string`; its errors about a message land here too.
  const error = errorFor(props.form, "string")
  return html`<fieldset class="messages">
    <legend>Messages</legend>
    ${
    messages.map((m, i) =>
      html`<div class="message">
        <div class="message-head">
          <label>Message ${i + 1} role
            <select value=${m.role} onChange=${(e: Event) =>
        set(i, { role: (e.currentTarget as HTMLSelectElement).value })}>
              ${[...new Set([...ROLES, m.role])].map((r) => html`<option value=${r}>${r}</option>`)}
            </select>
          </label>
          <span class="message-actions">
            <button type="button" disabled=${i === 0} onClick=${() => move(i, -1)} aria-label=${`Move message ${
        i + 1
      } up`}>↑</button>
            <button type="button" disabled=${i === messages.length - 1} onClick=${() => move(i, 1)}
              aria-label=${`Move message ${i + 1} down`}>↓</button>
            <button type="button" onClick=${() => onChange(messages.filter((_, k) => k !== i))}
              aria-label=${`Remove message ${i + 1}`}>Remove</button>
          </span>
        </div>
        <label>Message ${i + 1} content
          <textarea rows="4" spellcheck=${false} value=${m.content}
            onInput=${(e: Event) => set(i, { content: (e.currentTarget as HTMLTextAreaElement).value })}></textarea>
        </label>
      </div>`
    )
  }
    <button type="button" onClick=${() =>
    onChange([...messages, { role: messages.length === 0 ? "system" : "user", content: "" }])}>Add message</button>
    ${error === undefined ? null : html`<p class="field-error" role="alert">${error}</p>`}
  </fieldset>`
}

export const VariablesFound = ({ variables }: { readonly variables: ReadonlyArray<Variable> }) =>
  html`<section class="variables" aria-live="polite" aria-label="Detected variables">
    <h2>Variables</h2>
    ${
    variables.length === 0
      ? html`<p class="muted">None yet: write <code>{{name}}</code> in a message.</p>`
      : html`<ul>${variables.map((v) => html`<li><code>${v.name}</code>${v.section ? " (section)" : ""}</li>`)}</ul>`
  }
  </section>`

/** Request fields offered as a form; any other field can still be saved or sent as JSON. */
export const HYPERPARAMETERS = [
  ["temperature", "Temperature"],
  ["max_tokens", "Max tokens"],
  ["max_completion_tokens", "Max completion tokens"],
  ["top_p", "Top p"],
  ["frequency_penalty", "Frequency penalty"],
  ["presence_penalty", "Presence penalty"]
] as const

export type Hyperparameters = Readonly<Record<string, string>>

/** Text to a number when it reads as one; otherwise the text itself, for the API to refuse with its `param`. */
const numberOrText = (text: string): number | string => {
  const trimmed = text.trim()
  return trimmed !== "" && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed
}

/** The fields filled in, as the request fields they are (empty ones left out). */
export const requestFieldsOf = (values: Hyperparameters): Record<string, number | string> =>
  Object.fromEntries(
    Object.entries(values).filter(([, v]) => v.trim() !== "").map(([k, v]) => [k, numberOrText(v)])
  )

/** The fields as text, from saved parameters. */
export const hyperparametersOf = (parameters: Readonly<Record<string, unknown>>): Hyperparameters =>
  Object.fromEntries(
    HYPERPARAMETERS.flatMap(([name]) => (parameters[name] === undefined ? [] : [[name, String(parameters[name])]]))
  )

/** `prefix` is where the API puts them: `parameters.` when saving a version, nothing when rendering. */
export const HyperparameterFields = (
  props: {
    readonly form: Form
    readonly prefix: string
    readonly values: Hyperparameters
    readonly onChange: (values: Hyperparameters) => void
  }
) =>
  html`<fieldset class="hyperparameters">
    <legend>Hyperparameters</legend>
    <div class="grid">
      ${
    HYPERPARAMETERS.map(([name, label]) =>
      html`<${TextField} form=${props.form} name=${`${props.prefix}${name}`} label=${label}
          value=${props.values[name] ?? ""} onInput=${(value: string) =>
        props.onChange({ ...props.values, [name]: value })} />`
    )
  }
    </div>
  </fieldset>`
