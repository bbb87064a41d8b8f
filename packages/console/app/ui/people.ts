/**
 * People shown and picked by name and email, never by id: a picker that searches a list of people (the
 * organisation's users, or a workspace's members) as one types, and the way a person is written out.
 */
import { useId, useState } from "preact/hooks"
import { listMembers, listUsers, type Member, type User } from "../api.ts"
import { html } from "../html.ts"
import { may } from "../session.ts"
import { useLoad } from "./common.ts"
import { errorFor, type Form } from "./forms.ts"

/** A person as the pickers and tables show them. */
export interface PersonChoice {
  readonly id: string
  readonly email: string
  readonly name: string | null
}

export const fromUser = (u: User): PersonChoice => ({ id: u.id, email: u.email, name: u.name })

export const fromMember = (m: Member): PersonChoice => {
  const name = [m.first_name, m.last_name].filter((part) => part !== undefined && part !== "").join(" ")
  return { id: m.user_id, email: m.email, name: name === "" ? null : name }
}

/** "Ada Lovelace <ada@example.com>", or the email alone. */
export const personLabel = (p: Pick<PersonChoice, "email" | "name">) =>
  p.name === null ? p.email : `${p.name} <${p.email}>`

/** The organisation's users (admins may list them), as choices. */
export const organisationPeople = async () => (await listUsers({ page_size: 1000, current_page: 0 })).data.map(fromUser)

/** A workspace's members, as choices. */
export const workspacePeople = async (workspaceId: string) =>
  (await listMembers(workspaceId, { page_size: 1000, current_page: 0 })).data.map(fromMember)

/**
 * A search box over `people` (by name or email, in any case) and the list of matches to choose from; the value
 * is the chosen person's id, which the form sends under `name`.
 */
export const PersonPicker = (
  props: {
    readonly form: Form
    /** The API's name of the value (`user_id`), which its errors use as `param`. */
    readonly name: string
    readonly label: string
    readonly people: ReadonlyArray<PersonChoice>
    readonly value: string
    readonly onChange: (id: string) => void
    /** The first choice, for no person (e.g. "Yourself"); none unless given. */
    readonly none?: string
    readonly hint?: string
  }
) => {
  const id = useId()
  const [search, setSearch] = useState("")
  const needle = search.trim().toLowerCase()
  const matches = props.people.filter((p) =>
    needle === "" || p.email.toLowerCase().includes(needle) || (p.name ?? "").toLowerCase().includes(needle)
  )
  const chosen = props.people.find((p) => p.id === props.value)
  // The chosen person stays listed whatever the search, so the list never silently changes the value.
  const shown = chosen === undefined || matches.includes(chosen) ? matches : [chosen, ...matches]
  const error = errorFor(props.form, props.name)
  const describedBy = [
    props.hint === undefined ? undefined : `${id}-hint`,
    error === undefined ? undefined : `${id}-error`
  ].filter((x) => x !== undefined).join(" ")
  return html`<fieldset class=${`field person-picker${error === undefined ? "" : " invalid"}`}>
    <legend>${props.label}</legend>
    <label for=${`${id}-search`}>Find by name or email</label>
    <input id=${`${id}-search`} type="search" value=${search} autocomplete="off" spellcheck=${false}
      onInput=${(e: Event) => setSearch((e.currentTarget as HTMLInputElement).value)} />
    <label for=${id} class="visually-hidden">${props.label}</label>
    <select id=${id} name=${props.name} value=${props.value}
      aria-describedby=${describedBy === "" ? undefined : describedBy}
      aria-invalid=${error === undefined ? undefined : "true"}
      onChange=${(e: Event) => props.onChange((e.currentTarget as HTMLSelectElement).value)}>
      ${props.none === undefined ? null : html`<option value="">${props.none}</option>`}
      ${props.none === undefined && chosen === undefined ? html`<option value="">Choose a person…</option>` : null}
      ${shown.map((p) => html`<option value=${p.id}>${personLabel(p)}</option>`)}
    </select>
    ${
    matches.length === 0 && needle !== ""
      ? html`<p class="hint" role="status">Nobody matches “${search.trim()}”.</p>`
      : null
  }
    ${props.hint === undefined ? null : html`<p class="hint" id=${`${id}-hint`}>${props.hint}</p>`}
    ${error === undefined ? null : html`<p class="field-error" id=${`${id}-error`} role="alert">${error}</p>`}
  </fieldset>`
}

/**
 * The people the caller may see, by id: the organisation's users for an admin, else the members of
 * `workspaceId`; none when the policy lets the caller list neither.
 */
export const usePeople = (workspaceId: string | null) =>
  useLoad(async (): Promise<ReadonlyMap<string, PersonChoice>> => {
    const people = may("users.list")
      ? await organisationPeople()
      : workspaceId !== null && may("members.list")
      ? await workspacePeople(workspaceId)
      : []
    return new Map(people.map((p) => [p.id, p]))
  }, [workspaceId])

/** A person by id, as "name <email>" when the caller can see them, else their id. */
export const PersonName = (
  props: { readonly id: string | null; readonly people: ReadonlyMap<string, PersonChoice> | undefined }
) => {
  if (props.id === null) return html`—`
  const found = props.people?.get(props.id)
  return found === undefined ? html`<code>${props.id}</code>` : html`${personLabel(found)}`
}
