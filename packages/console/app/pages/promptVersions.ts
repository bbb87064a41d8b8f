/**
 * A prompt's page: its versions, a side-by-side diff of any two, publishing one, and where its labels point.
 * The page says plainly what each does for callers: a call naming the prompt alone renders the published
 * version; a call naming `prompt@label` renders the version that label points at; the two move independently.
 * Publishing and moving a label both ask first, naming the callers whose answer changes, and confirm with a
 * toast. The label picker offers the labels the prompt's workspace has (`GET /v1/labels`: the built-in ones,
 * the organisation's and the workspace's).
 */
import { useState } from "preact/hooks"
import { deletePrompt, type LabelledVersion, listLabels, moveLabel, promptVersions, publishVersion } from "../api.ts"
import { html } from "../html.ts"
import { href, query } from "../router.ts"
import { may } from "../session.ts"
import { versionText } from "../template.ts"
import { LoadState, PageHeader, useLoad } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, useForm } from "../ui/forms.ts"
import { notify } from "../ui/toast.ts"
import { DeleteVersioned, VersionHistory } from "../ui/versionHistory.ts"

/** Where label `name` points now, if anywhere. */
const pointsAt = (versions: ReadonlyArray<LabelledVersion>, name: string) =>
  versions.find((v) => v.labels.includes(name))?.version

const LabelForm = (
  props: {
    readonly id: string
    readonly slug: string
    readonly workspaceId: string
    readonly versions: ReadonlyArray<LabelledVersion>
    readonly onMoved: () => void
  }
) => {
  const form = useForm()
  const labels = useLoad(() => listLabels(props.workspaceId), [props.workspaceId])
  const [label, setLabel] = useState("staging")
  const [version, setVersion] = useState(String(props.versions[0]!.version))
  const [asking, setAsking] = useState(false)
  const name = labels.data?.find((l) => l.id === label)?.name ?? label
  const from = pointsAt(props.versions, name)
  const submit = async () => {
    if (!asking) {
      setAsking(true)
      return
    }
    await moveLabel(props.id, label, Number(version))
    setAsking(false)
    notify(`${name} now points at version ${version}.`)
    props.onMoved()
  }
  const question = from === Number(version)
    ? `${name} already points at version ${version}; nothing changes.`
    : `Move ${name} ${
      from === undefined ? "" : `from version ${from} `
    }to version ${version}? Calls naming ${props.slug}@${name} render version ${version}${
      from === undefined ? "" : ` instead of ${from}`
    } from their next call; calls naming ${props.slug} alone still get the published version.`
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="Move a label">
    <${FormAlert} form=${form} fields=${["label_id", "version"]} />
    <div class="grid">
      <${SelectField} form=${form} name="label_id" label="Label" value=${label} onChange=${(v: string) => {
    setLabel(v)
    setAsking(false)
  }}
        hint=${labels.error ?? "Built-in labels, the organisation's and the workspace's."}
        options=${
    (labels.data ?? []).map((l) => [l.id, l.workspace_id === undefined ? l.name : `${l.name} (workspace)`] as const)
  } />
      <${SelectField} form=${form} name="version" label="Version" value=${version} onChange=${(v: string) => {
    setVersion(v)
    setAsking(false)
  }}
        options=${props.versions.map((v) => [String(v.version), `Version ${v.version}`] as const)} />
    </div>
    ${
    asking
      ? html`<div class="confirm" role="group" aria-label="Confirm the label move">
          <span>${question}</span>
          <${SubmitButton} form=${form} label=${`Yes, move ${name}`} />
          <button type="button" onClick=${() => setAsking(false)}>Cancel</button>
        </div>`
      : html`<${SubmitButton} form=${form} label="Move label" />`
  }
  <//>`
}

/** How callers get a version of this prompt: the published version, labels, numbers. */
const HowCallersChoose = (
  { slug, published, versions }: {
    readonly slug: string
    readonly published: number
    readonly versions: ReadonlyArray<LabelledVersion>
  }
) =>
  html`<section class="explain" aria-labelledby="how-title">
    <h2 id="how-title">Which version callers get</h2>
    <p><strong>Published version (v${published})</strong>: what a call naming <code>${slug}</code> alone renders.
      Publishing another version changes what those calls get, and nothing else.</p>
    <p><strong>Labels</strong> (${
    versions.flatMap((v) => v.labels.map((l) => `${l} → v${v.version}`)).join(", ") || "none yet"
  }): a call naming <code>${slug}@label</code> renders the version the label points at. Moving a label changes
      only those calls; publishing does not move labels, and moving <code>production</code> does not publish.</p>
    <p class="muted">A call can also name a version by number (<code>${slug}@2</code>) or the newest
      (<code>${slug}@latest</code>).</p>
  </section>`

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

      <${HowCallersChoose} slug=${prompt.slug} published=${prompt.published_version} versions=${versions} />

      <h2>Versions</h2>
      <${VersionHistory} name=${prompt.name} versions=${versions} published=${prompt.published_version}
        highlighted=${highlighted} linesOf=${versionText} labelsOf=${(v: LabelledVersion) => v.labels}
        onPublish=${may("prompts.publish") ? publish : undefined}
        publishQuestion=${(v: number) =>
      `Publish v${v}? Calls naming ${prompt.slug} alone render v${v} instead of v${prompt.published_version} from their next call. Labels stay where they are${
        versions.some((x) => x.labels.length > 0)
          ? ` (${versions.flatMap((x) => x.labels.map((l) => `${l} → v${x.version}`)).join(", ")})`
          : ""
      }.`}
        publishDone=${(v: number) => `Version ${v} published: calls naming ${prompt.slug} now get it.`} />

      <h2>Labels</h2>
      <ul class="labels">${
      versions.flatMap((v) =>
        v.labels.map((l) => html`<li><span class="badge label">${l}</span> → version ${v.version}</li>`)
      )
    }</ul>
      ${
      may("prompts.publish")
        ? html`<${LabelForm} id=${id} slug=${prompt.slug} workspaceId=${prompt.workspace_id} versions=${versions} onMoved=${loaded.reload} />`
        : null
    }`}<//>`
}
