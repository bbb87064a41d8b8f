/**
 * How the sign-in, invitation and second-factor forms behave as people type: Enter in a field that is not a
 * form's last moves on to the next field instead of submitting the form half filled, and an error under a field
 * (with the form's own error, which a sign-in's refusal is) goes away as soon as the person changes that field.
 */
import type { Form } from "./forms.ts"

const TEXT_INPUT = "input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([type=submit])"

/**
 * A form's `onKeyDown` (set on an element around its fields): Enter in a text field with another after it
 * focuses that one; Enter in the last field submits, in a `FormFrame` with `enterSubmits` (else Enter sends no
 * form of several fields at all).
 */
export const enterMovesOn = (event: KeyboardEvent) => {
  if (event.key !== "Enter" || event.isComposing || event.shiftKey || event.ctrlKey || event.metaKey) return
  const field = event.target
  if (!(field instanceof HTMLInputElement) || field.form === null) return
  const fields = [...field.form.querySelectorAll<HTMLInputElement>(TEXT_INPUT)].filter((f) => !f.disabled)
  const next = fields[fields.indexOf(field) + 1]
  if (next === undefined) return
  event.preventDefault()
  next.focus()
}

/** An `onInput` for the field `name`: keeps the value, and clears the errors about the field and the form's own. */
export const fixing = (form: Form, name: string, set: (value: string) => void) => (value: string) => {
  set(value)
  const errors = form.errors.value
  if (errors[name] === undefined && errors[""] === undefined) return
  const { [name]: _field, [""]: _form, ...rest } = errors
  form.errors.value = rest
}
