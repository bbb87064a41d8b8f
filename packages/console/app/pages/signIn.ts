/**
 * Signing in: with an identity provider ("Sign in with …", one per enabled provider), or with an email and
 * password (a local account), which is the form shown first. An API key stays possible, for automation, as a
 * secondary choice: it is kept in this browser tab only.
 */
import { useState } from "preact/hooks"
import { ApiError, signInOptions } from "../api.ts"
import { html } from "../html.ts"
import { signedOutReason, signIn, signInWithCode, signInWithPassword } from "../session.ts"
import { useLoad } from "../ui/common.ts"
import { enterMovesOn, fixing } from "../ui/formKeys.ts"
import { FormAlert, FormFrame, SubmitButton, TextField, useForm } from "../ui/forms.ts"

const Providers = () => {
  const providers = useLoad(signInOptions, [])
  const list = providers.data ?? []
  if (list.length === 0) return null
  return html`<section aria-labelledby="sso-title" class="sign-in-providers">
    <h2 id="sso-title" class="visually-hidden">Single sign-on</h2>
    <ul>
      ${list.map((p) => html`<li><a class="button primary" href=${p.start_url}>Sign in with ${p.name}</a></li>`)}
    </ul>
    <p class="muted">or with your email and password:</p>
  </section>`
}

/**
 * The second step of a password sign-in, for a person with a second factor. Its challenge is used once: a code
 * refused (401) sends the person back to the password form, saying why, to start again.
 */
const CodeForm = (
  { challenge, onRestart }: { readonly challenge: string; readonly onRestart: (why: string) => void }
) => {
  const form = useForm()
  const [code, setCode] = useState("")
  const submit = async () => {
    const given = code.replace(/\s+/g, "")
    if (!/^\d{6}$/.test(given)) return form.fail("code", "Enter the 6 digits your authenticator app shows.")
    try {
      await signInWithCode(challenge, given)
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return onRestart(error.message)
      throw error
    }
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="Second factor">
    <p>Enter the six-digit code your authenticator app shows for gateway-control.</p>
    <${FormAlert} form=${form} fields=${["code", "challenge"]} />
    <${TextField} form=${form} name="code" label="Code" value=${code} onInput=${fixing(form, "code", setCode)}
      autocomplete="one-time-code" inputmode="numeric" required=${true} />
    <${SubmitButton} form=${form} label="Verify" />
  <//>`
}

const PasswordForm = () => {
  const form = useForm()
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const [challenge, setChallenge] = useState<string | null>(null)
  const submit = async () => {
    if (email.trim() === "") return form.fail("email", "Enter your email.")
    if (password === "") return form.fail("password", "Enter your password.")
    const next = await signInWithPassword(email.trim(), password)
    if (next !== null) setChallenge(next.challenge)
  }
  const restart = (why: string) => {
    setChallenge(null)
    form.fail("", why)
  }
  if (challenge !== null) return html`<${CodeForm} challenge=${challenge} onRestart=${restart} />`
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="Password sign-in" enterSubmits=${true}>
    <${FormAlert} form=${form} fields=${["email", "password"]} />
    <div onKeyDown=${enterMovesOn}>
      <${TextField} form=${form} name="email" label="Email" type="email" value=${email}
        onInput=${fixing(form, "email", setEmail)} autocomplete="username" required=${true} />
      <${TextField} form=${form} name="password" label="Password" type="password" value=${password}
        onInput=${fixing(form, "password", setPassword)} autocomplete="current-password" required=${true} />
    </div>
    <${SubmitButton} form=${form} label="Sign in" />
  <//>`
}

const ApiKeyForm = () => {
  const form = useForm()
  const [key, setKey] = useState("")
  const submit = async () => {
    if (key.trim() === "") return form.fail("api_key", "Paste an API key.")
    // The API's refusal (401) names no parameter; it is about the key all the same.
    await signIn(key.trim()).catch((error: Error) => form.fail("api_key", error.message))
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="Key sign-in">
    <p>For automation and first setup. The key is kept in this browser tab only, and forgotten when you sign out
      or close the tab.</p>
    <${FormAlert} form=${form} fields=${["api_key"]} />
    <${TextField} form=${form} name="api_key" label="API key" type="password" value=${key}
      onInput=${fixing(form, "api_key", setKey)}
      placeholder="gwc_…" required=${true} />
    <${SubmitButton} form=${form} label="Sign in with key" />
  <//>`
}

/** The tab remembers that its person chose a key, so that signing out (or a reload) offers the key again. */
const METHOD_ITEM = "gateway-control.sign-in-method"

export const SignInPage = () => {
  const [withKey, choose] = useState(sessionStorage.getItem(METHOD_ITEM) === "key")
  const setWithKey = (key: boolean) => {
    if (key) sessionStorage.setItem(METHOD_ITEM, "key")
    else sessionStorage.removeItem(METHOD_ITEM)
    choose(key)
  }
  return html`<main id="main" class="sign-in">
    <h1>gateway-control</h1>
    ${signedOutReason.value === null ? null : html`<p class="alert" role="status">${signedOutReason.value}</p>`}
    ${
    withKey
      ? html`<${ApiKeyForm} />
        <p><button type="button" class="link" onClick=${() =>
        setWithKey(false)}>Use email and password instead</button></p>`
      : html`<${Providers} />
        <${PasswordForm} />
        <p><button type="button" class="link" onClick=${() => setWithKey(true)}>Use an API key instead</button></p>`
  }
  </main>`
}
