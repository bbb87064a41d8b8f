/**
 * A prompt's page: its versions, a side-by-side diff of any two, publishing one, and where its labels point.
 */
import { useMemo, useState } from "preact/hooks"
import { deletePrompt, moveLabel, type PromptVersion, promptVersions, publishVersion } from "../api.ts"
import { html } from "../html.ts"
import { href, navigate, query } from "../router.ts"
import { can } from "../session.ts"
import { diffLines, versionText } from "../template.ts"
import { ConfirmButton, LoadState, PageHeader, useLoad, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"

const BUILT_IN_LABELS = ["production", "staging", "development"]

const DiffView = ({ left, right }: { readonly left: PromptVersion; readonly right: PromptVersion }) => {
  const rows = useMemo(() => diffLines(versionText(left), versionText(right)), [left, right])
  const changed = rows.filter((r) => r.kind === "changed").length
  return html`<section aria-label="Diff">
    <p class="muted" role="status">${
    changed === 0 ? "The two versions are the same." : `${changed} changed line${changed === 1 ? "" : "s"}.`
  }</p>
    <div class="table-wrap"><table class="diff">
      <caption class="visually-hidden">Version ${left.version} beside version ${right.version}</caption>
      <thead><tr><th scope="col">Version ${left.version}</th><th scope="col">Version ${right.version}</th></tr></thead>
      <tbody>${
    rows.map((row) =>
      row.kind === "same"
        ? html`<tr><td><pre>${row.left}</pre></td><td><pre>${row.right}</pre></td></tr>`
        : html`<tr class="changed">
            <td class=${row.left === undefined ? "empty" : "removed"}><pre>${row.left ?? ""}</pre></td>
            <td class=${row.right === undefined ? "empty" : "added"}><pre>${row.right ?? ""}</pre></td>
          </tr>`
    )
  }</tbody>
    </table></div>
  </section>`
}

const LabelForm = (
  props: { readonly id: string; readonly versions: ReadonlyArray<PromptVersion>; readonly onMoved: () => void }
) => {
  const form = useForm()
  const [label, setLabel] = useState("staging")
  const [version, setVersion] = useState(String(props.versions[0]!.version))
  const submit = async () => {
    await moveLabel(props.id, label.trim(), Number(version))
    props.onMoved()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="Move a label">
    <${FormAlert} form=${form} fields=${["label", "version"]} />
    <div class="grid">
      <${TextField} form=${form} name="label" label="Label" value=${label} onInput=${setLabel}
        hint=${`Built in: ${BUILT_IN_LABELS.join(", ")}; any other name makes a new label.`} />
      <${SelectField} form=${form} name="version" label="Version" value=${version} onChange=${setVersion}
        options=${props.versions.map((v) => [String(v.version), `Version ${v.version}`] as const)} />
    </div>
    <${SubmitButton} form=${form} label="Move label" />
  <//>`
}

export const PromptPage = ({ id }: { readonly id: string }) => {
  const loaded = useLoad(() => promptVersions(id), [id])
  const [compare, setCompare] = useState<{ left?: number; right?: number }>({})
  const [error, setError] = useState<string | null>(null)
  const highlighted = Number(query.value.get("version") ?? NaN)

  const publish = async (version: number) => {
    setError(null)
    try {
      await publishVersion(id, version)
      loaded.reload()
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    }
  }

  return html`<${LoadState} loaded=${loaded}>${(
    { prompt, versions, labels }: Awaited<ReturnType<typeof promptVersions>>
  ) => {
    const byNumber = new Map(versions.map((v) => [v.version, v]))
    const left = byNumber.get(compare.left ?? versions[1]?.version ?? -1)
    const right = byNumber.get(compare.right ?? versions[0]?.version ?? -1)
    return html`
      <${PageHeader} title=${prompt.name}>
        ${
      can("prompts.update") ? html`<a class="button primary" href=${href(`/prompts/${id}/edit`)}>New version</a>` : null
    }
        ${
      can("prompts.render") ? html`<a class="button" href=${href(`/prompts/${id}/playground`)}>Playground</a>` : null
    }
        ${
      can("prompts.delete")
        ? html`<${ConfirmButton} label="Delete" question=${`Delete the prompt ${prompt.name} with all its versions?`}
            onConfirm=${async () => {
          await deletePrompt(id)
          navigate("/prompts")
        }} />`
        : null
    }
      <//>
      <p class="muted">Slug <code>${prompt.slug}</code> · id <code>${prompt.id}</code> · published: version ${prompt.published_version}</p>
      ${error === null ? null : html`<div class="alert" role="alert"><p>${error}</p></div>`}

      <h2>Versions</h2>
      <div class="table-wrap"><table>
        <caption class="visually-hidden">Versions of ${prompt.name}</caption>
        <thead><tr>
          <th scope="col">Version</th><th scope="col">Created</th><th scope="col">Description</th>
          <th scope="col">Labels</th><th scope="col">Compare</th><th scope="col">Publish</th>
        </tr></thead>
        <tbody>${
      versions.map((v) =>
        html`<tr class=${v.version === highlighted ? "highlight" : ""}>
            <td>v${v.version}${
          v.version === prompt.published_version ? html` <span class="badge">published</span>` : null
        }</td>
            <td>${when(v.created_at)}</td>
            <td>${v.version_description ?? ""}</td>
            <td>${
          labels.filter((l) => l.version === v.version).map((l) => html`<span class="badge label">${l.label}</span> `)
        }</td>
            <td class="compare">
              <label><input type="radio" name="left" checked=${left?.version === v.version}
                onChange=${() =>
          setCompare({
            ...compare,
            left: v.version
          })} /> A<span class="visually-hidden"> version ${v.version}</span></label>
              <label><input type="radio" name="right" checked=${right?.version === v.version}
                onChange=${() =>
          setCompare({
            ...compare,
            right: v.version
          })} /> B<span class="visually-hidden"> version ${v.version}</span></label>
            </td>
            <td>${
          v.version === prompt.published_version || !can("prompts.publish")
            ? null
            : html`<button type="button" onClick=${() => publish(v.version)}>Publish v${v.version}</button>`
        }</td>
          </tr>`
      )
    }</tbody>
      </table></div>

      ${
      left !== undefined && right !== undefined && left !== right
        ? html`<h2>Diff: version ${left.version} → version ${right.version}</h2><${DiffView} left=${left} right=${right} />`
        : html`<p class="muted">Choose two different versions (A and B) to compare.</p>`
    }

      <h2>Labels</h2>
      <ul class="labels">${
      labels.map((l) => html`<li><span class="badge label">${l.label}</span> → version ${l.version}</li>`)
    }</ul>
      ${can("prompts.publish") ? html`<${LabelForm} id=${id} versions=${versions} onMoved=${loaded.reload} />` : null}`
  }}<//>`
}
