/**
 * A person's own sessions: where and since when they are signed in, the current one marked; ending one, or
 * all of them (signing out everywhere, this browser included).
 */
import { listSessions, revokeSession, type SessionDetails, signOutEverywhere } from "../api.ts"
import { html } from "../html.ts"
import { session, signedOut } from "../session.ts"
import { ConfirmButton, LoadState, PageHeader, Table, useLoad, when } from "../ui/common.ts"

const how = (s: SessionDetails) =>
  s.method === "oidc" ? `single sign-on (${s.identity_provider ?? "provider"})` : s.method

export const SessionsPage = () => {
  const loaded = useLoad(listSessions, [])
  const current = session.value?.me.session_id
  const end = async (id: string) => {
    await revokeSession(id)
    if (id === current) signedOut("You ended this session.")
    else loaded.reload()
  }
  return html`<${PageHeader} title="My sessions">
      <${ConfirmButton} label="Sign out everywhere"
        question="End every session of yours, this one included?"
        onConfirm=${async () => {
    await signOutEverywhere()
    signedOut("You signed out everywhere.")
  }} />
    <//>
    <${LoadState} loaded=${loaded}>${(list: { readonly data: ReadonlyArray<SessionDetails> }) =>
    html`<${Table} caption="Sessions" empty=${list.data.length === 0}
        head=${["Signed in", "How", "Browser", "Address", "Last seen", "Expires", ""]}
        rows=${
      list.data.map((s) =>
        html`<tr>
          <td>${when(s.created_at)} ${s.id === current ? html`<span class="badge">this session</span>` : null}</td>
          <td>${how(s)}</td>
          <td>${s.user_agent ?? "—"}</td>
          <td>${s.client_ip ?? "—"}</td>
          <td>${when(s.last_seen_at)}</td>
          <td>${when(s.expires_at)}</td>
          <td><${ConfirmButton} label=${s.id === current ? "Sign out" : "End"}
            question=${s.id === current ? "End this session and sign out?" : "End this session?"}
            onConfirm=${() => end(s.id)} /></td>
        </tr>`
      )
    } />`}<//>`
}
