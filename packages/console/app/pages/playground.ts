/**
 * The playground: render a prompt version with values for its variables and request fields, and see the body,
 * the variables it lacked and the deprecated fields it used. Nothing is sent to a model.
 */
import { useEffect, useMemo, useState } from "preact/hooks"
import { getPrompt, listPrompts, promptVersions, render, type Rendered } from "../api.ts"
import { html } from "../html.ts"
import { href, navigate } from "../router.ts"
import { may, workspaceId } from "../session.ts"
import { variablesOf } from "../template.ts"
import { Json, LoadState, PageHeader, useLoad } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextArea, TextField, useForm } from "../ui/forms.ts"
import { HyperparameterFields, HYPERPARAMETERS, type Hyperparameters, requestFieldsOf } from "../ui/templateFields.ts"

/** A value as typed: JSON when it reads as an object, a list or a flag (for sections), text otherwise. */
const valueOf = (text: string): unknown => {
  const trimmed = text.trim()
  if (/^[[{]/.test(trimmed) || trimmed === "true" || trimmed === "false") {
    try {
      return JSON.parse(trimmed)
    } catch {
      return text
    }
  }
  return text
}

/** `a.b` names `b` inside `a`, as in the template. */
const nest = (values: Readonly<Record<string, string>>) => {
  const out: Record<string, unknown> = {}
  for (const [path, text] of Object.entries(values)) {
    const parts = path.split(".")
    let at = out
    for (const part of parts.slice(0, -1)) {
      const next = at[part]
      at = (at[part] = typeof next === "object" && next !== null ? next : {}) as Record<string, unknown>
    }
    at[parts.at(-1)!] = valueOf(text)
  }
  return out
}

/** The first prompts of the workspace, when the key may list them. */
const PromptLinks = () => {
  const workspace = workspaceId.value ?? undefined
  const loaded = useLoad(() => listPrompts(workspace, { page_size: 100, current_page: 0 }), [workspace])
  return html`<${LoadState} loaded=${loaded}>${(page: Awaited<ReturnType<typeof listPrompts>>) =>
    html`<ul class="links">${
      page.data.map((p) => html`<li><a href=${href(`/prompts/${p.id}/playground`)}>${p.name}</a></li>`)
    }</ul>
      ${page.has_more ? html`<p class="muted">The first 100 prompts; open others by slug.</p>` : null}`}<//>`
}

/** A prompt to render: by its slug or id (a key may render prompts it may not list), or from the list. */
const PromptPicker = () => {
  const form = useForm()
  const [ref, setRef] = useState("")
  const open = async () => {
    const prompt = await getPrompt(ref.trim())
    navigate(`/prompts/${prompt.id}/playground`)
  }
  return html`<${PageHeader} title="Playground" />
    <${FormFrame} form=${form} onSubmit=${open} label="Open a prompt">
      <${FormAlert} form=${form} fields=${[]} />
      <${TextField} form=${form} name="prompt" label="Prompt slug or id" value=${ref} onInput=${setRef} />
      <${SubmitButton} form=${form} label="Open" />
    <//>
    ${may("prompts.list") ? html`<${PromptLinks} />` : null}`
}

const FIELDS = ["version", "model", "extra", ...HYPERPARAMETERS.map(([name]) => name)]

const LoadedPlayground = ({ id }: { readonly id: string }) => {
  const loaded = useLoad(() => promptVersions(id), [id])
  return html`<${LoadState} loaded=${loaded}>${(data: Awaited<ReturnType<typeof promptVersions>>) =>
    html`<${Playground} id=${id} data=${data} />`}<//>`
}

export const PlaygroundPage = ({ id }: { readonly id?: string }) =>
  id === undefined ? html`<${PromptPicker} />` : html`<${LoadedPlayground} id=${id} />`

const Playground = (
  { id, data }: { readonly id: string; readonly data: Awaited<ReturnType<typeof promptVersions>> }
) => {
  const form = useForm()
  const [version, setVersion] = useState(String(data.prompt.published_version))
  const [values, setValues] = useState<Record<string, string>>({})
  const [model, setModel] = useState("")
  const [hyperparameters, setHyperparameters] = useState<Hyperparameters>({})
  const [extra, setExtra] = useState("")
  const [result, setResult] = useState<Rendered | null>(null)
  const chosen = data.versions.find((v) => String(v.version) === version) ?? data.versions[0]!
  const variables = useMemo(() => variablesOf([chosen.string]), [chosen])
  useEffect(() => setResult(null), [version])

  const submit = async () => {
    let more: Record<string, unknown> = {}
    if (extra.trim() !== "") {
      try {
        more = JSON.parse(extra) as Record<string, unknown>
      } catch {
        return form.fail("extra", "Other fields must be a JSON object, e.g. {\"stop\": [\"\\n\"]}.")
      }
    }
    const fields = requestFieldsOf(hyperparameters)
    setResult(null)
    setResult(
      await render(`${id}@${chosen.version}`, {
        ...more,
        ...fields,
        ...(model.trim() === "" ? {} : { model: model.trim() }),
        variables: nest(Object.fromEntries(variables.map((v) => [v.name, values[v.name] ?? ""])))
      })
    )
  }

  return html`
    <${PageHeader} title=${`Playground: ${data.prompt.name}`}>
      <a class="button" href=${href(`/prompts/${id}`)}>Versions</a>
    <//>
    <${FormFrame} form=${form} onSubmit=${submit} label="Render">
      <${FormAlert} form=${form} fields=${[...FIELDS, ...variables.map((v) => `variables.${v.name}`)]} />
      <${SelectField} form=${form} name="version" label="Version" value=${version} onChange=${setVersion}
        options=${
    data.versions.map((v) =>
      [
        String(v.version),
        `Version ${v.version}${v.version === data.prompt.published_version ? " (published)" : ""}`
      ] as const
    )
  } />
      <fieldset>
        <legend>Variables</legend>
        ${variables.length === 0 ? html`<p class="muted">This version names no variables.</p>` : null}
        <div class="grid">
          ${
    variables.map((v) =>
      html`<${TextField} form=${form} name=${`variables.${v.name}`} label=${v.name} value=${values[v.name] ?? ""}
              hint=${v.section ? "A section: true, false, or a JSON list or object." : undefined}
              onInput=${(value: string) => setValues({ ...values, [v.name]: value })} />`
    )
  }
        </div>
      </fieldset>
      <${TextField} form=${form} name="model" label="Model" value=${model} placeholder=${
    chosen.model ?? "the saved model"
  }
        onInput=${setModel} />
      <${HyperparameterFields} form=${form} prefix="" values=${hyperparameters} onChange=${setHyperparameters} />
      <${TextArea} form=${form} name="extra" label="Other request fields (JSON object)" rows=${3} value=${extra}
        onInput=${setExtra} />
      <${SubmitButton} form=${form} label="Render" />
    <//>
    ${
    result === null ? null : html`<section class="result" aria-label="Rendered">
      <h2>Rendered body</h2>
      <${Json} value=${result.data} label="Rendered body" />
      <h3>Missing variables</h3>
      ${
      result.missingVariables.length === 0 && result.missingVariablesOmitted === 0
        ? html`<p>None.</p>`
        : html`<ul>${result.missingVariables.map((v) => html`<li><code>${v}</code></li>`)}</ul>${
          result.missingVariablesOmitted > 0 ? html`<p>and ${result.missingVariablesOmitted} more.</p>` : null
        }`
    }
      <h3>Deprecated fields</h3>
      ${
      result.deprecatedFields.length === 0
        ? html`<p>None.</p>`
        : html`<ul>${result.deprecatedFields.map((v) => html`<li><code>${v}</code></li>`)}</ul>`
    }
    </section>`
  }
    <p><button type="button" class="link" onClick=${() => navigate("/playground")}>Choose another prompt</button></p>`
}
