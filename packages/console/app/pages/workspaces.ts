/** Workspaces, the organisation's users, and the members of the chosen workspace: for admin keys. */
import { useState } from "preact/hooks"
import { addMember, createUser, createWorkspace, listMembers, listUsers, listWorkspaces, removeMember } from "../api.ts"
import { html } from "../html.ts"
import { can, chooseWorkspace, refreshWorkspaces, session, workspaceId } from "../session.ts"
import { ConfirmButton, LoadState, PageHeader, Pager, Table, useLoad, usePaging, when } from "../ui/common.ts"
import { FormAlert, FormFrame, SelectField, SubmitButton, TextField, useForm } from "../ui/forms.ts"

const Workspaces = () => {
  const { paging, setPage } = usePaging()
  const loaded = useLoad(() => listWorkspaces(paging), [paging.current_page])
  const form = useForm()
  const [name, setName] = useState("")
  const submit = async () => {
    const created = await createWorkspace({ name })
    setName("")
    loaded.reload()
    await refreshWorkspaces()
    chooseWorkspace(created.id)
  }
  return html`<section aria-labelledby="ws-title">
    <h2 id="ws-title">Workspaces</h2>
    <${LoadState} loaded=${loaded}>${(page: Awaited<ReturnType<typeof listWorkspaces>>) =>
    html`<${Table} caption="Workspaces" head=${["Name", "Slug", "Created", ""]} empty=${page.data.length === 0}
        rows=${
      page.data.map((w) =>
        html`<tr><td>${w.name}</td><td><code>${w.slug}</code></td><td>${when(w.created_at)}</td>
          <td>${
          w.id === workspaceId.value
            ? html`<span class="badge">chosen</span>`
            : html`<button type="button" onClick=${() => chooseWorkspace(w.id)}>Work here</button>`
        }</td></tr>`
      )
    } />
      <${Pager} paging=${paging} total=${page.total} hasMore=${page.has_more} onPage=${setPage} />`}<//>
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

const Users = ({ onChanged }: { readonly onChanged: () => void }) => {
  const { paging, setPage } = usePaging()
  const loaded = useLoad(() => listUsers(paging), [paging.current_page])
  const form = useForm()
  const [email, setEmail] = useState("")
  const [role, setRole] = useState("member")
  const submit = async () => {
    await createUser({ email, role })
    setEmail("")
    loaded.reload()
    onChanged()
  }
  return html`<section aria-labelledby="users-title">
    <h2 id="users-title">Users of the organisation</h2>
    <${LoadState} loaded=${loaded}>${(page: Awaited<ReturnType<typeof listUsers>>) =>
    html`<${Table} caption="Users" head=${["Email", "Name", "Role", "Id"]} empty=${page.data.length === 0}
        rows=${
      page.data.map((u) =>
        html`<tr><td>${u.email}</td><td>${u.name ?? "—"}</td><td>${u.role}</td><td><code>${u.id}</code></td></tr>`
      )
    } />
      <${Pager} paging=${paging} total=${page.total} hasMore=${page.has_more} onPage=${setPage} />`}<//>
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

const Members = ({ version }: { readonly version: number }) => {
  const workspace = workspaceId.value
  const { paging, setPage } = usePaging()
  const loaded = useLoad(
    () => (workspace === null ? Promise.resolve(undefined) : listMembers(workspace, paging)),
    [workspace, paging.current_page, version]
  )
  const form = useForm()
  const [userId, setUserId] = useState("")
  const [role, setRole] = useState("member")
  const name = session.value?.workspaces.find((w) => w.id === workspace)?.name ?? workspace
  if (workspace === null) return null
  const submit = async () => {
    await addMember(workspace, { user_id: userId.trim(), role })
    setUserId("")
    loaded.reload()
  }
  return html`<section aria-labelledby="members-title">
    <h2 id="members-title">Members of ${name}</h2>
    <${LoadState} loaded=${loaded}>${(page: Awaited<ReturnType<typeof listMembers>> | undefined) =>
    page === undefined ?
      null :
      html`<${Table} caption="Members" head=${["User", "Role", ""]} empty=${page.data.length === 0}
        rows=${
        page.data.map((m) =>
          html`<tr><td><code>${m.user_id}</code></td><td>${m.role}</td>
          <td>${
            can("workspace_users.delete")
              ? html`<${ConfirmButton} label="Remove" question="Remove this member? Their workspace-user keys stop working."
                onConfirm=${async () => {
                await removeMember(workspace, m.user_id)
                loaded.reload()
              }} />`
              : null
          }</td></tr>`
        )
      } />
      <${Pager} paging=${paging} total=${page.total} hasMore=${page.has_more} onPage=${setPage} />`}<//>
    ${
    can("workspace_users.create")
      ? html`<${FormFrame} form=${form} onSubmit=${submit} label="Add a member">
        <${FormAlert} form=${form} fields=${["user_id", "role"]} />
        <div class="grid">
          <${TextField} form=${form} name="user_id" label="User id" value=${userId} onInput=${setUserId} />
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
  const [usersChanged, setUsersChanged] = useState(0)
  return html`<${PageHeader} title="Workspaces & members" />
    ${can("workspaces.list") ? html`<${Workspaces} />` : null}
    ${can("workspace_users.list") ? html`<${Members} version=${usersChanged} />` : null}
    ${can("organisation_users.list") ? html`<${Users} onChanged=${() => setUsersChanged(usersChanged + 1)} />` : null}`
}
