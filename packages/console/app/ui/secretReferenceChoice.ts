/**
 * Choosing the secret reference an integration takes its key from: a list of the organisation's references by
 * name and where they live, for those who may list them; otherwise a field for its id or slug.
 */
import { listSecretReferences } from "../api.ts"
import { html } from "../html.ts"
import { may } from "../session.ts"
import { useLoad } from "./common.ts"
import { type Form, SelectField, TextField } from "./forms.ts"
import { MANAGERS } from "./secretLogins.ts"

export const SecretReferenceChoice = (
  props: {
    readonly form: Form
    readonly value: string
    readonly onChange: (value: string) => void
    /** What choosing none means here ("None: the API key above"). */
    readonly none: string
  }
) => {
  const mayList = may("secret_references.list")
  const references = useLoad(
    () => mayList ? listSecretReferences({ page_size: 100, current_page: 0 }) : Promise.resolve(undefined),
    [mayList]
  )
  const listed = references.data?.data
  if (listed === undefined) {
    return html`<${TextField} form=${props.form} name="secret_mappings" label="Secret reference for the key (id or slug)"
      value=${props.value} onInput=${props.onChange}
      hint="Optional. The key is fetched from the secret manager when the integration is used." />`
  }
  const options = [
    ["", props.none] as const,
    ...listed.map((r) => [r.id, `${r.name} (${MANAGERS[r.manager_type].label}: ${r.secret_path})`] as const)
  ]
  // A reference named by slug (or one not on the list) is still shown as chosen.
  const chosen = listed.find((r) => r.id === props.value || r.slug === props.value)?.id ?? props.value
  return html`<${SelectField} form=${props.form} name="secret_mappings" label="Secret reference for the key"
    value=${chosen} onChange=${props.onChange}
    options=${options.some(([id]) => id === chosen) ? options : [...options, [chosen, chosen] as const]}
    hint="The key is fetched from the secret manager when the integration is used." />`
}
