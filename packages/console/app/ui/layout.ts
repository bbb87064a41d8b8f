/**
 * The frame of every signed-in page: the navigation (only what the key may use), the workspace the pages work
 * in, and sign-out. At narrow widths the navigation wraps above the page.
 */
import type { ComponentChildren } from "preact"
import { html } from "../html.ts"
import { href, route } from "../router.ts"
import { can, chooseWorkspace, isAdminKey, session, signOut, workspaceId } from "../session.ts"

export interface Section {
  readonly path: string
  readonly label: string
  /** Shown when the key has any of these scopes. */
  readonly scopes: ReadonlyArray<string>
}

export const SECTIONS: ReadonlyArray<Section> = [
  { path: "/prompts", label: "Prompts", scopes: ["prompts.list"] },
  { path: "/playground", label: "Playground", scopes: ["prompts.render"] },
  { path: "/partials", label: "Partials", scopes: ["prompts.list"] },
  { path: "/collections", label: "Collections", scopes: ["prompts.list"] },
  {
    path: "/mcp",
    label: "MCP registry",
    scopes: ["organisation_mcp_integrations.list", "workspace_mcp_integrations.list", "mcp_servers.list"]
  },
  { path: "/api-keys", label: "API keys", scopes: ["api_keys.list"] },
  { path: "/providers", label: "Virtual keys & configs", scopes: ["virtual_keys.list", "configs.list"] },
  { path: "/audit", label: "Audit log", scopes: ["audit_logs.list"] },
  { path: "/trust-policies", label: "Trust policies", scopes: ["api_keys.list"] },
  { path: "/scim", label: "SCIM", scopes: ["organisation_users.list"] },
  { path: "/workspaces", label: "Workspaces & members", scopes: ["workspaces.list", "organisation_users.list"] }
]

export const allowedSections = () => SECTIONS.filter((s) => s.scopes.some(can))

const WorkspacePicker = () => {
  const current = session.value
  if (current === null) return null
  if (!isAdminKey()) {
    return html`<span class="workspace">Workspace <code>${current.key.workspace_id}</code></span>`
  }
  if (current.workspaces.length === 0) return null
  return html`<label class="workspace">Workspace
    <select value=${workspaceId.value ?? ""} onChange=${(e: Event) =>
    chooseWorkspace((e.currentTarget as HTMLSelectElement).value)}>
      ${current.workspaces.map((w) => html`<option value=${w.id}>${w.name}</option>`)}
    </select>
  </label>`
}

export const Shell = ({ children }: { readonly children: ComponentChildren }) => {
  const key = session.value?.key
  return html`<div class="shell">
    <a class="skip" href="#main">Skip to content</a>
    <header class="topbar">
      <a class="brand" href=${href("/")}>gateway-control</a>
      <${WorkspacePicker} />
      <span class="who">${key?.type}</span>
      <button type="button" onClick=${() => signOut()}>Sign out</button>
    </header>
    <nav class="sidebar" aria-label="Sections">
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
  </div>`
}
