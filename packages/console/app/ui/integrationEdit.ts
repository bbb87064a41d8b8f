/**
 * Changing an integration: its name, its key rotated (write-only: the old key is never shown, and the new one
 * only sent), the secret reference it takes its key from instead, and its custom host. Only what changed is sent;
 * a new destination needs the key again (the API says so under the key's field).
 */
import { useState } from "preact/hooks"
import { type IntegrationChange, type ProviderIntegration, updateProviderIntegration } from "../api.ts"
import { html } from "../html.ts"
import { FormAlert, FormFrame, SubmitButton, TextField, useForm } from "./forms.ts"
import { SecretReferenceChoice } from "./secretReferenceChoice.ts"
import { notify } from "./toast.ts"

/** The reference the integration's key comes from; "" when it holds the key itself. */
export const keyReference = (i: ProviderIntegration) =>
  i.secret_mappings.find((m) => m.target_field === "key")?.secret_reference_id ?? ""

export const customHost = (i: ProviderIntegration) => {
  const host = i.configurations["custom_host"]
  return typeof host === "string" ? host : ""
}

/** The stored configurations as they may be sent back: without the masked secret fields, which are kept. */
const openConfigurations = (i: ProviderIntegration) =>
  Object.fromEntries(Object.entries(i.configurations).filter(([name]) => !name.startsWith("masked_")))

export const IntegrationEdit = (
  { integration: i, onChanged }: { readonly integration: ProviderIntegration; readonly onChanged: () => void }
) => {
  const form = useForm()
  const [name, setName] = useState(i.name)
  const [key, setKey] = useState("")
  const [reference, setReference] = useState(keyReference(i))
  const [host, setHost] = useState(customHost(i))
  const submit = async () => {
    const rotated = key !== ""
    const referenceChanged = reference.trim() !== keyReference(i)
    const hostChanged = host.trim() !== customHost(i)
    const { custom_host: _, ...others } = openConfigurations(i)
    const change: IntegrationChange = {
      ...(name !== i.name ? { name } : {}),
      ...(rotated ? { key } : {}),
      ...(referenceChanged
        ? {
          secret_mappings: reference.trim() === ""
            ? []
            : [{ target_field: "key", secret_reference_id: reference.trim() }]
        }
        : {}),
      ...(hostChanged ? { configurations: host.trim() === "" ? others : { ...others, custom_host: host.trim() } } : {})
    }
    if (Object.keys(change).length === 0) {
      form.fail("", "Nothing changed.")
      return
    }
    await updateProviderIntegration(i.slug, change)
    setKey("")
    notify(
      `Integration ${i.slug} updated${
        rotated ? "; its key rotated: calls now use the new key" : referenceChanged ? "; its key source changed" : ""
      }.`
    )
    onChanged()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label=${`Edit integration ${i.name}`}>
    <h3>Edit</h3>
    <${FormAlert} form=${form} fields=${["name", "key", "secret_mappings", "configurations"]} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Integration name" value=${name} onInput=${setName} />
      <${TextField} form=${form} name="key" label="New API key (write-only)" type="password" value=${key}
        onInput=${setKey} hint=${`Rotates the key: the current one (${
    i.masked_key ?? "none"
  }) is never shown and stops being used. Empty: kept.`} />
      <${SecretReferenceChoice} form=${form} value=${reference} onChange=${setReference}
        none="None: the integration holds its key" />
      <${TextField} form=${form} name="configurations" label="Integration custom host" value=${host}
        onInput=${setHost} hint="A new destination needs the key again: a stored key only goes where it was stored for." />
    </div>
    <${SubmitButton} form=${form} label="Save changes" />
  <//>`
}
