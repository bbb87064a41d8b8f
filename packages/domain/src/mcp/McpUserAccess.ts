/**
 * Which of a workspace's people may use an MCP server (Portkey's user access): the server's default (`allow`
 * until a manager sets it) and each member's override. The policy applies it (`personMayUse` in Policy.ts) to
 * keys that act as a person in the workspace (`workspace-user` keys): a person denied a server is refused its
 * reads and tests (403), and the registry API leaves it out for them.
 *
 * Connections (Portkey's per-user OAuth connections) are derived, not stored: the gateway runs no OAuth flow and
 * keeps no per-user tokens, so a person who may use a server is connected to it when its integration needs no
 * per-user authorisation (`headers` or `none`, and not archived), and never for `oauth_auto`. There is therefore
 * nothing per user to disconnect (Portkey's `DELETE …/connections` is not served): deny the person instead.
 */
import { Effect, Option, Schema } from "effect"
import { nameParts } from "../access/AccessModel.ts"
import { type MemberFilter, UserStore, WorkspaceMemberStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { boundByUserAccess, ensureAllowed, ensurePersonMayUse, personMayUse, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { InvalidRequest, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import {
  type McpIntegration,
  McpIntegrationStore,
  type McpServer,
  McpServerStore,
  McpUserAccess,
  McpUserAccessDefault,
  type ServerUserAccess
} from "./Mcp.ts"

/** At most this many overrides in one change. */
const MAX_OVERRIDES = 1000

/** Portkey's user access change: overrides by user (`user_id`, or the SDK's `id`), and the server's default. */
export const UpdateMcpServerUserAccess = Schema.Struct({
  user_access: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        user_id: Schema.optionalKey(Schema.String),
        id: Schema.optionalKey(Schema.String.annotate({ description: "Portkey's Node SDK's name of user_id." })),
        enabled: Schema.Boolean
      })
    ).annotate({ description: `At most ${MAX_OVERRIDES}; each user a member of the server's workspace.` })
  ),
  default_user_access: Schema.optionalKey(McpUserAccessDefault)
})
export type UpdateMcpServerUserAccessInput = typeof UpdateMcpServerUserAccess.Type

/** One member of the server's workspace and whether they may use the server. */
export interface UserAccessEntry {
  readonly user_id: string
  readonly email: string
  readonly first_name?: string
  readonly last_name?: string
  readonly enabled: boolean
  readonly has_override: boolean
  /** Derived (see the module's comment): may use it, and the integration needs no per-user authorisation. */
  readonly connected: boolean
  /** When the person's override was set, if they have one. */
  readonly created_at?: string
  readonly last_updated_at?: string
}

export interface UserAccessListRequest {
  readonly search?: string | undefined
  readonly userId?: string | undefined
  readonly workspaceId?: string | undefined
}

/** The access rule as the policy reads it. */
const ruleOf = (access: ServerUserAccess) => ({
  defaultAllows: access.default_user_access === "allow",
  overrideFor: (userId: string) => access.users.find((o) => o.user_id === userId)?.enabled
})

/** A server's access as its listings read it: the rule, each user's override, and whether allowed is connected. */
interface ServerAccess {
  readonly access: ServerUserAccess
  readonly overrides: ReadonlyMap<string, ServerUserAccess["users"][number]>
  readonly rule: ReturnType<typeof ruleOf>
  readonly connectable: boolean
}

/** Does using the server need no per-user authorisation, so that anyone allowed is connected? */
const connectsWithoutUser = (integration: McpIntegration) =>
  integration.auth_type !== "oauth_auto" && integration.status !== "archived"

type UserAccessReader = Pick<McpServerStore["Service"], "userAccess">

/**
 * The policy's check of a server's read, test or capabilities for the key's person: `Forbidden` when the
 * server's user access denies them (only `workspace-user` keys are bound by it).
 */
export const ensurePersonMayUseServer = (store: UserAccessReader, principal: Principal, server: McpServer) =>
  !boundByUserAccess(principal)
    ? Effect.void
    : Effect.flatMap(
      store.userAccess(server.id),
      (access) => ensurePersonMayUse(principal, ruleOf(access), { type: "MCP server", id: server.id })
    )

/** The servers the key's person may use, in their order (the registry API lists only those). */
export const serversUsableByPerson = <A>(
  store: UserAccessReader,
  principal: Principal,
  listed: ReadonlyArray<A>,
  serverOf: (entry: A) => McpServer
) =>
  !boundByUserAccess(principal)
    ? Effect.succeed(listed)
    : Effect.filter(
      listed,
      (entry) => Effect.map(store.userAccess(serverOf(entry).id), (access) => personMayUse(principal, ruleOf(access)))
    )

export const makeUserAccess = Effect.gen(function*() {
  const servers = grantedWrites(yield* McpServerStore, { setUserAccess: "mcp_servers.user_access.update" })
  const integrations = yield* McpIntegrationStore
  const members = yield* WorkspaceMemberStore
  const users = yield* UserStore

  /** A server by id, or by slug in the named workspace (else the key's), with the policy's leave for `action`. */
  const serverFor = <A extends "mcp_servers.read" | "mcp_servers.user_access.update">(
    principal: Principal,
    idOrSlug: string,
    action: A,
    workspaceId?: string
  ) =>
    Effect.gen(function*() {
      const scope = workspaceId ?? principal.workspaceId
      const byId = yield* servers.get(idOrSlug)
      const found = Option.isSome(byId) || scope === null ? byId : yield* servers.findBySlug(scope, idOrSlug)
      const server = yield* requireRow(found, "MCP server", idOrSlug)
      const grant = yield* ensureAllowed(principal, action, Target.of(server), { type: "MCP server", id: idOrSlug })
      return { server, grant }
    })

  /** The server's access, its rule, and whether a person it allows is connected by that alone. */
  const accessOf = Effect.fnUntraced(function*(server: McpServer) {
    const access = yield* servers.userAccess(server.id)
    const integration = yield* integrations.get(server.mcp_integration_id)
    const connectable = Option.match(integration, { onNone: () => false, onSome: connectsWithoutUser })
    const overrides = new Map(access.users.map((o) => [o.user_id, o]))
    return { access, overrides, rule: ruleOf(access), connectable } satisfies ServerAccess
  })

  /**
   * A page of the members of the server's workspace that `filter` keeps, in the order they joined, each with
   * their access. The store pages and filters, so a workspace of thousands reads one page of users.
   */
  const entriesOf = Effect.fnUntraced(
    function*(
      server: McpServer,
      of: ServerAccess,
      page: PageRequest,
      filter: MemberFilter
    ) {
      const { connectable, overrides, rule } = of
      const listed = yield* members.list(server.workspace_id, page, filter)
      const items: Array<UserAccessEntry> = []
      for (const member of listed.items) {
        // A user is removed with their memberships, in one unit of work: a membership without one is not seen.
        const user = yield* users.get(member.user_id)
        if (Option.isNone(user)) continue
        const override = overrides.get(member.user_id)
        const enabled = override?.enabled ?? rule.defaultAllows
        items.push({
          user_id: member.user_id,
          email: user.value.email,
          ...nameParts(user.value.name),
          enabled,
          has_override: override !== undefined,
          connected: enabled && connectable,
          ...(override === undefined
            ? {}
            : { created_at: override.created_at, last_updated_at: override.last_updated_at })
        })
      }
      return { items, total: listed.total } satisfies Page<UserAccessEntry>
    }
  )

  /** Who may use the server: every member of its workspace (`search` on name or email, any case). */
  const listServerUserAccess = Effect.fn("McpRegistry.listServerUserAccess")(
    function*(principal: Principal, idOrSlug: string, request: UserAccessListRequest, page: PageRequest) {
      const { server } = yield* serverFor(principal, idOrSlug, "mcp_servers.read", request.workspaceId)
      const of = yield* accessOf(server)
      const search = request.search?.trim()
      const filter = search === undefined || search === "" ? {} : { search }
      return { default_user_access: of.access.default_user_access, page: yield* entriesOf(server, of, page, filter) }
    }
  )

  /** Sets overrides (all or none) and the default; each user must be a member of the server's workspace. */
  const updateServerUserAccess = Effect.fn("McpRegistry.updateServerUserAccess")(
    function*(principal: Principal, idOrSlug: string, input: UpdateMcpServerUserAccessInput) {
      const { grant, server } = yield* serverFor(principal, idOrSlug, "mcp_servers.user_access.update")
      const given = input.user_access ?? []
      if (given.length > MAX_OVERRIDES) {
        return yield* InvalidRequest.of(`user_access takes at most ${MAX_OVERRIDES} users.`, "user_access")
      }
      if (given.length === 0 && input.default_user_access === undefined) {
        return yield* InvalidRequest.of("Give user_access or default_user_access.", "user_access")
      }
      const now = yield* nowIso
      const seen = new Set<string>()
      const overrides: Array<McpUserAccess> = []
      for (const [i, entry] of given.entries()) {
        const param = `user_access[${i}].user_id`
        if (entry.user_id !== undefined && entry.id !== undefined && entry.user_id !== entry.id) {
          return yield* InvalidRequest.of("user_id and id name two users; give one.", param)
        }
        const userId = entry.user_id ?? entry.id
        if (userId === undefined) return yield* InvalidRequest.of("user_id is required.", param)
        if (seen.has(userId)) return yield* InvalidRequest.of(`User '${userId}' is given twice.`, param)
        seen.add(userId)
        if (Option.isNone(yield* members.get(server.workspace_id, userId))) {
          return yield* InvalidRequest.of(
            `User '${userId}' is not a member of the server's workspace '${server.workspace_id}'.`,
            param
          )
        }
        overrides.push(
          new McpUserAccess({
            server_id: server.id,
            user_id: userId,
            enabled: entry.enabled,
            created_at: now,
            last_updated_at: now
          })
        )
      }
      yield* servers.setUserAccess(grant, server.id, input.default_user_access ?? null, overrides, now)
      return server
    }
  )

  /** Whether the calling key's person may use the server (keys acting as nobody are not bound by user access). */
  const checkServerUserAccess = Effect.fn("McpRegistry.checkServerUserAccess")(
    function*(principal: Principal, idOrSlug: string, workspaceId?: string) {
      const { server } = yield* serverFor(principal, idOrSlug, "mcp_servers.read", workspaceId)
      const access = yield* servers.userAccess(server.id)
      const override = principal.userId === null
        ? undefined
        : access.users.find((o) => o.user_id === principal.userId)
      return {
        server,
        user_id: principal.userId,
        enabled: personMayUse(principal, ruleOf(access)),
        has_override: override !== undefined,
        default_user_access: access.default_user_access
      }
    }
  )

  /** The connections: the members who may use the server, each connected when no per-user authorisation is needed. */
  const listServerConnections = Effect.fn("McpRegistry.listServerConnections")(
    function*(principal: Principal, idOrSlug: string, request: UserAccessListRequest, page: PageRequest) {
      const { server } = yield* serverFor(principal, idOrSlug, "mcp_servers.read", request.workspaceId)
      const of = yield* accessOf(server)
      const userId = request.userId ?? (boundByUserAccess(principal) ? principal.userId : null) ?? undefined
      const overridden = (enabled: boolean) =>
        of.access.users.filter((o) => o.enabled === enabled).map((o) => o.user_id)
      // The members the rule allows: all but those denied by default, else only those allowed.
      const filter: MemberFilter = userId !== undefined
        ? { userIds: (of.rule.overrideFor(userId) ?? of.rule.defaultAllows) ? [userId] : [] }
        : of.rule.defaultAllows
        ? { exceptUserIds: overridden(false) }
        : { userIds: overridden(true) }
      return yield* entriesOf(server, of, page, filter)
    }
  )

  return {
    listServerUserAccess,
    updateServerUserAccess,
    checkServerUserAccess,
    listServerConnections
  }
})
