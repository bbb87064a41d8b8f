/**
 * The frame of every signed-in page: the navigation (only what the policy lets the caller use), the workspace
 * the pages work in, who is signed in, and sign-out. At narrow widths all of it folds behind one "Menu" button
 * in a single bar, so the page keeps the screen; following a link folds it again. Success messages (toasts)
 * are announced from here.
 */
import { signal } from "@preact/signals"
import type { ComponentChildren } from "preact"
import { html } from "../html.ts"
import { href, route } from "../router.ts"
import {
  chooseWorkspace,
  enrolmentOnly,
  isAdminKey,
  isPerson,
  may,
  session,
  signOut,
  workspaceId,
  workspaceName
} from "../session.ts"
import { Toasts } from "./toast.ts"

export interface Section {
  readonly path: string
  readonly label: string
  /** Shown when the caller may perform any of these actions where it stands (the API's `actions`). */
  readonly actions: ReadonlyArray<string>
}

export const SECTIONS: ReadonlyArray<Section> = [
  { path: "/prompts", label: "Prompts", actions: ["prompts.list"] },
  { path: "/playground", label: "Playground", actions: ["prompts.render"] },
  { path: "/partials", label: "Partials", actions: ["prompts.list"] },
  { path: "/collections", label: "Collections", actions: ["prompts.list"] },
  { path: "/mcp", label: "MCP registry", actions: ["mcp_integrations.list", "mcp_servers.list"] },
  { path: "/api-keys", label: "API keys", actions: ["api_keys.list"] },
  {
    path: "/integrations",
    label: "Integrations & providers",
    actions: ["integrations.list", "workspace_integrations.list", "providers.list"]
  },
  { path: "/providers", label: "Virtual keys & configs", actions: ["virtual_keys.list", "configs.list"] },
  { path: "/audit", label: "Audit log", actions: ["audit_logs.list"] },
  { path: "/trust-policies", label: "Trust policies", actions: ["trust_policies.list"] },
  { path: "/scim", label: "SCIM", actions: ["scim_tokens.list"] },
  { path: "/identity-providers", label: "Identity providers", actions: ["identity_providers.list"] },
  { path: "/workspaces", label: "Workspaces & members", actions: ["workspaces.list", "users.list"] }
]

/** A person's own pages: their sessions, and their second factor. */
const SESSIONS_SECTION: Section = { path: "/sessions", label: "My sessions", actions: [] }
export const SECOND_FACTOR_SECTION: Section = { path: "/second-factor", label: "Second factor", actions: [] }

/** What the navigation offers; a session that may only enrol a second factor is offered that page alone. */
export const allowedSections = () =>
  enrolmentOnly.value ? [SECOND_FACTOR_SECTION] : [
    ...SECTIONS.filter((s) => s.actions.some(may)),
    ...(isPerson() ? [SESSIONS_SECTION, SECOND_FACTOR_SECTION] : [])
  ]

const WorkspacePicker = () => {
  const current = session.value
  if (current === null || enrolmentOnly.value) return null
  // A workspace key has one workspace; an admin, or a member of several, chooses.
  if (current.kind === "key" && !isAdminKey()) {
    const own = current.key.workspace_id
    return html`<span class="workspace">Workspace ${own === null ? "—" : workspaceName(own)}</span>`
  }
  if (current.workspaces.length === 0) return null
  return html`<label class="workspace">Workspace
    <select value=${workspaceId.value ?? ""} onChange=${(e: Event) =>
    void chooseWorkspace((e.currentTarget as HTMLSelectElement).value)}>
      ${current.workspaces.map((w) => html`<option value=${w.id}>${w.name}</option>`)}
    </select>
  </label>`
}

/** Who is signed in: the person's name and email, or the key's kind. */
const Who = () => {
  const current = session.value
  if (current === null) return null
  const person = current.me.user
  if (current.kind === "person" && person !== null) {
    return html`<span class="who" aria-label="Signed in as">
      <span class="who-name">${person.name ?? person.email}</span>
      ${person.name === null ? null : html` <span class="who-email">${person.email}</span>`}
      <span class="badge">${person.role}</span>
    </span>`
  }
  return html`<span class="who" aria-label="Signed in as">API key: ${current.key.type}${
    person === null ? null : html` of <span class="who-email">${person.email}</span>`
  }</span>`
}

/** The route the narrow-screen menu was opened on: it is open only there, so following a link folds it. */
const menuOpenOn = signal<string | null>(null)

export const Shell = ({ children }: { readonly children: ComponentChildren }) => {
  const open = menuOpenOn.value === route.value
  return html`<div class=${`shell${open ? " menu-open" : ""}`}>
    <a class="skip" href="#main">Skip to content</a>
    <header class="topbar">
      <a class="brand" href=${href("/")}>gateway-control</a>
      <button type="button" class="menu-toggle" aria-expanded=${open ? "true" : "false"} aria-controls="menu"
        onClick=${() => (menuOpenOn.value = open ? null : route.value)}>${open ? "Close menu" : "Menu"}</button>
      <div class="topbar-tools">
        <${WorkspacePicker} />
        <${Who} />
        <button type="button" onClick=${() => void signOut()}>Sign out</button>
      </div>
    </header>
    <nav class="sidebar" id="menu" aria-label="Sections">
      <ul>
        ${
    allowedSections().map((s) =>
      html`<li><a href=${href(s.path)} aria-current=${
        route.value.startsWith(s.path) ? "page" : undefined
      }>${s.label}</a></li>`
    )
  }
      </ul>
    </nav>
    <main id="main" tabIndex="-1">${children}</main>
    <${Toasts} />
  </div>`
}
