/**
 * Forms: labelled controls, and the API's errors shown next to the field their `param` names. A form knows
 * its fields by the API's names for them (`temperature`, `parameters.temperature`, `scopes`), so an error for
 * `messages[1].content` lands under the field `messages`; one that names no field of the form is shown at
 * its top, naming the parameter.
 */
import { type Signal, signal } from "@preact/signals"
import type { ComponentChildren } from "preact"
import { useId, useMemo } from "preact/hooks"
import { ApiError, NETWORK_ERROR } from "../api.ts"
import { html } from "../html.ts"

export interface Form {
  /** Messages by the API parameter they name; `""` for an error that names none. */
  readonly errors: Signal<Readonly<Record<string, string>>>
  readonly busy: Signal<boolean>
  /** Runs a submission: clears the errors, and files the API's answer under its `param` when it fails. */
  readonly run: (action: () => Promise<void>) => Promise<void>
  /** An error found before calling the API, filed like one of its own. */
  readonly fail: (param: string, message: string) => void
  /** Files a failure of a call made outside `run` (a list's filters), or clears the errors with undefined. */
  readonly report: (error: unknown) => void
  /** Forgets the errors about the field `name` (the person changed it). */
  readonly clear: (name: string) => void
  /** Runs the last submission again (offered after a network failure). */
  readonly retry: () => Promise<void>
  /** The last submission failed because the server could not be reached. */
  readonly offline: Signal<boolean>
}

export const makeForm = (): Form => {
  const errors = signal<Readonly<Record<string, string>>>({})
  const busy = signal(false)
  const offline = signal(false)
  let last: (() => Promise<void>) | undefined
  const report = (error: unknown) => {
    offline.value = error instanceof ApiError && error.code === NETWORK_ERROR
    if (error === undefined) {
      errors.value = {}
      return
    }
    const param = error instanceof ApiError ? error.param ?? "" : ""
    errors.value = { [param]: error instanceof Error ? error.message : String(error) }
  }
  const run = async (action: () => Promise<void>) => {
    if (busy.value) return
    last = action
    busy.value = true
    errors.value = {}
    offline.value = false
    try {
      await action()
    } catch (error) {
      report(error)
    } finally {
      busy.value = false
    }
  }
  return {
    errors,
    busy,
    offline,
    report,
    fail: (param, message) => {
      errors.value = { ...errors.value, [param]: message }
    },
    clear: (name) => {
      const kept = Object.entries(errors.value).filter(([param]) => param === "" || !belongsTo(param, name))
      if (kept.length !== Object.keys(errors.value).length) errors.value = Object.fromEntries(kept)
    },
    retry: () => (last === undefined ? Promise.resolve() : run(last)),
    run
  }
}

export const useForm = (): Form => useMemo(makeForm, [])

/** Does an error about `param` belong to the field `name` (itself, or a part of it)? */
const belongsTo = (param: string, name: string) =>
  param === name || param.startsWith(`${name}.`) || param.startsWith(`${name}[`)

/** The message, naming its parameter unless it already begins with it (the API's schema errors do). */
const naming = (param: string, message: string) =>
  param === "" || message.startsWith(`${param}: `) ? message : `${param}: ${message}`

export const errorFor = (form: Form, name: string): string | undefined => {
  const found = Object.entries(form.errors.value).find(([param]) => param !== "" && belongsTo(param, name))
  return found === undefined ? undefined : found[0] === name ? found[1] : naming(found[0], found[1])
}

/** The form's errors that no field of it shows: at the top, naming their parameter. */
export const FormAlert = ({ form, fields }: { readonly form: Form; readonly fields: ReadonlyArray<string> }) => {
  const loose = Object.entries(form.errors.value).filter(([param]) =>
    param === "" || !fields.some((name) => belongsTo(param, name))
  )
  if (loose.length === 0) return null
  return html`<div class="alert" role="alert">
    ${loose.map(([param, message]) => html`<p>${naming(param, message)}</p>`)}
    ${
    form.offline.value
      ? html`<button type="button" disabled=${form.busy.value} onClick=${() => void form.retry()}>Retry</button>`
      : null
  }
  </div>`
}

interface FieldProps {
  readonly form: Form
  /** The API's name of the value, which its errors use as `param`. */
  readonly name: string
  readonly label: string
  readonly hint?: string
}

/** A label, a control, a hint and the field's error, wired together for screen readers. */
const FieldFrame = (
  props: FieldProps & { readonly id: string; readonly children: ComponentChildren; readonly inline?: boolean }
) => {
  const error = errorFor(props.form, props.name)
  return html`<div class=${`field${props.inline === true ? " inline" : ""}${error === undefined ? "" : " invalid"}`}>
    <label for=${props.id}>${props.label}</label>
    ${props.children}
    ${props.hint === undefined ? null : html`<p class="hint" id=${`${props.id}-hint`}>${props.hint}</p>`}
    ${error === undefined ? null : html`<p class="field-error" id=${`${props.id}-error`} role="alert">${error}</p>`}
  </div>`
}

const described = (id: string, form: Form, props: FieldProps) => {
  const ids = [
    props.hint === undefined ? undefined : `${id}-hint`,
    errorFor(form, props.name) === undefined ? undefined : `${id}-error`
  ].filter((x) => x !== undefined)
  return {
    "aria-describedby": ids.length === 0 ? undefined : ids.join(" "),
    "aria-invalid": errorFor(form, props.name) === undefined ? undefined : "true"
  }
}

export const TextField = (
  props: FieldProps & {
    readonly value: string
    readonly onInput: (value: string) => void
    readonly type?: string
    readonly required?: boolean
    readonly placeholder?: string
    readonly autocomplete?: string
    readonly readonly?: boolean
    /** Values offered as the person types (a datalist); any other may still be typed. */
    readonly choices?: ReadonlyArray<string>
    /** The keyboard a phone shows (`numeric` for a code). */
    readonly inputmode?: string
  }
) => {
  const id = useId()
  return html`<${FieldFrame} ...${props} id=${id}>
    ${
    props.choices === undefined
      ? null
      : html`<datalist id=${`${id}-choices`}>${props.choices.map((c) => html`<option value=${c}></option>`)}</datalist>`
  }
    <input id=${id} name=${props.name} type=${props.type ?? "text"} value=${props.value} inputmode=${props.inputmode}
      list=${props.choices === undefined ? undefined : `${id}-choices`}
      required=${props.required} placeholder=${props.placeholder} autocomplete=${props.autocomplete ?? "off"}
      readonly=${props.readonly} spellcheck=${false}
      onInput=${(e: Event) => {
    props.form.clear(props.name)
    props.onInput((e.currentTarget as HTMLInputElement).value)
  }}
      ...${described(id, props.form, props)} />
  <//>`
}

export const TextArea = (
  props: FieldProps & {
    readonly value: string
    readonly onInput: (value: string) => void
    readonly rows?: number
    readonly required?: boolean
  }
) => {
  const id = useId()
  return html`<${FieldFrame} ...${props} id=${id}>
    <textarea id=${id} name=${props.name} rows=${props.rows ?? 6} required=${props.required} spellcheck=${false}
      value=${props.value} onInput=${(e: Event) => {
    props.form.clear(props.name)
    props.onInput((e.currentTarget as HTMLTextAreaElement).value)
  }}
      ...${described(id, props.form, props)}></textarea>
  <//>`
}

export const SelectField = (
  props: FieldProps & {
    readonly value: string
    readonly onChange: (value: string) => void
    readonly options: ReadonlyArray<readonly [value: string, label: string]>
  }
) => {
  const id = useId()
  return html`<${FieldFrame} ...${props} id=${id}>
    <select id=${id} name=${props.name} value=${props.value}
      onChange=${(e: Event) => {
    props.form.clear(props.name)
    props.onChange((e.currentTarget as HTMLSelectElement).value)
  }}
      ...${described(id, props.form, props)}>
      ${props.options.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
    </select>
  <//>`
}

export const CheckboxField = (
  props: FieldProps & { readonly checked: boolean; readonly onChange: (checked: boolean) => void }
) => {
  const id = useId()
  return html`<${FieldFrame} ...${props} id=${id} inline=${true}>
    <input id=${id} name=${props.name} type="checkbox" checked=${props.checked}
      onChange=${(e: Event) => {
    props.form.clear(props.name)
    props.onChange((e.currentTarget as HTMLInputElement).checked)
  }}
      ...${described(id, props.form, props)} />
  <//>`
}

export const SubmitButton = ({ form, label }: { readonly form: Form; readonly label: string }) =>
  html`<button type="submit" class="primary" disabled=${form.busy.value}>${
    form.busy.value ? "Working…" : label
  }</button>`

/** Controls a person fills in: every input but buttons and hidden ones, selects and text areas. */
const FILLED = "input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=reset]), select, textarea"

/**
 * Enter in a text field submits a form of one field (a search, a key); in a form of several it moves on to the
 * next field and sends nothing, so a half-filled form is never sent by a stray Enter (its button sends it).
 * `enterSubmits` keeps the browser's way for forms people expect it in (signing in).
 */
const holdEnter = (enterSubmits: boolean | undefined) => (e: KeyboardEvent) => {
  if (enterSubmits === true || e.key !== "Enter" || e.isComposing) return
  const target = e.target
  if (!(target instanceof HTMLInputElement)) return
  const form = e.currentTarget as HTMLFormElement
  const fields = [...form.querySelectorAll<HTMLElement>(FILLED)].filter((f) => !f.matches(":disabled"))
  if (fields.length <= 1) return
  e.preventDefault()
  fields[fields.indexOf(target) + 1]?.focus()
}

/** `<form>` that never navigates: it runs `onSubmit` through the form's error handling. */
export const FormFrame = (
  props: {
    readonly form: Form
    readonly onSubmit: () => Promise<void>
    readonly label: string
    readonly children: ComponentChildren
    /** Enter in a field submits even a form of several fields (sign-in); by default only a form of one. */
    readonly enterSubmits?: boolean
  }
) =>
  html`<form aria-label=${props.label} noValidate onKeyDown=${holdEnter(props.enterSubmits)} onSubmit=${(
    e: Event
  ) => {
    e.preventDefault()
    void props.form.run(props.onSubmit)
  }}>${props.children}</form>`
