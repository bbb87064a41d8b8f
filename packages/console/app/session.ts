/**
 * Who is signed in: a person (the session cookie, which the browser holds and no script can read) or an API key
 * (for automation; it lives in `sessionStorage` only, never in a URL, a cookie or a log: it is gone when the tab
 * closes, and signing out forgets it at once). Who the caller is comes from `GET /v1/me`; what it may do from
 * `GET /v1/scopes`: its scopes, and the actions the policy allows it, which decide what the pages offer (the
 * API still decides every call: hiding is all the console does).
 */
import { computed, signal } from "@preact/signals"
import {
  type ApiError,
  type CallingKey,
  endSession,
  listWorkspaces,
  type Me,
  me,
  passwordSignIn,
  scopes,
  secondFactorSignIn,
  useKey,
  useSession,
  type Workspace
} from "./api.ts"
import { acceptInvite } from "./api/inviteLinks.ts"

const KEY_ITEM = "gateway-control.api-key"
const WORKSPACE_ITEM = "gateway-control.workspace"

export interface Session {
  /** A person signed in (the cookie), or an API key pasted for this tab. */
  readonly kind: "person" | "key"
  /** The calling key as the API sees it; a person acts as the kind of key their role fits (`id` null). */
  readonly key: CallingKey
  /** Who is calling: the person, their workspaces and roles. */
  readonly me: Me
  /** Every scope there is, for labels; the key's own are in `key.scopes`. */
  readonly catalogue: ReadonlyArray<string>
  /** The actions the policy allows the caller where it stands. */
  readonly actions: ReadonlyArray<string>
  /** The workspaces an admin can choose from; a workspace key's own workspace only; a member's own ones. */
  readonly workspaces: ReadonlyArray<Pick<Workspace, "id" | "name" | "slug">>
}

export const session = signal<Session | null>(null)
/** Why the last session ended, shown on the sign-in page. */
export const signedOutReason = signal<string | null>(null)
/** The workspace the pages work in: a workspace key's own, or the one an admin (or a member of several) chose. */
export const workspaceId = signal<string | null>(null)

const scopeSet = computed(() => new Set(session.value?.key.scopes ?? []))
const actionSet = computed(() => new Set(session.value?.actions ?? []))

/** Does the signed-in key carry this scope? */
export const can = (scope: string) => scopeSet.value.has(scope)
/** Does the policy let the caller perform this action (`audit_logs.list`, `members.create`…) where it stands? */
export const may = (action: string) => actionSet.value.has(action)
/** An admin: an organisation key, or an organisation owner or admin signed in. */
export const isAdminKey = () => session.value?.key.type === "organisation-service"
export const isPerson = () => session.value?.kind === "person"
/**
 * A person signed in with a password whose organisation requires a second factor they have not set up: the API
 * lets the session do nothing but enrol one (`GET /v1/me`'s `second_factor.enrolment_only`), so the console
 * offers only that page until the factor is confirmed.
 */
export const enrolmentOnly = computed(() => session.value?.me.second_factor?.enrolment_only === true)

const forget = () => {
  sessionStorage.removeItem(KEY_ITEM)
  sessionStorage.removeItem(WORKSPACE_ITEM)
  useKey(null)
  session.value = null
  workspaceId.value = null
}

/** Ends what is signed in: a person's session at the server (which clears its cookie), a key by forgetting it. */
export const signOut = async (reason: string | null = null) => {
  if (session.value?.kind === "person") await endSession().catch(() => undefined)
  signedOut(reason)
}

/** After the person's session was ended at the server (revoked, or everywhere): back to the sign-in page. */
export const signedOut = (reason: string | null) => {
  forget()
  signedOutReason.value = reason
}

const ended = (error: ApiError) => {
  forget()
  signedOutReason.value = `Signed out: ${error.message}`
}

/** Reads who is calling and what it may do, with the credential already in use; answers the session. */
const load = async (kind: Session["kind"]): Promise<Session> => {
  const [answer, who] = await Promise.all([scopes(), me()])
  const workspaces = answer.key.type === "organisation-service" && answer.actions.includes("workspaces.list")
    ? (await listWorkspaces({ page_size: 1000, current_page: 0 })).data
    : who.workspaces
  return { kind, key: answer.key, me: who, catalogue: answer.data, actions: answer.actions, workspaces }
}

/** The workspace to work in: a workspace key's own; else the one chosen before, the caller's own, or the first. */
const chosenFrom = (current: Session) => {
  if (current.kind === "key" && current.key.workspace_id !== null) return current.key.workspace_id
  const remembered = sessionStorage.getItem(WORKSPACE_ITEM)
  const workspaces = current.workspaces
  return workspaces.find((w) => w.id === remembered)?.id ??
    current.key.workspace_id ??
    workspaces.find((w) => w.slug === "default")?.id ??
    workspaces[0]?.id ??
    null
}

/** Checks the key with the API, and keeps it for this tab only when the API accepts it. */
export const signIn = async (key: string) => {
  // Until the key is accepted, a 401 is the sign-in form's error, not the end of a session.
  useKey(key, () => {})
  try {
    const loaded = await load("key")
    sessionStorage.setItem(KEY_ITEM, key)
    useKey(key, ended)
    signedOutReason.value = null
    workspaceId.value = chosenFrom(loaded)
    session.value = loaded
  } catch (error) {
    useKey(null)
    throw error
  }
}

/** Uses the session the browser's cookie names (after a sign-in, or on load); throws when there is none. */
const usePersonSession = async (csrfToken: string | null) => {
  useSession(csrfToken, null, () => {})
  let loaded = await load("person")
  const csrf = loaded.me.csrf_token ?? csrfToken
  const chosen = chosenFrom(loaded)
  // A member acts in one of their workspaces at a time, named by a header; an admin names it in each call.
  const member = loaded.key.type !== "organisation-service"
  useSession(csrf, member ? chosen : null, ended)
  if (member && chosen !== loaded.key.workspace_id) loaded = await load("person")
  signedOutReason.value = null
  workspaceId.value = chosen
  session.value = loaded
}

/**
 * Reads again who the person signed in is and what they may do: after their second factor changed, which can
 * turn an enrolment-only session into a full one (or back).
 */
export const reloadPersonSession = () => usePersonSession(session.value?.me.csrf_token ?? null)

/**
 * Signs a person in with their email and password. A person with a second factor is not signed in yet: the
 * answer is the challenge to send back with a code (`signInWithCode`).
 */
export const signInWithPassword = async (
  email: string,
  password: string
): Promise<{ readonly challenge: string } | null> => {
  // A refusal (401) is the form's error, not the end of a session.
  useKey(null, () => {})
  const answer = await passwordSignIn({ email, password })
  if (answer.object === "second-factor-required") return { challenge: answer.challenge }
  await usePersonSession(answer.csrf_token)
  return null
}

/** Accepts an invitation link by setting a password: the answer is a signed-in session, as a password sign-in's. */
export const acceptInviteWithPassword = async (token: string, password: string, name: string) => {
  useKey(null, () => {})
  const answer = await acceptInvite(token, password, name)
  await usePersonSession(answer.csrf_token)
}

/** The second step: the challenge of `signInWithPassword` and the code the authenticator app shows. */
export const signInWithCode = async (challenge: string, code: string) => {
  useKey(null, () => {})
  const answer = await secondFactorSignIn({ challenge, code })
  await usePersonSession(answer.csrf_token)
}

export const chooseWorkspace = async (id: string) => {
  workspaceId.value = id
  sessionStorage.setItem(WORKSPACE_ITEM, id)
  const current = session.value
  // A member's workspace changes what they act as: the API says again what they may do there.
  if (current !== null && current.kind === "person" && current.key.type !== "organisation-service") {
    useSession(current.me.csrf_token ?? null, id)
    session.value = await load("person")
  }
}

/** On load: the key this tab signed in with, else the person's session cookie, if any. */
export const restoreSession = async () => {
  const key = sessionStorage.getItem(KEY_ITEM)
  if (key !== null) {
    try {
      await signIn(key)
    } catch {
      forget()
      signedOutReason.value = "Your key is no longer accepted; sign in again."
    }
    return
  }
  try {
    await usePersonSession(null)
  } catch {
    // No session (or it ended): the sign-in page.
    forget()
  }
}

/** Re-reads the workspaces after one was created. */
export const refreshWorkspaces = async () => {
  const current = session.value
  if (current === null || current.key.type !== "organisation-service") return
  const workspaces = (await listWorkspaces({ page_size: 1000, current_page: 0 })).data
  session.value = { ...current, workspaces }
}

/** A workspace's name, when the caller can see it; its id otherwise. */
export const workspaceName = (id: string) => session.value?.workspaces.find((w) => w.id === id)?.name ?? id

/** Where a new credential goes: an admin names the chosen workspace, a workspace key its own. */
export const newCredentialPlacement = () =>
  isAdminKey() && workspaceId.value !== null ? { workspace_id: workspaceId.value } : {}
