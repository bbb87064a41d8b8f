/**
 * The ports: what the domain needs from storage and from the platform. Adapters implement them
 * (`layerMemory`, `layerSql`); the server composes one implementation of each.
 *
 * Reads return `Option` for absence; writes fail with `Conflict` when a uniqueness rule would break.
 * Any other storage failure is a defect in the adapter.
 */
import { Context, type Effect, type Option, Schema } from "effect"
import type { Organisation, User, Workspace, WorkspaceMember } from "./AccessModel.ts"
import type { ApiKey, StoredApiKey } from "./ApiKey.ts"
import type { AuditFilters, AuditRecord } from "./AuditLog.ts"
import type { Conflict } from "./Errors.ts"
import type { McpIntegrationStore, McpServerStore } from "./Mcp.ts"
import type { Page, PageRequest } from "./Paging.ts"
import type { PartialStore, PromptStore } from "./Prompt.ts"
import type { ConfigStore, VirtualKeyStore } from "./VirtualKeys.ts"

export class OrganisationStore extends Context.Service<
  OrganisationStore,
  {
    readonly insert: (organisation: Organisation) => Effect.Effect<void, Conflict>
    readonly get: (id: string) => Effect.Effect<Option.Option<Organisation>>
    /** The oldest organisation, if any: bootstrap's "is the store empty" question. */
    readonly first: Effect.Effect<Option.Option<Organisation>>
  }
>()("@gateway-control/OrganisationStore") {}

export class WorkspaceStore extends Context.Service<
  WorkspaceStore,
  {
    /** Fails with `Conflict` when the slug is taken in the organisation. */
    readonly insert: (workspace: Workspace) => Effect.Effect<void, Conflict>
    readonly get: (id: string) => Effect.Effect<Option.Option<Workspace>>
    readonly findBySlug: (organisationId: string, slug: string) => Effect.Effect<Option.Option<Workspace>>
    /** Ordered by created_at, then id. */
    readonly list: (organisationId: string, page: PageRequest) => Effect.Effect<Page<Workspace>>
  }
>()("@gateway-control/WorkspaceStore") {}

export class UserStore extends Context.Service<
  UserStore,
  {
    /** Fails with `Conflict` when the email is taken in the organisation. */
    readonly insert: (user: User) => Effect.Effect<void, Conflict>
    readonly get: (id: string) => Effect.Effect<Option.Option<User>>
    readonly list: (organisationId: string, page: PageRequest) => Effect.Effect<Page<User>>
  }
>()("@gateway-control/UserStore") {}

export class WorkspaceMemberStore extends Context.Service<
  WorkspaceMemberStore,
  {
    /** Adds the user to the workspace, or changes the role of an existing member. */
    readonly upsert: (member: WorkspaceMember) => Effect.Effect<void>
    readonly get: (workspaceId: string, userId: string) => Effect.Effect<Option.Option<WorkspaceMember>>
    readonly list: (workspaceId: string, page: PageRequest) => Effect.Effect<Page<WorkspaceMember>>
    readonly remove: (workspaceId: string, userId: string) => Effect.Effect<boolean>
  }
>()("@gateway-control/WorkspaceMemberStore") {}

export class ApiKeyStore extends Context.Service<
  ApiKeyStore,
  {
    readonly insert: (key: StoredApiKey) => Effect.Effect<void, Conflict>
    /** The key whose plaintext has this SHA-256 digest (hex). */
    readonly findByDigest: (digest: string) => Effect.Effect<Option.Option<StoredApiKey>>
    readonly get: (id: string) => Effect.Effect<Option.Option<ApiKey>>
    /** Keys of an organisation, optionally of one workspace; ordered by created_at, then id. */
    readonly list: (
      organisationId: string,
      workspaceId: string | null,
      page: PageRequest
    ) => Effect.Effect<Page<ApiKey>>
    /** Marks the key revoked; false when there was no such key. */
    readonly revoke: (id: string, at: string) => Effect.Effect<boolean>
  }
>()("@gateway-control/ApiKeyStore") {}

export class AuditLogStore extends Context.Service<
  AuditLogStore,
  {
    /**
     * Appends the record that `build` makes from the chain's last hash and the next position. The store
     * serialises appends (across processes too), so the chain never forks. Runs inside a unit of work.
     */
    readonly append: (build: (previousHash: string, seq: number) => AuditRecord) => Effect.Effect<AuditRecord>
    /** Records of an organisation matching the filters, newest first; null: records of no organisation. */
    readonly list: (
      organisationId: string | null,
      filters: AuditFilters,
      page: PageRequest
    ) => Effect.Effect<Page<AuditRecord>>
    /** `limit` records of the whole chain after position `afterSeq`, in chain order. */
    readonly scan: (afterSeq: number, limit: number) => Effect.Effect<ReadonlyArray<AuditRecord>>
  }
>()("@gateway-control/AuditLogStore") {}

/**
 * Units of work. Everything run inside `withTransaction` commits together or not at all: a change and
 * the audit record describing it can never be separated.
 */
export class StoreTransaction extends Context.Service<
  StoreTransaction,
  {
    readonly withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /**
     * Takes an exclusive lock named `name` until the enclosing unit of work ends, across processes: for
     * check-then-act sequences that no constraint can guard (only one bootstrap of an empty store).
     */
    readonly lock: (name: string) => Effect.Effect<void>
    /**
     * Runs `effect` once the enclosing unit of work commits, and not at all if it rolls back; at once
     * outside one. For in-process caches of what the unit of work changed: cleared before commit, a
     * concurrent reader could refill them from the rows still committed.
     */
    readonly afterCommit: (effect: Effect.Effect<void>) => Effect.Effect<void>
    /** Succeeds when the store answers; readiness checks use it. */
    readonly ping: Effect.Effect<void, StoreUnavailable>
  }
>()("@gateway-control/StoreTransaction") {}

/** The store did not answer a readiness probe. */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", {
  message: Schema.String
}) {}

/** Randomness and hashing, implemented on the platform's crypto. Synchronous: key checks sit on the hot path. */
export class PlatformCrypto extends Context.Service<
  PlatformCrypto,
  {
    /** A random (v4) UUID. */
    readonly uuid: () => string
    /** `bytes` cryptographically random bytes as unpadded base64url. */
    readonly randomToken: (bytes: number) => string
    /** SHA-256 of the UTF-8 input as lower-case hex. */
    readonly sha256Hex: (input: string) => string
    /** Constant-time equality of two hex digests. */
    readonly digestsEqual: (a: string, b: string) => boolean
  }
>()("@gateway-control/PlatformCrypto") {}

/**
 * The audit log's keys, derived from the gateway's master key and never stored: whoever holds only the
 * database can neither re-link an edited chain nor forge a checkpoint. Synchronous, like `PlatformCrypto`.
 */
export class AuditSigner extends Context.Service<
  AuditSigner,
  {
    /** HMAC-SHA256 (lower-case hex) of the UTF-8 input under the chain key. */
    readonly chainMac: (input: string) => string
    /** HMAC-SHA256 (lower-case hex) of the UTF-8 input under the checkpoint key, a key of its own. */
    readonly checkpointMac: (input: string) => string
  }
>()("@gateway-control/AuditSigner") {}

/** Every store port: what a store adapter (`layerMemory`, `layerSql`) provides, each the same set. */
export type StorePorts =
  | OrganisationStore
  | WorkspaceStore
  | UserStore
  | WorkspaceMemberStore
  | ApiKeyStore
  | AuditLogStore
  | PromptStore
  | PartialStore
  | McpIntegrationStore
  | McpServerStore
  | VirtualKeyStore
  | ConfigStore
  | StoreTransaction
