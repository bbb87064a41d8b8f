/** The console's entry: restores the tab's session, then shows the page the URL names. */
import { render } from "preact"
import { html } from "./html.ts"
import { ApiKeysPage } from "./pages/apiKeys.ts"
import { AuditLogsPage } from "./pages/auditLogs.ts"
import { CollectionsPage } from "./pages/collections.ts"
import { IdentityProvidersPage } from "./pages/identityProviders.ts"
import { IntegrationsPage } from "./pages/integrations.ts"
import { InviteLinkPage } from "./pages/inviteLinks.ts"
import { McpRegistryPage } from "./pages/mcpRegistry.ts"
import { NewPartialPage, PartialsPage } from "./pages/partials.ts"
import { PartialPage } from "./pages/partialVersions.ts"
import { PlaygroundPage } from "./pages/playground.ts"
import { PromptEditorPage } from "./pages/promptEditor.ts"
import { PromptsPage } from "./pages/prompts.ts"
import { PromptPage } from "./pages/promptVersions.ts"
import { ProvidersPage } from "./pages/providers.ts"
import { ScimTokensPage } from "./pages/scimTokens.ts"
import { SecondFactorPage } from "./pages/secondFactor.ts"
import { SessionsPage } from "./pages/sessions.ts"
import { SignInPage } from "./pages/signIn.ts"
import { TrustPoliciesPage } from "./pages/trustPolicies.ts"
import { WorkspacesPage } from "./pages/workspaces.ts"
import { match, navigate, route } from "./router.ts"
import { enrolmentOnly, restoreSession, session } from "./session.ts"
import { allowedSections, SECOND_FACTOR_SECTION, Shell } from "./ui/layout.ts"

type Page = (params: Record<string, string>) => unknown

const PAGES: ReadonlyArray<readonly [pattern: string, page: Page]> = [
  ["/prompts", () => html`<${PromptsPage} />`],
  ["/prompts/new", () => html`<${PromptEditorPage} />`],
  ["/prompts/:id", ({ id }) => html`<${PromptPage} id=${id} />`],
  ["/prompts/:id/edit", ({ id }) => html`<${PromptEditorPage} id=${id} />`],
  ["/prompts/:id/playground", ({ id }) => html`<${PlaygroundPage} id=${id} />`],
  ["/playground", () => html`<${PlaygroundPage} />`],
  ["/partials", () => html`<${PartialsPage} />`],
  ["/partials/new", () => html`<${NewPartialPage} />`],
  ["/partials/:id", ({ id }) => html`<${PartialPage} id=${id} />`],
  ["/collections", () => html`<${CollectionsPage} />`],
  ["/mcp", () => html`<${McpRegistryPage} />`],
  ["/api-keys", () => html`<${ApiKeysPage} />`],
  ["/integrations", () => html`<${IntegrationsPage} />`],
  ["/providers", () => html`<${ProvidersPage} />`],
  ["/audit", () => html`<${AuditLogsPage} />`],
  ["/trust-policies", () => html`<${TrustPoliciesPage} />`],
  ["/scim", () => html`<${ScimTokensPage} />`],
  ["/identity-providers", () => html`<${IdentityProvidersPage} />`],
  ["/workspaces", () => html`<${WorkspacesPage} />`],
  ["/sessions", () => html`<${SessionsPage} />`],
  [SECOND_FACTOR_SECTION.path, () => html`<${SecondFactorPage} />`]
]

const NotFound = () => html`<h1>Not found</h1><p>No page at this address.</p>`

const App = () => {
  // An invitation's link is for someone not signed in yet (or signing in as someone new).
  if (route.value === "/invite") return html`<${InviteLinkPage} />`
  if (session.value === null) return html`<${SignInPage} />`
  const path = route.value
  // A session that may only enrol a second factor lands on that page, wherever it was going.
  if (enrolmentOnly.value) {
    if (path !== SECOND_FACTOR_SECTION.path) {
      queueMicrotask(() => navigate(SECOND_FACTOR_SECTION.path, { replace: true }))
    }
    return html`<${Shell} key=${SECOND_FACTOR_SECTION.path}><${SecondFactorPage} /><//>`
  }
  if (path === "/" || path === "") {
    const first = allowedSections()[0]
    if (first !== undefined) queueMicrotask(() => navigate(first.path, { replace: true }))
    return html`<${Shell}><p class="muted">${first === undefined ? "You may not use any page." : ""}</p><//>`
  }
  for (const [pattern, page] of PAGES) {
    const params = match(pattern, path)
    if (params !== undefined) return html`<${Shell} key=${pattern}>${page(params)}<//>`
  }
  return html`<${Shell}><${NotFound} /><//>`
}

const root = document.getElementById("root")!
await restoreSession()
render(html`<${App} />`, root)
