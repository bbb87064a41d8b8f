/** Workspaces, the organisation's users, and the members of the chosen workspace: for admin keys. */
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
import { can, chooseWorkspace, refreshWorkspaces, session, workspaceId } from "../session.ts"
import { ConfirmButton, PagedTable, PageHeader, usePagedList, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"

const Workspaces = () => {
  const list = usePagedList(listWorkspaces, [])
  const form = useForm()
  const [name, setName] = useState("")
  const submit = async () => {
    const created = await createWorkspace({ name })
    setName("")
    list.loaded.reload()
    await refreshWorkspaces()
    chooseWorkspace(created.id)
  }
  return html`<section aria-labelledby="ws-title">
    <h2 id="ws-title">Workspaces</h2>
    <${PagedTable} list=${list} caption="Workspaces" head=${["Name", "Slug", "Created", ""]} row=${(w: Workspace) =>
    html`<tr><td>${w.name}</td><td><code>${w.slug}</code></td><td>${when(w.created_at)}</td>
        <td>${
      w.id === workspaceId.value
        ? html`<span class="badge">chosen</span>`
        : html`<button type="button" onClick=${() => chooseWorkspace(w.id)}>Work here</button>`
    }</td></tr>`} />
    ${
    can("workspaces.create")
      ? html`<${FormFrame} form=${form} onSubmit=${submit} label="New workspace">
        <${FormAlert} form=${form} fields=${["name"]} />
        <${TextField} form=${form} name="name" label="Workspace name" value=${name} onInput=${setName} />
        <${SubmitButton} form=${form} label="Create workspace" />
      <//>`
      : null
  }
  </section>`
}

const Users = () => {
  const list = usePagedList(listUsers, [])
  const form = useForm()
  const [email, setEmail] = useState("")
  const [role, setRole] = useState<User["role"]>("member")
  const submit = async () => {
    await createUser({ email, role })
    setEmail("")
    list.loaded.reload()
  }
  return html`<section aria-labelledby="users-title">
    <h2 id="users-title">Users of the organisation</h2>
    <${PagedTable} list=${list} caption="Users" head=${["Email", "Name", "Role", "Id"]} row=${(u: User) =>
    html`<tr><td>${u.email}</td><td>${u.name ?? "—"}</td><td>${u.role}</td><td><code>${u.id}</code></td></tr>`} />
    ${
    can("organisation_users.create")
      ? html`<${FormFrame} form=${form} onSubmit=${submit} label="New user">
        <${FormAlert} form=${form} fields=${["email", "role"]} />
        <div class="grid">
          <${TextField} form=${form} name="email" label="Email" type="email" value=${email} onInput=${setEmail} />
          <${SelectField} form=${form} name="role" label="Organisation role" value=${role} onChange=${setRole}
            options=${[["member", "Member"], ["admin", "Admin"], ["owner", "Owner"]]} />
        </div>
        <${SubmitButton} form=${form} label="Create user" />
      <//>`
      : null
  }
  </section>`
}

const Members = ({ workspace }: { readonly workspace: string }) => {
  const list = usePagedList((paging) => listMembers(workspace, paging), [workspace])
  const form = useForm()
  const [userId, setUserId] = useState("")
  const [role, setRole] = useState<Member["role"]>("member")
  const name = session.value?.workspaces.find((w) => w.id === workspace)?.name ?? workspace
  const submit = async () => {
    await addMember(workspace, { user_id: userId.trim(), role })
    setUserId("")
    list.loaded.reload()
  }
  return html`<section aria-labelledby="members-title">
    <h2 id="members-title">Members of ${name}</h2>
    <${PagedTable} list=${list} caption="Members" head=${["User", "Role", ""]} row=${(m: Member) =>
    html`<tr><td><code>${m.user_id}</code></td><td>${m.role}</td>
        <td>${
      can("workspace_users.delete")
        ? html`<${ConfirmButton} label="Remove" question="Remove this member? Their workspace-user keys stop working."
              onConfirm=${() => removeMember(workspace, m.user_id).then(list.loaded.reload)} />`
        : null
    }</td></tr>`} />
    ${
    can("workspace_users.create")
      ? html`<${FormFrame} form=${form} onSubmit=${submit} label="Add a member">
        <${FormAlert} form=${form} fields=${["user_id", "role"]} />
        <div class="grid">
          <${TextField} form=${form} name="user_id" label="User id" value=${userId} onInput=${setUserId}
            hint="From the users below." />
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
  return html`<${PageHeader} title="Workspaces & members" />
    ${can("workspaces.list") ? html`<${Workspaces} />` : null}
    ${can("workspace_users.list") && workspace !== null ? html`<${Members} workspace=${workspace} />` : null}
    ${can("organisation_users.list") ? html`<${Users} />` : null}`
}
