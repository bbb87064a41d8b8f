/**
 * Choosing a key's scopes: grouped by what they are about (prompts, MCP, API keys…), each with a sentence saying
 * what it allows, a filter over names and sentences, and presets (read-only, prompt engineer, renderer, MCP
 * reader, administrator) that pick a usual set in one click. Only scopes the signed-in key holds are offered (a
 * key never gives more than it has), with a scope the edited key already has beside them.
 */
import { useId, useState } from "preact/hooks"
import { html } from "../html.ts"
import { session } from "../session.ts"
import { errorFor, type Form } from "./forms.ts"

interface Group {
  readonly title: string
  readonly about: string
  /** The scopes' resource parts (before the dot) in this group, with how a sentence names each. */
  readonly resources: Readonly<Record<string, string>>
}

const GROUPS: ReadonlyArray<Group> = [
  {
    title: "Prompts",
    about: "Prompts, their versions, partials, labels and collections.",
    resources: { prompts: "prompts" }
  },
  {
    title: "Using the gateway",
    about: "Calling models, and reading what calls did.",
    resources: {
      completions: "completions",
      logs: "request logs",
      analytics: "analytics",
      feedback: "feedback",
      audit_logs: "the audit log"
    }
  },
  {
    title: "MCP",
    about: "MCP integrations (the servers' addresses and credentials) and the MCP servers built on them.",
    resources: {
      mcp_servers: "MCP servers",
      organisation_mcp_integrations: "organisation MCP integrations",
      workspace_mcp_integrations: "workspace MCP integrations"
    }
  },
  {
    title: "Providers",
    about: "Virtual keys, configs, provider integrations and secret references.",
    resources: {
      virtual_keys: "virtual keys",
      configs: "configs",
      organisation_integrations: "organisation provider integrations",
      workspace_integrations: "workspace provider integrations",
      secret_references: "secret references"
    }
  },
  {
    title: "API keys",
    about: "Other API keys: making, rotating, changing and revoking them.",
    resources: {
      api_keys: "API keys",
      organisation_service_api_keys: "admin keys",
      workspace_service_api_keys: "workspace service keys",
      workspace_user_api_keys: "workspace user keys"
    }
  },
  {
    title: "Organisation",
    about: "Workspaces, and the people of the organisation and of its workspaces.",
    resources: {
      workspaces: "workspaces",
      organisation_users: "the organisation's users",
      workspace_users: "workspace members"
    }
  }
]

const VERBS: Readonly<Record<string, string>> = {
  create: "Create",
  read: "Read one of",
  list: "List",
  update: "Change",
  delete: "Delete",
  publish: "Publish versions and move labels of",
  render: "Render",
  rotate: "Rotate",
  test: "Test",
  write: "Call models for",
  view: "View",
  export: "Export"
}

/** What a scope allows, as a sentence: `prompts.render` → "Render prompts". */
export const describeScope = (scope: string): string => {
  const [resource = "", verb = ""] = scope.split(".")
  const noun = GROUPS.map((g) => g.resources[resource]).find((n) => n !== undefined) ?? resource.replace(/_/g, " ")
  return `${VERBS[verb] ?? verb} ${noun}`
}

const groupOf = (scope: string) => {
  const resource = scope.split(".")[0] ?? ""
  return GROUPS.find((g) => resource in g.resources)?.title ?? "Other"
}

export interface Preset {
  readonly name: string
  readonly about: string
  readonly picks: (scope: string) => boolean
}

const verbOf = (scope: string) => scope.split(".")[1] ?? ""
const resourceOf = (scope: string) => scope.split(".")[0] ?? ""

export const PRESETS: ReadonlyArray<Preset> = [
  {
    name: "Read-only",
    about: "reads and lists everything it can see, changes nothing",
    picks: (s) => ["read", "list", "view"].includes(verbOf(s))
  },
  {
    name: "Prompt engineer",
    about: "writes, publishes and renders prompts, runs them against models, reads logs",
    picks: (s) =>
      resourceOf(s) === "prompts" ||
      ["completions.write", "logs.view", "logs.list", "virtual_keys.list", "configs.list"].includes(s)
  },
  {
    name: "Renderer",
    about: "renders prompts for an application, nothing else",
    picks: (s) => s === "prompts.render" || s === "prompts.read"
  },
  {
    name: "MCP reader",
    about: "reads MCP servers and integrations",
    picks: (s) => resourceOf(s).includes("mcp_") && ["read", "list"].includes(verbOf(s))
  },
  { name: "Administrator", about: "every scope this key holds", picks: () => true }
]

const same = (a: ReadonlySet<string>, b: ReadonlySet<string>) => a.size === b.size && [...a].every((s) => b.has(s))

export const ScopePicker = (
  props: {
    readonly form: Form
    readonly chosen: ReadonlySet<string>
    readonly onChange: (s: Set<string>) => void
    /** Scopes the edited key has already, offered beside the signed-in key's own. */
    readonly also?: ReadonlyArray<string>
  }
) => {
  const own = session.value?.key.scopes ?? []
  const offered = [...new Set([...own, ...(props.also ?? [])])]
  const [filter, setFilter] = useState("")
  const id = useId()
  const needle = filter.trim().toLowerCase()
  const shown = offered.filter((s) => s.includes(needle) || describeScope(s).toLowerCase().includes(needle))
  const toggle = (scope: string, on: boolean) => {
    const next = new Set(props.chosen)
    if (on) next.add(scope)
    else next.delete(scope)
    props.form.clear("scopes")
    props.onChange(next)
  }
  const error = errorFor(props.form, "scopes")
  const groups = [...GROUPS.map((g) => g.title), "Other"]
    .map((title) => ({
      title,
      about: GROUPS.find((g) => g.title === title)?.about,
      scopes: shown.filter((s) => groupOf(s) === title)
    }))
    .filter((g) => g.scopes.length > 0)
  return html`<fieldset class="scopes" aria-describedby=${error === undefined ? undefined : `${id}-error`}>
    <legend>Scopes (${props.chosen.size} of the ${own.length} this key has)</legend>
    <div class="presets" role="group" aria-label="Scope presets">
      ${
    PRESETS.map((preset) => {
      const picked = new Set(own.filter(preset.picks))
      return html`<button type="button" aria-pressed=${same(picked, props.chosen) ? "true" : "false"}
          title=${preset.about} onClick=${() => {
        props.form.clear("scopes")
        props.onChange(picked)
      }}>${preset.name}<span class="visually-hidden">: ${preset.about}</span></button>`
    })
  }
    </div>
    <label>Filter scopes <input type="search" value=${filter}
      onInput=${(e: Event) => setFilter((e.currentTarget as HTMLInputElement).value)} /></label>
    <div class="scope-list">
      ${
    groups.map((g, index) =>
      html`<div class="scope-group" role="group" aria-labelledby=${`${id}-g${index}`} key=${g.title}>
          <h4 id=${`${id}-g${index}`}>${g.title} (${
        g.scopes.filter((s) => props.chosen.has(s)).length
      } of ${g.scopes.length})</h4>
          ${g.about === undefined ? null : html`<p class="hint">${g.about}</p>`}
          ${
        g.scopes.map((scope) =>
          html`<label class="check"><input type="checkbox" name="scopes" value=${scope}
              checked=${props.chosen.has(scope)}
              onChange=${(e: Event) => toggle(scope, (e.currentTarget as HTMLInputElement).checked)} />
              <span>${describeScope(scope)} <code>${scope}</code></span></label>`
        )
      }
        </div>`
    )
  }
    </div>
    ${error === undefined ? null : html`<p class="field-error" id=${`${id}-error`} role="alert">${error}</p>`}
  </fieldset>`
}
