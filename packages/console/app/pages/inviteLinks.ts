/**
 * The page an invitation link (and the owner's first-start link) opens: `/console/invite#<token>`. The token
 * stays in the fragment, which the browser never sends to a server; the page shows what the link invites to
 * and accepts it by setting a password, or by single sign-on with one of the enabled identity providers.
 */
import { useState } from "preact/hooks"
import { signInOptions } from "../api.ts"
import { previewInvite } from "../api/inviteLinks.ts"
import { html } from "../html.ts"
import { navigate } from "../router.ts"
import { acceptInviteWithPassword } from "../session.ts"
import { useLoad } from "../ui/common.ts"
import { enterMovesOn, fixing } from "../ui/formKeys.ts"
import { FormAlert, FormFrame, SubmitButton, TextField, useForm } from "../ui/forms.ts"
import { notify } from "../ui/toast.ts"

const tokenOfLink = () => decodeURIComponent(location.hash.replace(/^#/, ""))

const PasswordForm = ({ token, organisation }: { readonly token: string; readonly organisation: string }) => {
  const form = useForm()
  const [name, setName] = useState("")
  const [password, setPassword] = useState("")
  const submit = async () => {
    if (password.length < 12) return form.fail("password", "Choose a password of 12 characters or more.")
    await acceptInviteWithPassword(token, password, name.trim())
    navigate("/", { replace: true })
    notify(`Welcome to ${organisation}: your password is set and you are signed in.`)
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="Accept with a password" enterSubmits=${true}>
    <${FormAlert} form=${form} fields=${["name", "password", "token"]} />
    <div onKeyDown=${enterMovesOn}>
      <${TextField} form=${form} name="name" label="Your name (optional)" value=${name}
        onInput=${fixing(form, "name", setName)} autocomplete="name" />
      <${TextField} form=${form} name="password" label="Choose a password" type="password" value=${password}
        onInput=${fixing(form, "password", setPassword)} autocomplete="new-password" required=${true}
        hint="12 characters or more." />
    </div>
    <${SubmitButton} form=${form} label="Accept and sign in" />
  <//>`
}

export const InviteLinkPage = () => {
  const token = tokenOfLink()
  const invite = useLoad(() => previewInvite(token), [token])
  const providers = useLoad(signInOptions, [])
  if (token === "") {
    return html`<main id="main" class="sign-in"><h1>Invitation</h1>
      <p class="alert" role="alert">This link holds no invitation: open the whole link you were given.</p></main>`
  }
  if (invite.loading && invite.data === undefined) return html`<main id="main" class="sign-in"><p>Loading…</p></main>`
  if (invite.data === undefined) {
    return html`<main id="main" class="sign-in"><h1>Invitation</h1>
      <p class="alert" role="alert">${invite.error ?? "This invitation link cannot be used."}</p>
      <p><a href="/console/">Go to the sign-in page</a></p></main>`
  }
  const data = invite.data
  return html`<main id="main" class="sign-in">
    <h1>Join ${data.organisation.name}</h1>
    <p>This invitation is for <strong>${data.email}</strong>, as organisation ${data.role}${
    data.workspaces.length === 0 ? "" : html`, with ${data.workspaces.map((w) => `${w.name} (${w.role})`).join(", ")}`
  }. It expires ${new Date(data.expires_at).toLocaleString()}.</p>
    ${
    (providers.data ?? []).length === 0 ? null : html`<section aria-labelledby="sso-title" class="sign-in-providers">
      <h2 id="sso-title" class="visually-hidden">Single sign-on</h2>
      <ul>${
      (providers.data ?? []).map((p) =>
        html`<li><a class="button primary" href=${`${p.start_url}?invite=${
          encodeURIComponent(token)
        }`}>Sign in with ${p.name}</a></li>`
      )
    }</ul>
      <p class="muted">or choose a password:</p>
    </section>`
  }
    <${PasswordForm} token=${token} organisation=${data.organisation.name} />
  </main>`
}
