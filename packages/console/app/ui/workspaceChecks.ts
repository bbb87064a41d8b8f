/**
 * Workspaces chosen by name from a list of checkboxes (the ones the caller can choose from: an admin's
 * organisation, a member's own), sent by id; an error the API files under `name` shows under the list.
 */
import { html } from "../html.ts"
import { session } from "../session.ts"
import { errorFor, type Form } from "./forms.ts"

export const workspaceName = (id: string) => session.value?.workspaces.find((w) => w.id === id)?.name ?? id

export const WorkspaceChecks = (
  props: {
    readonly form: Form
    readonly name: string
    readonly legend: string
    readonly chosen: ReadonlyArray<string>
    readonly onChange: (chosen: ReadonlyArray<string>) => void
  }
) => {
  const error = errorFor(props.form, props.name)
  const toggle = (id: string, on: boolean) => {
    props.form.clear(props.name)
    props.onChange(on ? [...props.chosen.filter((c) => c !== id), id] : props.chosen.filter((c) => c !== id))
  }
  return html`<fieldset>
    <legend>${props.legend}</legend>
    ${
    (session.value?.workspaces ?? []).map((w) =>
      html`<label class="check" key=${w.id}><input type="checkbox" name=${props.name} value=${w.id}
        checked=${props.chosen.includes(w.id)}
        onChange=${(e: Event) => toggle(w.id, (e.currentTarget as HTMLInputElement).checked)} /> ${w.name}</label>`
    )
  }
    ${error === undefined ? null : html`<p class="field-error" role="alert">${error}</p>`}
  </fieldset>`
}
