/**
 * Where organisations, workspaces, users and memberships are kept.
 *
 * Reads return `Option` for absence; writes fail with `Conflict` when a uniqueness rule would break.
 * A store that cannot answer fails with `StoreError`; any other storage failure is a defect in the adapter.
 */
import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { Organisation, User, Workspace, WorkspaceMember } from "./AccessModel.ts"

export class OrganisationStore extends Context.Service<
  OrganisationStore,
  {
    readonly insert: (organisation: Organisation) => Effect.Effect<void, Conflict | StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<Organisation>, StoreError>
    /** The oldest organisation, if any: bootstrap's "is the store empty" question. */
    readonly first: Effect.Effect<Option.Option<Organisation>, StoreError>
  }
>()("@gateway-control/OrganisationStore") {}

/**
 * What a list keeps, in the store (so it pages and counts what it keeps): Portkey's list filters. Every field
 * given must match; none given keeps every row.
 */
export interface WorkspaceListFilter {
  /** Part of the name, with case. */
  readonly name?: string | undefined
  /** The whole name, with case. */
  readonly exact_name?: string | undefined
}

/**
 * Users of that organisation `role` and/or that `email`. The store compares the email as stored (lower case);
 * the service (Users.ts) takes it in any case, with surrounding spaces.
 */
export interface UserFilter {
  readonly role?: User["role"] | undefined
  readonly email?: string | undefined
}

/**
 * Members of that workspace `role` and/or whose user has that `email` (as for `UserFilter`), whose user's email
 * or name holds `search` (in any case), and who are among `userIds` or not among `exceptUserIds`.
 */
export interface MemberFilter {
  readonly role?: WorkspaceMember["role"] | undefined
  readonly email?: string | undefined
  readonly search?: string | undefined
  readonly userIds?: ReadonlyArray<string> | undefined
  readonly exceptUserIds?: ReadonlyArray<string> | undefined
}

export class WorkspaceStore extends Context.Service<
  WorkspaceStore,
  {
    /** Fails with `Conflict` when the slug is taken in the organisation. */
    readonly insert: (workspace: Workspace) => Effect.Effect<void, Conflict | StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<Workspace>, StoreError>
    readonly findBySlug: (organisationId: string, slug: string) => Effect.Effect<Option.Option<Workspace>, StoreError>
    /** Ordered by created_at, then id; with a filter, only the workspaces it keeps. */
    readonly list: (
      organisationId: string,
      page: PageRequest,
      filter?: WorkspaceListFilter
    ) => Effect.Effect<Page<Workspace>, StoreError>
    /** Writes the workspace's name, description and last_updated_at; false when there was none. */
    readonly update: (workspace: Workspace) => Effect.Effect<boolean, StoreError>
    /**
     * Marks the workspace deleted at `at`: from then on every read above answers as if it never existed. The
     * row stays, for what still names it (revoked keys, the audit log). False when there was none.
     */
    readonly remove: (id: string, at: string) => Effect.Effect<boolean, StoreError>
    /** How many of each kind of resource the workspace holds: what a delete without force must find empty. */
    readonly holdings: (id: string) => Effect.Effect<WorkspaceHoldings, StoreError>
  }
>()("@gateway-control/WorkspaceStore") {}

/** What a workspace holds, by kind (API keys: active ones; MCP integrations: not archived ones). */
export interface WorkspaceHoldings {
  readonly api_keys: number
  readonly prompts: number
  readonly prompt_partials: number
  /** Providers, virtual keys among them (credentials/VirtualKeys.ts). */
  readonly providers: number
  /** Workspace-level integrations. */
  readonly integrations: number
  readonly configs: number
  readonly mcp_integrations: number
  readonly mcp_servers: number
}

export class UserStore extends Context.Service<
  UserStore,
  {
    /** Fails with `Conflict` when the email is taken in the organisation. */
    readonly insert: (user: User) => Effect.Effect<void, Conflict | StoreError>
    readonly get: (id: string) => Effect.Effect<Option.Option<User>, StoreError>
    /** The organisation's user with this email (stored lower case), if any. */
    readonly findByEmail: (organisationId: string, email: string) => Effect.Effect<Option.Option<User>, StoreError>
    /** Ordered by created_at, then id; with a filter, only the users it keeps. */
    readonly list: (
      organisationId: string,
      page: PageRequest,
      filter?: UserFilter
    ) => Effect.Effect<Page<User>, StoreError>
    /** Writes the user's name, role and last_updated_at; false when there was none. */
    readonly update: (user: User) => Effect.Effect<boolean, StoreError>
    /**
     * Gives the user another email (stored lower case) at `at`; false when there was no user, `Conflict` when
     * another user of the organisation has it. Only the first start's owner link, accepted by single sign-on,
     * changes an email (the owner account takes the one the provider vouches for); SCIM and the API refuse to.
     */
    readonly changeEmail: (id: string, email: string, at: string) => Effect.Effect<boolean, Conflict | StoreError>
    /** Deletes the user and their memberships; false when there was none. */
    readonly remove: (id: string) => Effect.Effect<boolean, StoreError>
  }
>()("@gateway-control/UserStore") {}

export class WorkspaceMemberStore extends Context.Service<
  WorkspaceMemberStore,
  {
    /** Adds the user to the workspace, or changes the role of an existing member. */
    readonly upsert: (member: WorkspaceMember) => Effect.Effect<void, StoreError>
    readonly get: (workspaceId: string, userId: string) => Effect.Effect<Option.Option<WorkspaceMember>, StoreError>
    /** Ordered by created_at, then user_id; with a filter, only the memberships it keeps. */
    readonly list: (
      workspaceId: string,
      page: PageRequest,
      filter?: MemberFilter
    ) => Effect.Effect<Page<WorkspaceMember>, StoreError>
    readonly remove: (workspaceId: string, userId: string) => Effect.Effect<boolean, StoreError>
    /** The workspaces the user is a member of, oldest membership first. */
    readonly workspacesOf: (userId: string) => Effect.Effect<ReadonlyArray<string>, StoreError>
  }
>()("@gateway-control/WorkspaceMemberStore") {}
