/**
 * One integration managed in full: its details (the key masked, where the key comes from, its custom host),
 * a change of name, key (rotated, write-only), secret reference or host; the workspaces it is shared with and the
 * models it allows; and its deletion, whose confirmation names the providers that use it.
 */
import { useEffect, useRef } from "preact/hooks"
import { deleteProviderIntegration, listProviders, type ProviderIntegration } from "../api.ts"
import { html } from "../html.ts"
import { may, workspaceId } from "../session.ts"
import { ConfirmButton, useLoad, when } from "./common.ts"
import { IntegrationModelsPanel, IntegrationSharing } from "./integrationAccess.ts"
import { customHost, IntegrationEdit, keyReference } from "./integrationEdit.ts"

const levelOf = (i: ProviderIntegration) => (i.workspace_id === null ? "organisation" : "workspace")

export const mayChangeIntegration = (i: ProviderIntegration) => may(`integrations.update.${levelOf(i)}`)

export const IntegrationManage = (
  props: {
    readonly integration: ProviderIntegration
    /** Moves when providers change, so the ones using it are read again. */
    readonly version: number
    readonly onChanged: () => void
    readonly onDeleted: () => void
    readonly onClose: () => void
  }
) => {
  const i = props.integration
  const workspace = workspaceId.value ?? undefined
  const providers = useLoad(() => listProviders(workspace, { page_size: 100, current_page: 0 }), [
    workspace,
    i.id,
    props.version
  ])
  const using = (providers.data?.data ?? []).filter((p) => p.integration_id === i.id).map((p) => `@${p.slug}`)
  const question = `Delete ${i.name}? ${
    using.length === 0
      ? "No provider of this workspace uses it."
      : `Providers use it (${using.join(", ")}): the gateway refuses while any does; delete them first.`
  } Its stored key is erased.`
  const mayChange = mayChangeIntegration(i)
  const reference = keyReference(i)
  // Opened below the list: brought into view, its heading focused, so a keyboard or phone user lands on it.
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.scrollIntoView({ block: "start" })
    heading.current?.focus()
  }, [i.id])
  return html`<section class="detail" aria-labelledby="manage-integration-title">
    <h3 id="manage-integration-title" tabIndex="-1" ref=${heading}>Integration ${i.name}</h3>
    <dl>
      <dt>Slug</dt><dd><code>${i.slug}</code></dd>
      <dt>Provider type</dt><dd>${i.ai_provider_id}</dd>
      <dt>Level</dt><dd>${levelOf(i)}</dd>
      <dt>Key</dt><dd>${
    reference === ""
      ? html`<code>${i.masked_key ?? "none"}</code>`
      : html`from secret reference <code>${reference}</code>`
  }</dd>
      <dt>Custom host</dt><dd>${customHost(i) === "" ? "the provider's own" : html`<code>${customHost(i)}</code>`}</dd>
      <dt>Updated</dt><dd>${when(i.last_updated_at)}</dd>
    </dl>
    ${
    mayChange
      ? html`<${IntegrationEdit} key=${i.last_updated_at} integration=${i} onChanged=${props.onChanged} />
        <${IntegrationSharing} integration=${i} onChanged=${props.onChanged} />
        <${IntegrationModelsPanel} integration=${i} onChanged=${props.onChanged} />`
      : null
  }
    <p class="actions">${
    may(`integrations.delete.${levelOf(i)}`)
      ? html`<${ConfirmButton} label=${`Delete ${i.name}`} question=${question} done=${`Integration ${i.slug} deleted.`}
          onConfirm=${() => deleteProviderIntegration(i.slug).then(props.onDeleted)} />`
      : null
  } <button type="button" onClick=${props.onClose}>Close</button></p>
  </section>`
}
