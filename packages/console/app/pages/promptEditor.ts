/**
 * A new prompt, or a new version of one: chat templates as a list of messages, completion and raw templates
 * as text, the variables listed as they are typed, and the saved model and hyperparameters. Saving a new
 * version does not publish it (the prompt's page does).
 */
import { useEffect, useMemo, useState } from "preact/hooks"
import { createPrompt, type PromptVersion, promptVersions, updatePrompt } from "../api.ts"
import { html } from "../html.ts"
import { href, navigate } from "../router.ts"
import { isAdminKey, workspaceId } from "../session.ts"
import { type Message, parseMessages, serializeMessages, variablesOf } from "../template.ts"
import { PageHeader } from "../ui/common.ts"
import {
  CheckboxField,
  FormAlert,
  FormFrame,
  SelectField,
  SubmitButton,
  TextArea,
  TextField,
  useForm
} from "../ui/forms.ts"
import {
  HyperparameterFields,
  HYPERPARAMETERS,
  type Hyperparameters,
  hyperparametersOf,
  MessagesEditor,
  requestFieldsOf,
  VariablesFound
} from "../ui/templateFields.ts"

interface Draft {
  readonly name: string
  readonly slug: string
  readonly type: "chat" | "completion"
  readonly raw: boolean
  /** The template as messages while it is an editable chat template; as text otherwise. */
  readonly messages: ReadonlyArray<Message> | undefined
  readonly text: string
  readonly model: string
  readonly hyperparameters: Hyperparameters
  /** Saved parameters the form does not show, kept as they were. */
  readonly otherParameters: Readonly<Record<string, unknown>>
  readonly description: string
}

const NEW_PROMPT: Draft = {
  name: "",
  slug: "",
  type: "chat",
  raw: false,
  messages: [{ role: "system", content: "" }, { role: "user", content: "" }],
  text: "",
  model: "",
  hyperparameters: {},
  otherParameters: {},
  description: ""
}

const draftOf = (name: string, version: PromptVersion): Draft => {
  const messages = version.type === "chat" && !version.is_raw_template ? parseMessages(version.string) : undefined
  const shown = new Set<string>(HYPERPARAMETERS.map(([n]) => n))
  return {
    name,
    slug: "",
    type: version.type,
    raw: version.is_raw_template,
    messages,
    text: version.string,
    model: version.model ?? "",
    hyperparameters: hyperparametersOf(version.parameters),
    otherParameters: Object.fromEntries(Object.entries(version.parameters).filter(([k]) => !shown.has(k))),
    description: ""
  }
}

const templateOf = (draft: Draft) => (draft.messages === undefined ? draft.text : serializeMessages(draft.messages))

const parametersOf = (draft: Draft) => ({
  ...draft.otherParameters,
  ...requestFieldsOf(draft.hyperparameters)
})

const FIELDS = [
  "name",
  "slug",
  "workspace_id",
  "string",
  "type",
  "is_raw_template",
  "model",
  "parameters",
  "version_description"
]

export const PromptEditorPage = ({ id }: { readonly id?: string }) => {
  const form = useForm()
  const [draft, setDraft] = useState<Draft | undefined>(id === undefined ? NEW_PROMPT : undefined)
  const [loadError, setLoadError] = useState<string | null>(null)
  const [baseVersion, setBaseVersion] = useState<number | null>(null)

  useEffect(() => {
    if (id === undefined) return
    promptVersions(id).then(({ prompt, versions }) => {
      setBaseVersion(versions[0]!.version)
      setDraft(draftOf(prompt.name, versions[0]!))
    }, (e: Error) => setLoadError(e.message))
  }, [id])

  const variables = useMemo(
    () => (draft === undefined ? [] : variablesOf(draft.messages?.map((m) => m.content) ?? [draft.text])),
    [draft?.messages, draft?.text]
  )

  if (loadError !== null) return html`<div class="alert" role="alert"><p>${loadError}</p></div>`
  if (draft === undefined) return html`<p class="muted">Loading…</p>`
  const change = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch })

  const setType = (type: string) => {
    const chat = type === "chat" && !draft.raw
    // Switching to a chat template starts from its messages when the text is already a message list.
    const messages = chat
      ? draft.messages ?? parseMessages(draft.text) ?? [{ role: "user", content: draft.text }]
      : undefined
    change({ type: type as Draft["type"], messages, text: messages === undefined ? templateOf(draft) : draft.text })
  }
  const setRaw = (raw: boolean) => {
    const messages = !raw && draft.type === "chat" ? parseMessages(templateOf(draft)) : undefined
    change({ raw, messages, text: templateOf(draft) })
  }

  const submit = async () => {
    // The API refuses these too (naming the same fields); said here before anything is sent.
    const savedModel = draft.otherParameters.model
    if (draft.model.trim() === "" && (typeof savedModel !== "string" || savedModel.trim() === "")) {
      return form.fail("model", "Name the model the prompt runs on, e.g. gpt-4o.")
    }
    if (draft.messages !== undefined && !draft.messages.some((m) => m.content.trim() !== "")) {
      return form.fail("string", "Write at least one message: a chat template needs a message with content.")
    }
    const body = {
      string: templateOf(draft),
      type: draft.type,
      is_raw_template: draft.raw,
      parameters: parametersOf(draft),
      ...(draft.model.trim() === "" ? {} : { model: draft.model.trim() }),
      ...(draft.description.trim() === "" ? {} : { version_description: draft.description.trim() })
    }
    if (id === undefined) {
      const created = await createPrompt({
        ...body,
        name: draft.name,
        ...(draft.slug.trim() === "" ? {} : { slug: draft.slug.trim() }),
        ...(isAdminKey() && workspaceId.value !== null ? { workspace_id: workspaceId.value } : {})
      })
      navigate(`/prompts/${created.id}`)
    } else {
      const created = await updatePrompt(id, { ...body, name: draft.name })
      navigate(`/prompts/${created.id}?version=${created.version}`)
    }
  }

  return html`
    <${PageHeader} title=${id === undefined ? "New prompt" : `New version of ${draft.name}`}>
      ${id === undefined ? null : html`<a class="button" href=${href(`/prompts/${id}`)}>Back to versions</a>`}
    <//>
    ${
    baseVersion === null
      ? null
      : html`<p class="muted">Starts from version ${baseVersion}; saving adds a version and does not publish it.</p>`
  }
    <${FormFrame} form=${form} onSubmit=${submit} label=${id === undefined ? "New prompt" : "New version"}>
      <${FormAlert} form=${form} fields=${FIELDS} />
      <div class="editor">
        <div class="editor-main">
          <div class="grid">
            <${TextField} form=${form} name="name" label="Name" value=${draft.name} required=${true}
              onInput=${(name: string) => change({ name })} />
            ${
    id === undefined
      ? html`<${TextField} form=${form} name="slug" label="Slug (optional)" value=${draft.slug}
                hint="Made from the name when empty." onInput=${(slug: string) => change({ slug })} />`
      : null
  }
            <${SelectField} form=${form} name="type" label="Template type" value=${draft.type}
              options=${[["chat", "Chat"], ["completion", "Completion"]]} onChange=${setType} />
            <${CheckboxField} form=${form} name="is_raw_template" label="Raw template (the whole text is rendered, then parsed as JSON)"
              checked=${draft.raw} onChange=${setRaw} />
          </div>
          ${
    draft.messages === undefined
      ? html`<${TextArea} form=${form} name="string" label="Template" rows=${12} value=${draft.text}
                hint=${
        draft.type === "chat" && !draft.raw
          ? "This template is not a plain list of text messages; edit it as JSON."
          : undefined
      }
                onInput=${(text: string) => change({ text })} />`
      : html`<${MessagesEditor} form=${form} messages=${draft.messages} onChange=${(messages: Array<Message>) =>
        change({ messages })} />`
  }
          <${TextField} form=${form} name="model" label="Model" value=${draft.model} placeholder="gpt-4o"
            onInput=${(model: string) => change({ model })} />
          <${HyperparameterFields} form=${form} prefix="parameters." values=${draft.hyperparameters}
            onChange=${(hyperparameters: Hyperparameters) => change({ hyperparameters })} />
          <${TextField} form=${form} name="version_description" label="Version description (optional)"
            value=${draft.description} onInput=${(description: string) => change({ description })} />
          <${SubmitButton} form=${form} label=${id === undefined ? "Create prompt" : "Save version"} />
        </div>
        <aside class="editor-side"><${VariablesFound} variables=${variables} /></aside>
      </div>
    <//>`
}
