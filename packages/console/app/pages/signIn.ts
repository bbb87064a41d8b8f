/** Sign in with an API key. The key is checked against the API and kept for this tab only. */
import { useState } from "preact/hooks"
import { html } from "../html.ts"
import { signedOutReason, signIn } from "../session.ts"
import { FormAlert, FormFrame, SubmitButton, TextField, useForm } from "../ui/forms.ts"

export const SignInPage = () => {
  const form = useForm()
  const [key, setKey] = useState("")
  const submit = async () => {
    if (key.trim() === "") return form.fail("api_key", "Paste an API key.")
    // The API's refusal (401) names no parameter; it is about the key all the same.
    await signIn(key.trim()).catch((error: Error) => form.fail("api_key", error.message))
  }
  return html`<main id="main" class="sign-in">
    <h1>gateway-control</h1>
    <p>Sign in with an API key. It is kept in this browser tab only, and forgotten when you sign out or close the tab.</p>
    ${signedOutReason.value === null ? null : html`<p class="alert" role="status">${signedOutReason.value}</p>`}
    <${FormFrame} form=${form} onSubmit=${submit} label="Sign in">
      <${FormAlert} form=${form} fields=${["api_key"]} />
      <${TextField} form=${form} name="api_key" label="API key" type="password" value=${key} onInput=${setKey}
        placeholder="gwc_…" required=${true} />
      <${SubmitButton} form=${form} label="Sign in" />
    <//>
  </main>`
}
