/** Workspaces, the organisation's users, and the members of the chosen workspace, people by name and email. */
import { useState } from "preact/hooks"
import {
  addMember,
  createUser,
  createWorkspace,
  listMembers,
  listUsers,
  listWorkspaces,
  type Member,
  removeMember,
  type User,
  type Workspace
} from "../api.ts"
import { html } from "../html.ts"
import { chooseWorkspace, may, refreshWorkspaces, session, workspaceId } from "../session.ts"
import { ConfirmButton, PagedTable, PageHeader, useLoad, usePagedList, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"
import { fromMember, organisationPeople, personLabel, PersonPicker } from "../ui/people.ts"

const Workspaces = () => {
  const list = usePagedList(listWorkspaces, [])
  const form = useForm()
  const [name, setName] = useState("")
  const submit = async () => {
    const created = await createWorkspace({ name })
    setName("")
    list.loaded.reload()
    await refreshWorkspaces()
    await chooseWorkspace(created.id)
  }
  return html`<section aria-labelledby="ws-title">
    <h2 id="ws-title">Workspaces</h2>
    <${PagedTable} list=${list} caption="Workspaces" head=${["Name", "Slug", "Created", ""]} row=${(w: Workspace) =>
    html`<tr><td>${w.name}</td><td><code>${w.slug}</code></td><td>${when(w.created_at)}</td>
        <td>${
      w.id === workspaceId.value
        ? html`<span class="badge">chosen</span>`
        : html`<button type="button" onClick=${() => void chooseWorkspace(w.id)}>Work here</button>`
    }</td></tr>`} />
    ${
    may("workspaces.create")
      ? html`<${FormFrame} form=${form} onSubmit=${submit} label="New workspace">
        <${FormAlert} form=${form} fields=${["name"]} />
        <${TextField} form=${form} name="name" label="Workspace name" value=${name} onInput=${setName} />
        <${SubmitButton} form=${form} label="Create workspace" />
      <//>`
      : null
  }
  </section>`
}

const Users = ({ onCreated }: { readonly onCreated: () => void }) => {
  const list = usePagedList(listUsers, [])
  const form = useForm()
  const [email, setEmail] = useState("")
  const [name, setName] = useState("")
  const [role, setRole] = useState<User["role"]>("member")
  const submit = async () => {
    await createUser({ email, role, ...(name.trim() === "" ? {} : { name: name.trim() }) })
    setEmail("")
    setName("")
    list.loaded.reload()
    onCreated()
  }
  return html`<section aria-labelledby="users-title">
    <h2 id="users-title">Users of the organisation</h2>
    <${PagedTable} list=${list} caption="Users" head=${["Name", "Email", "Role"]} row=${(u: User) =>
    html`<tr><td>${u.name ?? "—"}</td><td>${u.email}</td><td>${u.role}</td></tr>`} />
    ${
    may("users.create")
      ? html`<${FormFrame} form=${form} onSubmit=${submit} label="New user">
        <${FormAlert} form=${form} fields=${["email", "name", "role"]} />
        <div class="grid">
          <${TextField} form=${form} name="email" label="Email" type="email" value=${email} onInput=${setEmail} />
          <${TextField} form=${form} name="name" label="Name (optional)" value=${name} onInput=${setName} />
          <${SelectField} form=${form} name="role" label="Organisation role" value=${role} onChange=${setRole}
            options=${[["member", "Member"], ["admin", "Admin"], ["owner", "Owner"]]} />
        </div>
        <${SubmitButton} form=${form} label="Create user" />
      <//>`
      : null
  }
  </section>`
}

/** `users`: how many users were made on this page, so a person just made can be picked at once. */
const Members = ({ workspace, users }: { readonly workspace: string; readonly users: number }) => {
  const list = usePagedList((paging) => listMembers(workspace, paging), [workspace])
  const people = useLoad(() => (may("users.list") ? organisationPeople() : Promise.resolve([])), [users])
  const form = useForm()
  const [userId, setUserId] = useState("")
  const [role, setRole] = useState<Member["role"]>("member")
  const name = session.value?.workspaces.find((w) => w.id === workspace)?.name ?? workspace
  const submit = async () => {
    if (userId === "") return form.fail("user_id", "Choose the person to add.")
    await addMember(workspace, { user_id: userId, role })
    setUserId("")
    list.loaded.reload()
  }
  return html`<section aria-labelledby="members-title">
    <h2 id="members-title">Members of ${name}</h2>
    <${PagedTable} list=${list} caption="Members" head=${["Person", "Role", ""]} row=${(m: Member) => {
    const person = fromMember(m)
    return html`<tr><td>${
      person.name === null ? null : html`${person.name}<br />`
    }${person.email}</td><td>${m.role}</td>
        <td>${
      may("members.delete")
        ? html`<${ConfirmButton} label="Remove" question=${`Remove ${
          personLabel(person)
        }? Their workspace-user keys stop working.`}
              onConfirm=${() => removeMember(workspace, m.user_id).then(list.loaded.reload)} />`
        : null
    }</td></tr>`
  }} />
    ${
    may("members.create")
      ? html`<${FormFrame} form=${form} onSubmit=${submit} label="Add a member">
        <${FormAlert} form=${form} fields=${["user_id", "role"]} />
        <div class="grid">
          <${PersonPicker} form=${form} name="user_id" label="Person" people=${people.data ?? []} value=${userId}
            onChange=${setUserId} />
          <${SelectField} form=${form} name="role" label="Workspace role" value=${role} onChange=${setRole}
            options=${[["member", "Member"], ["manager", "Manager"]]} />
        </div>
        <${SubmitButton} form=${form} label="Add member" />
      <//>`
      : null
  }
  </section>`
}

export const WorkspacesPage = () => {
  const workspace = workspaceId.value
  const [users, setUsers] = useState(0)
  return html`<${PageHeader} title="Workspaces & members" />
    ${may("workspaces.list") ? html`<${Workspaces} />` : null}
    ${may("members.list") && workspace !== null ? html`<${Members} workspace=${workspace} users=${users} />` : null}
    ${may("users.list") ? html`<${Users} onCreated=${() => setUsers((n) => n + 1)} />` : null}`
}
