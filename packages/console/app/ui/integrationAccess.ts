/**
 * Who may use an integration and for what: the workspaces an organisation-level integration is shared with (or
 * every workspace), and the models it allows (every model of the provider, or only those turned on).
 */
import { useState } from "preact/hooks"
import {
  getIntegrationModels,
  getIntegrationWorkspaces,
  type IntegrationModels,
  type IntegrationWorkspaces,
  type ProviderIntegration,
  updateIntegrationModels,
  updateIntegrationWorkspaces
} from "../api.ts"
import { html } from "../html.ts"
import { session } from "../session.ts"
import { LoadState, useLoad } from "./common.ts"
import { CheckboxField, FormAlert, FormFrame, SubmitButton, TextField, useForm } from "./forms.ts"
import { notify } from "./toast.ts"
import { WorkspaceChecks } from "./workspaceChecks.ts"

const words = (text: string) => text.split(/[\s,]+/).filter((word) => word !== "")

const SharingForm = (
  props: {
    readonly integration: ProviderIntegration
    readonly current: IntegrationWorkspaces
    readonly onChanged: () => void
  }
) => {
  const i = props.integration
  const form = useForm()
  const [every, setEvery] = useState(i.global_workspace_access_settings?.enabled === true)
  const [chosen, setChosen] = useState<ReadonlyArray<string>>(
    props.current.workspaces.filter((w) => w.enabled).map((w) => w.id)
  )
  const submit = async () => {
    const known = new Set([...(session.value?.workspaces ?? []).map((w) => w.id), ...chosen])
    await updateIntegrationWorkspaces(i.slug, {
      global_workspace_access: { enabled: every },
      workspaces: [...known].map((id) => ({ id, enabled: chosen.includes(id) })),
      override_existing_workspace_access: true
    })
    notify(
      every
        ? `${i.name} is open to every workspace.`
        : `${i.name} is shared with ${chosen.length} workspace${chosen.length === 1 ? "" : "s"}.`
    )
    props.onChanged()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label=${`Workspaces of ${i.name}`}>
    <h3>Workspaces</h3>
    <${FormAlert} form=${form} fields=${["global_workspace_access", "workspaces"]} />
    <${CheckboxField} form=${form} name="global_workspace_access" label="Open to every workspace, present and future"
      checked=${every} onChange=${setEvery} />
    ${
    every ? null : html`<${WorkspaceChecks} form=${form} name="workspaces" legend="Shared with these workspaces"
      chosen=${chosen} onChange=${setChosen} />`
  }
    <${SubmitButton} form=${form} label="Save workspaces" />
  <//>`
}

const SharedWith = (
  { integration, onChanged }: { readonly integration: ProviderIntegration; readonly onChanged: () => void }
) => {
  const current = useLoad(() => getIntegrationWorkspaces(integration.slug), [integration.slug])
  return html`<${LoadState} loaded=${current}>${(answer: IntegrationWorkspaces) =>
    html`<${SharingForm} key=${JSON.stringify(answer)} integration=${integration} current=${answer} onChanged=${() => {
      current.reload()
      onChanged()
    }} />`}<//>`
}

/** An organisation's integration: the workspaces it is shared with; a workspace's own is its workspace's alone. */
export const IntegrationSharing = (
  props: { readonly integration: ProviderIntegration; readonly onChanged: () => void }
) =>
  props.integration.workspace_id === null
    ? html`<${SharedWith} ...${props} />`
    : html`<h3>Workspaces</h3><p>This workspace's own integration: only its workspace may use it.</p>`

const ModelsForm = (
  props: {
    readonly integration: ProviderIntegration
    readonly current: IntegrationModels
    readonly onChanged: () => void
  }
) => {
  const i = props.integration
  const form = useForm()
  const [all, setAll] = useState(props.current.allow_all_models)
  const [enabled, setEnabled] = useState<Readonly<Record<string, boolean>>>(
    Object.fromEntries(props.current.models.map((m) => [m.slug, m.enabled]))
  )
  const [added, setAdded] = useState("")
  const submit = async () => {
    const fresh = words(added).filter((slug) => !(slug in enabled))
    const answer = await updateIntegrationModels(i.slug, {
      allow_all_models: all,
      models: [
        ...props.current.models.map((m) => ({ slug: m.slug, enabled: enabled[m.slug] ?? m.enabled })),
        ...fresh.map((slug) => ({ slug, enabled: true }))
      ]
    })
    setAdded("")
    const on = answer.models.filter((m) => m.enabled).length
    notify(
      answer.allow_all_models
        ? `${i.name} allows every model.`
        : `${i.name} allows ${on} model${on === 1 ? "" : "s"}.`
    )
    props.onChanged()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label=${`Models of ${i.name}`}>
    <h3>Models</h3>
    <${FormAlert} form=${form} fields=${["models", "allow_all_models"]} />
    <${CheckboxField} form=${form} name="allow_all_models" label="Every model of the provider"
      checked=${all} onChange=${setAll} />
    ${
    props.current.models.length === 0 ? null : html`<fieldset>
      <legend>Models allowed${all ? " (all are, while the box above is ticked)" : ""}</legend>
      ${
      props.current.models.map((m) =>
        html`<label class="check" key=${m.slug}><input type="checkbox" name="models" value=${m.slug}
          checked=${enabled[m.slug] ?? m.enabled}
          onChange=${(e: Event) =>
          setEnabled({ ...enabled, [m.slug]: (e.currentTarget as HTMLInputElement).checked })} />
          ${m.slug}</label>`
      )
    }
    </fieldset>`
  }
    <${TextField} form=${form} name="models" label="Allow more models" value=${added} onInput=${setAdded}
      hint="Model slugs, separated by spaces or commas." />
    <${SubmitButton} form=${form} label="Save models" />
  <//>`
}

export const IntegrationModelsPanel = (
  { integration, onChanged }: { readonly integration: ProviderIntegration; readonly onChanged: () => void }
) => {
  const current = useLoad(() => getIntegrationModels(integration.slug), [integration.slug])
  return html`<${LoadState} loaded=${current}>${(answer: IntegrationModels) =>
    html`<${ModelsForm} key=${JSON.stringify(answer)} integration=${integration} current=${answer} onChanged=${() => {
      current.reload()
      onChanged()
    }} />`}<//>`
}
