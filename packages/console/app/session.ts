/**
 * Who is signed in. The API key lives in `sessionStorage` only (never in a URL, a cookie or a log): it is gone
 * when the tab closes, and signing out forgets it at once. What the key may do comes from `GET /v1/scopes`.
 */
import { computed, signal } from "@preact/signals"
import { type ApiError, type CallingKey, listWorkspaces, scopes, useKey, type Workspace } from "./api.ts"

const KEY_ITEM = "gateway-control.api-key"
const WORKSPACE_ITEM = "gateway-control.workspace"

export interface Session {
  readonly key: CallingKey
  /** Every scope there is, for labels; the key's own are in `key.scopes`. */
  readonly catalogue: ReadonlyArray<string>
  /** The workspaces an admin key can choose from; a workspace key's own workspace only. */
  readonly workspaces: ReadonlyArray<Workspace>
}

export const session = signal<Session | null>(null)
/** Why the last session ended, shown on the sign-in page. */
export const signedOutReason = signal<string | null>(null)
/** The workspace the pages work in: a workspace key's own, or the one an admin key chose. */
export const workspaceId = signal<string | null>(null)

const scopeSet = computed(() => new Set(session.value?.key.scopes ?? []))

/** May the signed-in key do this? */
export const can = (scope: string) => scopeSet.value.has(scope)
export const isAdminKey = () => session.value?.key.type === "organisation-service"

export const chooseWorkspace = (id: string) => {
  workspaceId.value = id
  sessionStorage.setItem(WORKSPACE_ITEM, id)
}

export const signOut = (reason: string | null = null) => {
  sessionStorage.removeItem(KEY_ITEM)
  sessionStorage.removeItem(WORKSPACE_ITEM)
  useKey(null)
  session.value = null
  workspaceId.value = null
  signedOutReason.value = reason
}

const ended = (error: ApiError) => signOut(`Signed out: ${error.message}`)

/** Checks the key with `GET /v1/scopes`, and keeps it for this tab only when the API accepts it. */
export const signIn = async (key: string) => {
  // Until the key is accepted, a 401 is the sign-in form's error, not the end of a session.
  useKey(key, () => {})
  try {
    const answer = await scopes()
    const workspaces = answer.key.type === "organisation-service" && answer.key.scopes.includes("workspaces.list")
      ? (await listWorkspaces({ page_size: 1000, current_page: 0 })).data
      : []
    sessionStorage.setItem(KEY_ITEM, key)
    const remembered = sessionStorage.getItem(WORKSPACE_ITEM)
    const chosen = answer.key.workspace_id ??
      workspaces.find((w) => w.id === remembered)?.id ??
      workspaces.find((w) => w.slug === "default")?.id ??
      workspaces[0]?.id ??
      null
    useKey(key, ended)
    signedOutReason.value = null
    workspaceId.value = chosen
    session.value = { key: answer.key, catalogue: answer.data, workspaces }
  } catch (error) {
    useKey(null)
    throw error
  }
}

/** On load: the key this tab signed in with, if any. */
export const restoreSession = async () => {
  const key = sessionStorage.getItem(KEY_ITEM)
  if (key === null) return
  try {
    await signIn(key)
  } catch {
    signOut("Your key is no longer accepted; sign in again.")
  }
}

/** Re-reads the workspaces after one was created. */
export const refreshWorkspaces = async () => {
  const current = session.value
  if (current === null || current.key.type !== "organisation-service") return
  const workspaces = (await listWorkspaces({ page_size: 1000, current_page: 0 })).data
  session.value = { ...current, workspaces }
}

/** Where a new credential goes: an admin key names the chosen workspace, a workspace key its own. */
export const newCredentialPlacement = () =>
  isAdminKey() && workspaceId.value !== null ? { workspace_id: workspaceId.value } : {}
