/**
 * A person's own second factor: whether an authenticator app (TOTP) is set up, and whether their organisation
 * requires one; setting one up (its secret as text, as the otpauth:// link and as a QR code drawn in the page,
 * then a code to confirm it) and turning it off (with a current code). A session that may only enrol a second
 * factor lands here and nowhere else (main.ts); once the factor is confirmed, the console reads the session
 * again, which now acts with the person's roles, and opens their first page.
 */
import { useState } from "preact/hooks"
import { encode } from "uqr"
import {
  confirmTotp,
  disableTotp,
  enrolTotp,
  getSecondFactor,
  type SecondFactorDetails,
  type TotpEnrolment
} from "../api.ts"
import { html } from "../html.ts"
import { navigate } from "../router.ts"
import { enrolmentOnly, reloadPersonSession } from "../session.ts"
import { CopyButton, LoadState, PageHeader, useLoad } from "../ui/common.ts"
import { fixing } from "../ui/formKeys.ts"
import { FormAlert, FormFrame, SubmitButton, TextField, useForm } from "../ui/forms.ts"
import { notify } from "../ui/toast.ts"

const STATES: Readonly<Record<SecondFactorDetails["totp"], string>> = {
  none: "Not set up",
  pending: "Set up but not confirmed: start again to get a new secret",
  active: "On: an authenticator app (TOTP)"
}

/** The otpauth:// link's secret (base32), for an authenticator app that is told it by hand. */
const secretOf = (link: string) => {
  try {
    return new URL(link).searchParams.get("secret") ?? ""
  } catch {
    return ""
  }
}

/** A code as typed: the six digits, spaces dropped; an error found before asking the API, else undefined. */
const codeError = (code: string) =>
  /^\d{6}$/.test(code) ? undefined : "Enter the 6 digits your authenticator app shows now."

const digitsOf = (code: string) => code.replace(/\s+/g, "")

/** The link as a QR code, drawn here (one SVG path of its dark modules): nothing leaves the page to make it. */
const QrCode = ({ text }: { readonly text: string }) => {
  const { data, size } = encode(text, { border: 2, ecc: "M" })
  let path = ""
  data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) path += `M${x} ${y}h1v1h-1z`
    })
  )
  return html`<svg class="qr" role="img" aria-label="QR code of the setup link" viewBox=${`0 0 ${size} ${size}`}
    shape-rendering="crispEdges"><rect width=${size} height=${size} fill="#fff" /><path d=${path} fill="#000" /></svg>`
}

const CodeField = (
  { form, code, setCode }: {
    readonly form: ReturnType<typeof useForm>
    readonly code: string
    readonly setCode: (code: string) => void
  }
) =>
  html`<${TextField} form=${form} name="code" label="Code from the app" value=${code}
    onInput=${fixing(form, "code", setCode)} autocomplete="one-time-code" inputmode="numeric" required=${true}
    hint="6 digits; a new one every 30 seconds." />`

/** Setting up: the secret shown this once, and the code that confirms it. */
const Enrol = (
  { enrolment, onConfirmed }: { readonly enrolment: TotpEnrolment; readonly onConfirmed: () => Promise<void> }
) => {
  const form = useForm()
  const [code, setCode] = useState("")
  const secret = secretOf(enrolment.otpauth_uri)
  const submit = async () => {
    const given = digitsOf(code)
    const error = codeError(given)
    if (error !== undefined) return form.fail("code", error)
    await confirmTotp({ code: given })
    await onConfirmed()
  }
  return html`<section class="detail" aria-labelledby="enrol-title">
    <h2 id="enrol-title">Set up your authenticator app</h2>
    <p>1. In your authenticator app, add an account by scanning this QR code, or by entering the secret (time-based,
      6 digits, 30 seconds). It is shown this once: if you leave this page before confirming, start again.</p>
    <${QrCode} text=${enrolment.otpauth_uri} />
    <dl>
      <dt>Secret</dt>
      <dd><code aria-label="Secret">${secret}</code> <${CopyButton} text=${secret} label="Copy secret" /></dd>
      <dt>Setup link</dt>
      <dd><code aria-label="Setup link">${enrolment.otpauth_uri}</code>
        <${CopyButton} text=${enrolment.otpauth_uri} label="Copy link" /></dd>
    </dl>
    <p>2. Enter the code the app now shows for gateway-control, to confirm that it works.</p>
    <${FormFrame} form=${form} onSubmit=${submit} label="Confirm the second factor">
      <${FormAlert} form=${form} fields=${["code"]} />
      <${CodeField} form=${form} code=${code} setCode=${setCode} />
      <${SubmitButton} form=${form} label="Confirm" />
    <//>
  </section>`
}

/** Turning the factor off, with a current code. */
const Disable = (
  { required, onDisabled }: { readonly required: boolean; readonly onDisabled: () => Promise<void> }
) => {
  const form = useForm()
  const [code, setCode] = useState("")
  const submit = async () => {
    const given = digitsOf(code)
    const error = codeError(given)
    if (error !== undefined) return form.fail("code", error)
    await disableTotp({ code: given })
    await onDisabled()
  }
  return html`<${FormFrame} form=${form} onSubmit=${submit} label="Turn off the second factor">
    <h2>Turn it off</h2>
    <p>${
    required
      ? "Your organisation requires a second factor: once this one is off, you can use nothing but this page " +
        "until you set up a new one (to move to another app or phone, turn it off and set it up again)."
      : "Signing in will then need your password only."
  }</p>
    <${FormAlert} form=${form} fields=${["code"]} />
    <${CodeField} form=${form} code=${code} setCode=${setCode} />
    <button type="submit" class="danger" disabled=${form.busy.value}>${
    form.busy.value ? "Working…" : "Turn off second factor"
  }</button>
  <//>`
}

const Start = ({ again, onEnrolled }: { readonly again: boolean; readonly onEnrolled: (e: TotpEnrolment) => void }) => {
  const form = useForm()
  return html`<${FormFrame} form=${form} onSubmit=${async () => onEnrolled(await enrolTotp())}
    label="Set up a second factor">
    <${FormAlert} form=${form} fields=${[]} />
    <${SubmitButton} form=${form} label=${again ? "Start again" : "Set up an authenticator app"} />
  <//>`
}

export const SecondFactorPage = () => {
  const loaded = useLoad(getSecondFactor, [])
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null)
  const [done, setDone] = useState<string | null>(null)
  const restricted = enrolmentOnly.value
  const confirmed = async () => {
    const wasRestricted = enrolmentOnly.value
    const message = "Your second factor is on: signing in with your password now also asks for a code from the app."
    setEnrolment(null)
    setDone(message)
    // The session may now do what the person's roles allow: the console reads it again.
    await reloadPersonSession()
    if (wasRestricted) {
      // The person's first page opens; the message goes with them.
      navigate("/", { replace: true })
      notify(message)
    } else loaded.reload()
  }
  const disabled = async () => {
    setDone("Your second factor is off.")
    await reloadPersonSession()
    loaded.reload()
  }
  return html`<${PageHeader} title="Second factor" />
    ${
    restricted
      ? html`<p class="alert" role="status">Your organisation requires a second factor for password sign-in. Set up
        an authenticator app to continue: until then, this is the only page you can use.</p>`
      : null
  }
    ${done === null ? null : html`<p class="notice" role="status">${done}</p>`}
    <${LoadState} loaded=${loaded}>${(status: SecondFactorDetails) =>
    html`<dl class="facts">
        <dt>Authenticator app</dt><dd>${STATES[status.totp]}</dd>
        <dt>Required by your organisation</dt><dd>${status.required ? "Yes" : "No"}</dd>
      </dl>
      ${
      enrolment !== null
        ? html`<${Enrol} enrolment=${enrolment} onConfirmed=${confirmed} />`
        : status.totp === "active"
        ? html`<${Disable} required=${status.required} onDisabled=${disabled} />`
        : html`<${Start} again=${status.totp === "pending"} onEnrolled=${(e: TotpEnrolment) => {
          setDone(null)
          setEnrolment(e)
        }} />`
    }`}<//>`
}
