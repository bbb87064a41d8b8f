/**
 * A new API key: its scopes chosen from the signed-in key's own (a key can never give more than it has),
 * grouped and described, or by a preset, and its rate limits, if any.
 */
import { useState } from "preact/hooks"
import { createApiKey } from "../api.ts"
import { html } from "../html.ts"
import { isAdminKey, may, workspaceId } from "../session.ts"
import { rateLimitDraft, RateLimitsField, readRateLimits } from "../ui/apiKeyParts.ts"
import { useLoad } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"
import { PersonPicker, workspacePeople } from "../ui/people.ts"
import { ScopePicker } from "../ui/scopes.ts"
import { notify } from "../ui/toast.ts"

const KINDS = [
  ["organisation/service", "Admin key (organisation)", "api_keys.create.organisation_service"],
  ["workspace/service", "Workspace service key", "api_keys.create.workspace_service"],
  ["workspace/user", "Workspace user key", "api_keys.create.workspace_user"]
] as const

const FIELDS = ["name", "type", "workspace_id", "user_id", "description", "expires_at", "scopes", "rate_limits"]

export const CreateKeyForm = ({ onCreated }: { readonly onCreated: (secret: string) => void }) => {
  const form = useForm()
  const kinds = KINDS.filter(([, , action]) => may(action))
  const [kind, setKind] = useState<(typeof KINDS)[number][0]>(
    kinds.find(([k]) => k !== "organisation/service")?.[0] ?? kinds[0]?.[0] ?? "workspace/service"
  )
  const [name, setName] = useState("")
  const [userId, setUserId] = useState("")
  // The key's user is one of the workspace's members, chosen by name and email.
  const memberWorkspace = workspaceId.value
  const members = useLoad(
    () =>
      kind === "workspace/user" && memberWorkspace !== null && may("members.list")
        ? workspacePeople(memberWorkspace)
        : Promise.resolve([]),
    [kind, memberWorkspace]
  )
  const [description, setDescription] = useState("")
  const [expires, setExpires] = useState("")
  const [scopes, setScopes] = useState<Set<string>>(new Set())
  const [limits, setLimits] = useState(rateLimitDraft())
  if (kinds.length === 0) return null

  const submit = async () => {
    const rateLimits = readRateLimits(limits)
    if (typeof rateLimits === "string") return form.fail("rate_limits", rateLimits)
    const workspaceKey = kind !== "organisation/service"
    const created = await createApiKey(kind, {
      name,
      scopes: [...scopes],
      ...(workspaceKey && isAdminKey() && workspaceId.value !== null ? { workspace_id: workspaceId.value } : {}),
      ...(kind === "workspace/user" && userId !== "" ? { user_id: userId } : {}),
      ...(description.trim() === "" ? {} : { description: description.trim() }),
      ...(expires === "" ? {} : { expires_at: new Date(expires).toISOString() }),
      ...(rateLimits.length === 0 ? {} : { rate_limits: rateLimits })
    })
    notify(`Key ${name} created.`)
    setName("")
    setScopes(new Set())
    setLimits(rateLimitDraft())
    onCreated(created.key)
  }

  return html`<${FormFrame} form=${form} onSubmit=${submit} label="New API key">
    <h2>New API key</h2>
    <${FormAlert} form=${form} fields=${FIELDS} />
    <div class="grid">
      <${TextField} form=${form} name="name" label="Name" value=${name} onInput=${setName} required=${true} />
      <${SelectField} form=${form} name="type" label="Kind" value=${kind} onChange=${setKind}
        options=${kinds.map(([k, label]) => [k, label] as const)} />
      ${
    kind === "workspace/user"
      ? html`<${PersonPicker} form=${form} name="user_id" label="Acts as" people=${members.data ?? []}
            value=${userId} onChange=${setUserId} none="Yourself"
            hint="The member of the workspace the key acts as." />`
      : null
  }
      <${TextField} form=${form} name="description" label="Description (optional)" value=${description} onInput=${setDescription} />
      <${TextField} form=${form} name="expires_at" label="Expires (optional)" type="datetime-local" value=${expires}
        onInput=${setExpires} />
    </div>
    ${
    kind !== "organisation/service" && isAdminKey()
      ? html`<p class="muted">For the workspace chosen at the top of the page.</p>`
      : null
  }
    <${ScopePicker} form=${form} chosen=${scopes} onChange=${setScopes} />
    <${RateLimitsField} form=${form} value=${limits} onChange=${setLimits} />
    <${SubmitButton} form=${form} label="Create key" />
  <//>`
}
