/**
 * A partial's page: its own fields (name, description, status) changed without a new template, a new
 * version (which the API publishes at once), its versions with a side-by-side diff of any two, and
 * publishing any of them again (`makeDefault`).
 */
import { useState } from "preact/hooks"
import {
  deletePartial,
  type PartialDetails,
  type PartialVersion,
  partialVersions,
  publishPartialVersion,
  updatePartial
} from "../api.ts"
import { html } from "../html.ts"
import { href } from "../router.ts"
import { may } from "../session.ts"
import { LoadState, PageHeader, useLoad, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"
import { DeleteVersioned, VersionHistory } from "../ui/versionHistory.ts"
import { PartialTemplateFields, VERSION_FIELDS, versionDescriptionOf } from "./partials.ts"

const STATUSES = [["active", "Active"], ["archived", "Archived (renders as a missing partial)"]] as const

/** The partial's own fields; saving them adds no version. */
const DetailsForm = ({ partial, onSaved }: { readonly partial: PartialDetails; readonly onSaved: () => void }) => {
  const form = useForm()
  const [name, setName] = useState(partial.name)
  const [description, setDescription] = useState(partial.description ?? "")
  const [status, setStatus] = useState<PartialDetails["status"]>(partial.status)
  const submit = async () => {
    await updatePartial(partial.id, {
      name,
      description: description.trim() === "" ? null : description.trim(),
      status
    })
    onSaved()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="Details">
    <${FormAlert} form=${form} fields=${["name", "description", "status"]} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Name" value=${name} onInput=${setName} required=${true} />
      <${TextField} form=${form} name="description" label="Description" value=${description}
        onInput=${setDescription} />
      <${SelectField} form=${form} name="status" label="Status" value=${status} onChange=${setStatus}
        options=${STATUSES} />
    </div>
    <${SubmitButton} form=${form} label="Save details" />
  <//>`
}

/** A new version, starting from the published template; the API publishes it at once. */
const NewVersionForm = (
  props: { readonly id: string; readonly start: string; readonly onSaved: (version: number) => void }
) => {
  const form = useForm()
  const [text, setText] = useState(props.start)
  const [description, setDescription] = useState("")
  const submit = async () => {
    const changed = await updatePartial(props.id, { string: text, ...versionDescriptionOf(description) })
    setDescription("")
    props.onSaved(changed.version)
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="New version">
    <${FormAlert} form=${form} fields=${VERSION_FIELDS} />
    <${PartialTemplateFields} form=${form} text=${text} onText=${setText} description=${description}
      onDescription=${setDescription} submit="Save and publish a new version" />
  <//>`
}

export const PartialPage = ({ id }: { readonly id: string }) => {
  const loaded = useLoad(() => partialVersions(id), [id])
  const [saved, setSaved] = useState<number | null>(null)
  const publish = async (version: number) => {
    await publishPartialVersion(id, version)
    setSaved(null)
    loaded.reload()
  }

  return html`<${LoadState} loaded=${loaded}>${({ partial, versions }: Awaited<ReturnType<typeof partialVersions>>) =>
    html`
      <${PageHeader} title=${partial.name}>
        <a class="button" href=${href("/partials")}>All partials</a>
        ${
      may("prompts.delete")
        ? html`<${DeleteVersioned} kind="partial" name=${partial.name} remove=${() =>
          deletePartial(id)} then="/partials" />`
        : null
    }
      <//>
      <p class="muted">Include as <code>{{>${partial.slug}}}</code> · ${
      [partial.status, `published: version ${partial.published_version}`, `updated ${when(partial.last_updated_at)}`]
        .join(" · ")
    }</p>
      ${partial.description === null ? null : html`<p>${partial.description}</p>`}
      ${saved === null ? null : html`<p class="notice" role="status">Version ${saved} saved and published.</p>`}
      ${
      may("prompts.update")
        ? html`<${DetailsForm} key=${partial.last_updated_at} partial=${partial} onSaved=${loaded.reload} />`
        : null
    }
      ${
      may("prompts.update")
        ? html`<${NewVersionForm} key=${partial.version_id} id=${id} start=${partial.string} onSaved=${(
          version: number
        ) => {
          setSaved(version)
          loaded.reload()
        }} />`
        : null
    }

      <h2>Versions</h2>
      <${VersionHistory} name=${partial.name} versions=${versions} published=${partial.published_version}
        highlighted=${saved ?? undefined} linesOf=${(v: PartialVersion) => v.string.split("\n")}
        onPublish=${may("prompts.publish") ? publish : undefined}
        publishQuestion=${(v: number) =>
      `Publish v${v}? Every prompt that includes {{>${partial.slug}}} renders v${v} instead of v${partial.published_version} from its next call.`}
        publishDone=${(v: number) => `Version ${v} of ${partial.name} published.`} />`}<//>`
}
