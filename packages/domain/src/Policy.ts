/**
 * Access control: one pure decision function used by every handler. No handler decides access itself.
 */
import { Effect } from "effect"
import { Forbidden, NotFound } from "./Errors.ts"
import type { Principal } from "./Principal.ts"
import type { Scope } from "./Scopes.ts"

/** How far an action reaches: admin keys only, or any key within its own workspace. */
type Reach = "organisation" | "workspace"

interface ActionRule {
  readonly scope: Scope
  readonly reach: Reach
}

/** Every action of the service, with the scope it needs and who may perform it. */
export const Actions = {
  "workspaces.create": { scope: "workspaces.create", reach: "organisation" },
  "workspaces.list": { scope: "workspaces.list", reach: "workspace" },
  "workspaces.read": { scope: "workspaces.read", reach: "workspace" }
} as const satisfies Record<string, ActionRule>

export type Action = keyof typeof Actions

/** What an action is performed on: always inside one organisation, optionally inside one workspace. */
export interface Target {
  readonly organisationId: string
  /** null for organisation-level targets (the organisation itself, organisation-wide lists). */
  readonly workspaceId: string | null
}

export type Decision =
  | { readonly _tag: "Allowed" }
  | { readonly _tag: "Denied"; readonly reason: string }
  /** The target belongs to another organisation: answered as if it did not exist. */
  | { readonly _tag: "Hidden" }

const allowed: Decision = { _tag: "Allowed" }
const denied = (reason: string): Decision => ({ _tag: "Denied", reason })

export const authorize = (principal: Principal, action: Action, target: Target): Decision => {
  if (principal.organisationId !== target.organisationId) return { _tag: "Hidden" }
  const rule: ActionRule = Actions[action]
  if (!principal.scopes.has(rule.scope)) {
    return denied(`This API key lacks the scope '${rule.scope}' needed for ${action}.`)
  }
  if (principal.keyType === "organisation-service") return allowed
  // Workspace keys act only inside their own workspace.
  if (rule.reach === "organisation") {
    return denied(`${action} needs an admin (organisation) key; workspace keys cannot perform it.`)
  }
  if (target.workspaceId !== null && target.workspaceId !== principal.workspaceId) {
    return denied(`This API key belongs to another workspace than '${target.workspaceId}'.`)
  }
  return allowed
}

/** `authorize` as an effect: Denied becomes `Forbidden`, Hidden becomes `NotFound` for the named resource. */
export const ensureAllowed = (
  principal: Principal,
  action: Action,
  target: Target,
  resource: { readonly type: string; readonly id: string }
): Effect.Effect<void, Forbidden | NotFound> => {
  const decision = authorize(principal, action, target)
  switch (decision._tag) {
    case "Allowed":
      return Effect.void
    case "Denied":
      return Effect.fail(new Forbidden({ message: decision.reason }))
    case "Hidden":
      return Effect.fail(new NotFound({ resource: resource.type, id: resource.id }))
  }
}
