/**
 * Another organisation, written straight to the store (no key of it exists): for tests of what a key may
 * not reach across organisations.
 */
import { Organisation, OrganisationStore, Workspace, WorkspaceStore } from "@gateway-control/domain"
import { Effect } from "effect"

/** Another organisation, with the id given or a fresh one. */
export const anotherOrganisation = (id: string = crypto.randomUUID()) =>
  Effect.gen(function*() {
    const now = new Date().toISOString()
    const organisation = new Organisation({ id, name: "Elsewhere", created_at: now, last_updated_at: now })
    yield* (yield* OrganisationStore).insert(organisation)
    return { organisation, now }
  })

/** Another organisation and its workspace `theirs`, with the ids given or fresh ones. */
export const anotherOrganisationsWorkspace = (
  ids: { readonly organisation?: string; readonly workspace?: string } = {}
) =>
  Effect.gen(function*() {
    const { now, organisation } = yield* anotherOrganisation(ids.organisation)
    const workspace = new Workspace({
      id: ids.workspace ?? crypto.randomUUID(),
      organisation_id: organisation.id,
      name: "Theirs",
      slug: "theirs",
      description: null,
      created_at: now,
      last_updated_at: now
    })
    yield* (yield* WorkspaceStore).insert(workspace)
    return { organisation, workspace }
  })
