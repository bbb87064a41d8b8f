/**
 * A prompt's page: its versions, a side-by-side diff of any two, publishing one, and where its labels point.
 * The label picker offers the labels the prompt's workspace has (`GET /v1/labels`: the built-in ones, the
 * organisation's and the workspace's).
 */
import { useState } from "preact/hooks"
import { deletePrompt, type LabelledVersion, listLabels, moveLabel, promptVersions, publishVersion } from "../api.ts"
import { html } from "../html.ts"
import { href, query } from "../router.ts"
import { may } from "../session.ts"
import { versionText } from "../template.ts"
import { LoadState, PageHeader, useLoad } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, useForm } from "../ui/forms.ts"
import { DeleteVersioned, VersionHistory } from "../ui/versionHistory.ts"

const LabelForm = (
  props: {
    readonly id: string
    readonly workspaceId: string
    readonly versions: ReadonlyArray<LabelledVersion>
    readonly onMoved: () => void
  }
) => {
  const form = useForm()
  const labels = useLoad(() => listLabels(props.workspaceId), [props.workspaceId])
  const [label, setLabel] = useState("staging")
  const [version, setVersion] = useState(String(props.versions[0]!.version))
  const submit = async () => {
    await moveLabel(props.id, label, Number(version))
    props.onMoved()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="Move a label">
    <${FormAlert} form=${form} fields=${["label_id", "version"]} />
    <div class="grid">
      <${SelectField} form=${form} name="label_id" label="Label" value=${label} onChange=${setLabel}
        hint=${labels.error ?? "Built-in labels, the organisation's and the workspace's."}
        options=${
    (labels.data ?? []).map((l) => [l.id, l.workspace_id === undefined ? l.name : `${l.name} (workspace)`] as const)
  } />
      <${SelectField} form=${form} name="version" label="Version" value=${version} onChange=${setVersion}
        options=${props.versions.map((v) => [String(v.version), `Version ${v.version}`] as const)} />
    </div>
    <${SubmitButton} form=${form} label="Move label" />
  <//>`
}

export const PromptPage = ({ id }: { readonly id: string }) => {
  const loaded = useLoad(() => promptVersions(id), [id])
  const highlighted = Number(query.value.get("version") ?? NaN)

  const publish = async (version: number) => {
    await publishVersion(id, version)
    loaded.reload()
  }

  return html`<${LoadState} loaded=${loaded}>${({ prompt, versions }: Awaited<ReturnType<typeof promptVersions>>) =>
    html`
      <${PageHeader} title=${prompt.name}>
        ${
      may("prompts.update") ? html`<a class="button primary" href=${href(`/prompts/${id}/edit`)}>New version</a>` : null
    }
        ${
      may("prompts.render") ? html`<a class="button" href=${href(`/prompts/${id}/playground`)}>Playground</a>` : null
    }
        ${
      may("prompts.delete")
        ? html`<${DeleteVersioned} kind="prompt" name=${prompt.name} remove=${() =>
          deletePrompt(id)} then="/prompts" />`
        : null
    }
      <//>
      <p class="muted">Slug <code>${prompt.slug}</code> · id <code>${prompt.id}</code> · published: version ${prompt.published_version}</p>

      <h2>Versions</h2>
      <${VersionHistory} name=${prompt.name} versions=${versions} published=${prompt.published_version}
        highlighted=${highlighted} linesOf=${versionText} labelsOf=${(v: LabelledVersion) => v.labels}
        onPublish=${may("prompts.publish") ? publish : undefined} />

      <h2>Labels</h2>
      <ul class="labels">${
      versions.flatMap((v) =>
        v.labels.map((l) => html`<li><span class="badge label">${l}</span> → version ${v.version}</li>`)
      )
    }</ul>
      ${
      may("prompts.publish")
        ? html`<${LabelForm} id=${id} workspaceId=${prompt.workspace_id} versions=${versions} onMoved=${loaded.reload} />`
        : null
    }`}<//>`
}
