/**
 * The playground: a prompt version with values for its variables (found in the template and in the partials it
 * expands, resolved as the render would) and request fields, rendered to see the body, or run against the model
 * through a provider or virtual key of the workspace, the answer streamed as it arrives, with its tokens and
 * latency, and a Stop. Two versions run side by side with the same variables. A variable left empty is not sent
 * (it is missing, and renders empty); one marked "empty text" is sent as "". Code to call the prompt from a
 * program is shown for the values entered.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks"
import {
  ApiError,
  getPrompt,
  listPrompts,
  listVirtualKeys,
  listWorkspaceProviders,
  partialTemplate,
  promptVersions,
  render,
  type Rendered,
  runCompletion,
  type RunProgress,
  type RunResult
} from "../api.ts"
import { html } from "../html.ts"
import { href, navigate } from "../router.ts"
import { may, workspaceId } from "../session.ts"
import { type DetectedVariables, variablesOf, variablesWithPartials } from "../template.ts"
import { CopyButton, Json, LoadState, PageHeader, useLoad } from "../ui/common.ts"
import {
  errorFor,
  type Form,
  FormAlert,
  FormFrame,
  SelectField,
  SubmitButton,
  TextArea,
  TextField,
  useForm
} from "../ui/forms.ts"
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

const FIELDS = [
  "version",
  "compare",
  "provider",
  "model",
  "extra",
  "draft",
  ...HYPERPARAMETERS.map(([name]) => name)
]

type Data = Awaited<ReturnType<typeof promptVersions>>

const LoadedPlayground = ({ id }: { readonly id: string }) => {
  const loaded = useLoad(() => promptVersions(id), [id])
  return html`<${LoadState} loaded=${loaded}>${(data: Data) => html`<${Playground} id=${id} data=${data} />`}<//>`
}

export const PlaygroundPage = ({ id }: { readonly id?: string }) =>
  id === undefined ? html`<${PromptPicker} />` : html`<${LoadedPlayground} id=${id} />`

/** The providers and virtual keys of the workspace a run may go through, as `@slug` choices. */
const useProviderChoices = (workspace: string) => {
  const loaded = useLoad(async () => {
    const paging = { page_size: 100, current_page: 0 }
    const [providers, keys] = await Promise.allSettled([
      listWorkspaceProviders(workspace, paging),
      listVirtualKeys(workspace, paging)
    ])
    return [
      ...(providers.status === "fulfilled" ? providers.value.data : []).map((p) =>
        [`@${p.slug}`, `${p.name} (provider @${p.slug})`] as const
      ),
      ...(keys.status === "fulfilled" ? keys.value.data : []).map((k) =>
        [`@${k.slug}`, `${k.name} (virtual key ${k.slug})`] as const
      )
    ]
  }, [workspace])
  return loaded.data ?? []
}

/** A variable's field: empty is missing (not sent); "empty text" sends "" instead. */
const VariableField = (
  props: {
    readonly form: Form
    readonly name: string
    readonly section: boolean
    readonly partial: string | undefined
    readonly value: string
    readonly empty: boolean
    readonly onInput: (value: string) => void
    readonly onEmpty: (empty: boolean) => void
  }
) => {
  const id = `variable-${props.name.replace(/[^\w-]/g, "_")}`
  const error = errorFor(props.form, `variables.${props.name}`)
  const hints = [
    props.section ? "A section: true, false, or a JSON list or object." : undefined,
    props.partial === undefined ? undefined : `From the partial ${props.partial}.`,
    props.value === "" ? (props.empty ? "Sent as empty text." : "Missing: not sent.") : undefined
  ].filter((hint) => hint !== undefined)
  return html`<div class=${`field variable${error === undefined ? "" : " invalid"}`}>
    <label for=${id} id=${`${id}-label`}>${props.name}</label>
    <input id=${id} name=${`variables.${props.name}`} type="text" value=${props.value} spellcheck=${false}
      autocomplete="off" aria-describedby=${`${id}-hint`} aria-invalid=${error === undefined ? undefined : "true"}
      onInput=${(e: Event) => props.onInput((e.currentTarget as HTMLInputElement).value)} />
    <p class="hint" id=${`${id}-hint`}>${hints.join(" ")}</p>
    ${
    props.value === ""
      ? html`<label class="inline-check"><input type="checkbox" checked=${props.empty}
          aria-describedby=${`${id}-label`}
          onChange=${(e: Event) =>
        props.onEmpty((e.currentTarget as HTMLInputElement).checked)} /> Send as empty text</label>`
      : null
  }
    ${error === undefined ? null : html`<p class="field-error" role="alert">${error}</p>`}
  </div>`
}

interface Side {
  /** `version N`, or `the unsaved edit`. */
  readonly title: string
  readonly state: "running" | "done" | "stopped" | "failed"
  readonly progress: RunProgress | RunResult | null
  readonly error: string | null
}

/** One run's answer as it arrives, with its tokens and latency. */
const RunPanel = ({ side }: { readonly side: Side }) => {
  const progress = side.progress
  const usage = progress?.usage
  const status = {
    running: "Streaming…",
    done: "Done",
    stopped: "Stopped",
    failed: "Failed"
  }[side.state]
  return html`<section class="run" aria-label=${`Run of ${side.title}`}>
    <h3>${side.title[0]!.toUpperCase()}${side.title.slice(1)} <span class="badge">${status}</span></h3>
    ${side.error === null ? null : html`<div class="alert" role="alert"><p>${side.error}</p></div>`}
    <pre class="run-output" tabIndex="0" aria-label=${`Answer of ${side.title}`} aria-live="polite">${
    progress?.text ?? ""
  }</pre>
    <dl class="run-stats">
      <dt>Tokens</dt>
      <dd>${
    usage === null || usage === undefined
      ? "—"
      : `${usage.prompt_tokens ?? "?"} prompt, ${usage.completion_tokens ?? "?"} completion, ${
        usage.total_tokens ?? "?"
      } total`
  }</dd>
      <dt>Latency</dt>
      <dd>${
    progress === null
      ? "—"
      : `first token ${progress.firstTokenMs === null ? "—" : `${progress.firstTokenMs} ms`}${
        "totalMs" in progress ? `, total ${progress.totalMs} ms` : ""
      }`
  }</dd>
      ${
    progress !== null && progress.missingVariables.length > 0
      ? html`<dt>Missing variables</dt><dd>${progress.missingVariables.join(", ")}</dd>`
      : null
  }
    </dl>
  </section>`
}

/** Text for a shell's single quotes. */
const shellQuoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`

/** How to call the prompt from a program, with the values entered. */
const Snippets = (
  props: { readonly ref: string; readonly provider: string; readonly body: Record<string, unknown> }
) => {
  const base = `${location.origin}/v1`
  const { variables, ...fields } = props.body
  const provider = props.provider === "" ? "@your-provider" : props.provider
  const curl = [
    `curl -N -X POST ${shellQuoted(`${base}/prompts/${props.ref}/completions`)} \\`,
    `  -H 'content-type: application/json' \\`,
    `  -H "x-portkey-api-key: $GATEWAY_API_KEY" \\`,
    `  -H ${shellQuoted(`x-portkey-provider: ${provider}`)} \\`,
    `  -d ${shellQuoted(JSON.stringify({ ...props.body, stream: true }))}`
  ].join("\n")
  // The packages' names are quoted in the text only, so no tool takes these for the page's own imports.
  const portkey = `import Portkey from ${JSON.stringify("portkey-ai")}

const portkey = new Portkey({
  apiKey: process.env.GATEWAY_API_KEY,
  baseURL: ${JSON.stringify(base)},
  provider: ${JSON.stringify(provider)}
})

const completion = await portkey.prompts.completions.create(${
    JSON.stringify({ promptId: props.ref, ...props.body }, null, 2)
  })
console.log(completion)`
  const openai = `import OpenAI from ${JSON.stringify("openai")}

// Render the prompt with the gateway, then send the rendered request with OpenAI's SDK.
const rendered = await fetch(${JSON.stringify(`${base}/prompts/${props.ref}/render`)}, {
  method: "POST",
  headers: { "content-type": "application/json", "x-portkey-api-key": process.env.GATEWAY_API_KEY },
  body: JSON.stringify(${JSON.stringify({ variables, ...fields }, null, 2).replaceAll("\n", "\n  ")})
}).then((response) => response.json())

const openai = new OpenAI({ apiKey: process.env.OPENAI_API_KEY })
const completion = await openai.chat.completions.create(rendered.data)
console.log(completion.choices[0].message.content)`
  return html`<section class="snippets" aria-label="Code">
    <h2>Call it from code</h2>
    ${
    [
      ["curl", "curl", curl],
      ["Portkey's SDK (Node)", "Portkey SDK code", portkey],
      ["OpenAI's SDK, with the body the gateway renders", "OpenAI SDK code", openai]
    ].map(([title, short, code]) =>
      html`<div class="snippet">
        <h3>${title} <${CopyButton} text=${code} label=${`Copy ${short}`} /></h3>
        <pre tabIndex="0" aria-label=${`${short} to call the prompt`}>${code}</pre>
      </div>`
    )
  }
  </section>`
}

const Playground = ({ id, data }: { readonly id: string; readonly data: Data }) => {
  const form = useForm()
  const [version, setVersion] = useState(String(data.prompt.published_version))
  const [compare, setCompare] = useState("")
  const [values, setValues] = useState<Record<string, string>>({})
  const [empties, setEmpties] = useState<ReadonlySet<string>>(new Set())
  const [model, setModel] = useState("")
  const [hyperparameters, setHyperparameters] = useState<Hyperparameters>({})
  const [extra, setExtra] = useState("")
  const [rendered, setRendered] = useState<ReadonlyArray<readonly [number, Rendered]>>([])
  const [sides, setSides] = useState<ReadonlyArray<Side>>([])
  const running = useRef<AbortController | null>(null)
  const choices = useProviderChoices(data.prompt.workspace_id)
  const chosen = data.versions.find((v) => String(v.version) === version) ?? data.versions[0]!
  const other = compare === "" ? undefined : data.versions.find((v) => String(v.version) === compare)
  const [draftText, setDraftText] = useState("")
  const editing = compare === "draft"
  useEffect(() => {
    if (editing) setDraftText(chosen.string)
  }, [editing, version])
  const [provider, setProvider] = useState(chosen.virtual_key === undefined ? "" : `@${chosen.virtual_key}`)
  useEffect(() => {
    if (provider === "" && choices.length > 0) setProvider(choices[0]![0])
  }, [choices])
  useEffect(() => setRendered([]), [version, compare])
  useEffect(() => () => running.current?.abort(), [])

  // The template's own variables at once; those of its partials once they are read (dynamic ones by their value).
  const templates = useMemo(
    () => [chosen.string, ...(other === undefined ? [] : [other.string]), ...(editing ? [draftText] : [])],
    [chosen, other, editing, draftText]
  )
  const [detected, setDetected] = useState<DetectedVariables>({ variables: variablesOf(templates), unresolved: [] })
  const dynamicValues = JSON.stringify(values)
  useEffect(() => {
    let current = true
    setDetected((d) => ({ ...d, variables: mergeVariables(variablesOf(templates), d.variables) }))
    variablesWithPartials(
      templates,
      values,
      (slug, n) => partialTemplate(slug, data.prompt.workspace_id, n)
    ).then((found) => current && setDetected(found))
    return () => void (current = false)
  }, [templates, dynamicValues])
  const variables = detected.variables

  const missing = variables.filter((v) => (values[v.name] ?? "") === "" && !empties.has(v.name)).map((v) => v.name)

  /** The request body the form makes: empty variables left out unless marked as empty text. */
  const requestBody = (): Record<string, unknown> | undefined => {
    let more: Record<string, unknown> = {}
    if (extra.trim() !== "") {
      try {
        const parsed: unknown = JSON.parse(extra)
        if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object")
        more = parsed as Record<string, unknown>
      } catch {
        form.fail("extra", "Other fields must be a JSON object, e.g. {\"stop\": [\"\\n\"]}.")
        return undefined
      }
    }
    const given = Object.fromEntries(
      variables.flatMap((v) => {
        const value = values[v.name] ?? ""
        return value !== "" ? [[v.name, value]] : empties.has(v.name) ? [[v.name, ""]] : []
      })
    )
    // Variables typed into the other fields are kept; the fields above win over them.
    const typed = typeof more.variables === "object" && more.variables !== null && !Array.isArray(more.variables)
      ? more.variables as Record<string, unknown>
      : {}
    return {
      ...more,
      ...requestFieldsOf(hyperparameters),
      ...(model.trim() === "" ? {} : { model: model.trim() }),
      variables: { ...typed, ...nest(given) }
    }
  }

  const versionsShown = () => [chosen.version, ...(other === undefined ? [] : [other.version])]

  const submit = async () => {
    const body = requestBody()
    if (body === undefined) return
    setRendered([])
    const answers = await Promise.all(
      versionsShown().map(async (n) => [n, await render(`${id}@${n}`, body)] as const)
    )
    setRendered(answers)
  }

  const run = async () => {
    form.report(undefined)
    const body = requestBody()
    if (body === undefined) return
    if (provider === "") {
      return form.fail("provider", "Choose the provider or virtual key the run goes through.")
    }
    running.current?.abort()
    const controller = new AbortController()
    running.current = controller
    const shown = [
      ...versionsShown().map((n) => ({ title: `version ${n}`, version: n, draft: undefined })),
      ...(editing ? [{ title: "the unsaved edit", version: chosen.version, draft: { string: draftText } }] : [])
    ]
    setSides(shown.map(({ title }) => ({ title, state: "running", progress: null, error: null })))
    const update = (title: string, patch: Partial<Side>) =>
      setSides((all) => all.map((side) => (side.title === title ? { ...side, ...patch } : side)))
    await Promise.all(shown.map(async ({ draft, title: n, version: at }) => {
      try {
        const result = await runCompletion(
          `${id}@${at}`,
          { ...body, stream: true, stream_options: { include_usage: true } },
          provider,
          controller.signal,
          (progress) => update(n, { progress }),
          draft
        )
        update(n, { progress: result, state: result.stopped ? "stopped" : "done" })
      } catch (error) {
        if (controller.signal.aborted) return update(n, { state: "stopped" })
        // The gateway's refusals of the request itself name a field of the form.
        if (error instanceof ApiError && error.param !== null) form.report(error)
        update(n, { state: "failed", error: error instanceof Error ? error.message : String(error) })
      }
    }))
    if (running.current === controller) running.current = null
  }
  const stop = () => running.current?.abort()
  const isRunning = sides.some((side) => side.state === "running")

  const versionOptions = data.versions.map((v) =>
    [
      String(v.version),
      `Version ${v.version}${v.version === data.prompt.published_version ? " (published)" : ""}`
    ] as const
  )
  const snippetBody = useMemo(() => {
    const given = Object.fromEntries(
      variables.flatMap((v) => {
        const value = values[v.name] ?? ""
        return value !== "" ? [[v.name, value]] : empties.has(v.name) ? [[v.name, ""]] : []
      })
    )
    return { variables: nest(given), ...requestFieldsOf(hyperparameters), ...(model.trim() === "" ? {} : { model }) }
  }, [variables, values, empties, hyperparameters, model])

  return html`
    <${PageHeader} title=${`Playground: ${data.prompt.name}`}>
      <a class="button" href=${href(`/prompts/${id}`)}>Versions</a>
    <//>
    <${FormFrame} form=${form} onSubmit=${submit} label="Render">
      <${FormAlert} form=${form} fields=${[...FIELDS, ...variables.map((v) => `variables.${v.name}`)]} />
      <div class="grid">
        <${SelectField} form=${form} name="version" label="Version" value=${version} onChange=${setVersion}
          options=${versionOptions} />
        <${SelectField} form=${form} name="compare" label="Compare with" value=${compare} onChange=${setCompare}
          options=${[
    ["", "No other version"],
    ...versionOptions.filter(([v]) => v !== version),
    ["draft", "An unsaved edit of this version"]
  ]} />
        <${SelectField} form=${form} name="provider" label="Provider" value=${provider} onChange=${setProvider}
          options=${choices.length === 0 ? [["", "No provider or virtual key to use"]] : choices} />
      </div>
      ${
    editing
      ? html`<${TextArea} form=${form} name="draft" label="Unsaved edit (the template, as JSON for a chat)" rows=${6}
          value=${draftText} onInput=${setDraftText} />
        <p class="muted">Run runs the edit beside the version, with its model and parameters; nothing is saved.
          Render shows the saved version only.</p>`
      : null
  }
      <fieldset>
        <legend>Variables</legend>
        ${variables.length === 0 ? html`<p class="muted">This version names no variables.</p>` : null}
        <div class="grid">
          ${
    variables.map((v) =>
      html`<${VariableField} form=${form} name=${v.name} section=${v.section} partial=${v.partial}
              value=${values[v.name] ?? ""} empty=${empties.has(v.name)}
              onInput=${(value: string) => setValues({ ...values, [v.name]: value })}
              onEmpty=${(empty: boolean) => {
        const next = new Set(empties)
        if (empty) next.add(v.name)
        else next.delete(v.name)
        setEmpties(next)
      }} />`
    )
  }
        </div>
        <p class="muted" aria-live="polite">${
    missing.length === 0 ? "Every variable has a value." : `Missing (not sent): ${missing.join(", ")}.`
  }</p>
        ${
    detected.unresolved.length === 0
      ? null
      : html`<p class="muted">Partials that render as missing: ${detected.unresolved.join(", ")}.</p>`
  }
      </fieldset>
      <${TextField} form=${form} name="model" label="Model" value=${model} placeholder=${
    chosen.model ?? "the saved model"
  }
        onInput=${setModel} />
      <${HyperparameterFields} form=${form} prefix="" values=${hyperparameters} onChange=${setHyperparameters} />
      <${TextArea} form=${form} name="extra" label="Other request fields (JSON object)" rows=${3} value=${extra}
        onInput=${setExtra} />
      <div class="copy-row">
        <${SubmitButton} form=${form} label="Render" />
        <button type="button" class="primary" disabled=${isRunning} onClick=${run}>Run</button>
        <button type="button" disabled=${!isRunning} onClick=${stop}>Stop</button>
      </div>
    <//>
    ${
    sides.length === 0
      ? null
      : html`<section class="runs" aria-label="Runs">${
        sides.map((side) => html`<${RunPanel} side=${side} />`)
      }</section>`
  }
    ${
    rendered.length === 0 ?
      null :
      html`<div class="runs">${
        rendered.map(([n, result]) =>
          html`<section class="result" aria-label=${rendered.length === 1 ? "Rendered" : `Rendered version ${n}`}>
      <h2>Rendered body${rendered.length === 1 ? "" : ` of version ${n}`}</h2>
      <${Json} value=${result.data} label=${
            rendered.length === 1 ? "Rendered body" : `Rendered body of version ${n}`
          } />
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
        )
      }</div>`
  }
    <${Snippets} ref=${`${data.prompt.slug}@${chosen.version}`} provider=${provider} body=${snippetBody} />
    <p><button type="button" class="link" onClick=${() => navigate("/playground")}>Choose another prompt</button></p>`
}

/** The template's own variables now, keeping those of partials found before until they are read again. */
const mergeVariables = (
  own: ReadonlyArray<DetectedVariables["variables"][number]>,
  before: DetectedVariables["variables"]
) => [...own, ...before.filter((v) => v.partial !== undefined && !own.some((o) => o.name === v.name))]
