/**
 * Every domain port in memory: for tests, for embedding, and for `GATEWAY_STORE=memory`.
 * Nothing survives the process.
 */
import type { ConfigVersion } from "@gateway-control/domain"
import {
  ApiKeyStore,
  AuditLogStore,
  type AuditRecord,
  ChangeFeed,
  CollectionStore,
  ConfigStore,
  Conflict,
  CredentialHealthStore,
  GatewayConfig,
  GENESIS_HASH,
  IdempotencyStore,
  IdentityProviderStore,
  IntegrationStore,
  InviteStore,
  LabelStore,
  LeaseStore,
  LocalAccountStore,
  McpCapabilityStore,
  McpIntegration,
  McpIntegrationStore,
  McpServer,
  McpServerStore,
  McpUserAccess,
  type McpUserAccessDefault,
  newestFirst,
  type Organisation,
  OrganisationStore,
  Partial,
  PartialStore,
  type PartialVersion,
  Prompt,
  PromptLabel,
  PromptStore,
  type PromptVersion,
  ProviderStore,
  ScimStore,
  ScimTokenStore,
  SecretReferenceStore,
  SessionStore,
  SignInFlowStore,
  type StatusChange,
  type StoredSecret,
  type StorePorts,
  StoreTransaction,
  TrustPolicyStore,
  usableBy,
  User,
  UserStore,
  Workspace,
  type WorkspaceHoldings,
  WorkspaceMember,
  WorkspaceMemberStore,
  WorkspaceStore
} from "@gateway-control/domain"
import { Context, Effect, Layer, Option } from "effect"
import { makeMemoryApiKeyStore } from "./internal/MemoryApiKeys.ts"
import { makeCapabilityStore } from "./internal/MemoryCapabilities.ts"
import { makeCollectionStore } from "./internal/MemoryCollections.ts"
import { makeCredentialHealthStore } from "./internal/MemoryCredentialHealth.ts"
import { makeIdempotencyStore } from "./internal/MemoryIdempotency.ts"
import { makeIdentityProviderStore, makeSignInFlowStore } from "./internal/MemoryIdentityProviders.ts"
import { makeIntegrationStore } from "./internal/MemoryIntegrations.ts"
import { makeInviteStore } from "./internal/MemoryInvites.ts"
import { makeLabelStore } from "./internal/MemoryLabels.ts"
import { makeLeaseStore } from "./internal/MemoryLeases.ts"
import { makeLocalAccountStore } from "./internal/MemoryLocalAccounts.ts"
import { directoryOf } from "./internal/MemoryMcpDirectory.ts"
import { makeProviderStore } from "./internal/MemoryProviders.ts"
import { makeScimStore } from "./internal/MemoryScim.ts"
import { makeScimTokenStore } from "./internal/MemoryScimTokens.ts"
import { makeSecretReferenceStore } from "./internal/MemorySecretReferences.ts"
import { makeSessionStore } from "./internal/MemorySessions.ts"
import { MemoryState } from "./internal/MemoryState.ts"
import { makeTrustPolicyStore } from "./internal/MemoryTrustPolicies.ts"
import { byCreation, conflictOn, inScope, Table } from "./internal/Table.ts"
import { versionedTables } from "./internal/VersionedTables.ts"

const make = Effect.sync(() => {
  const state = new MemoryState()
  const organisations = new Table<Organisation>(state)
  const workspaces = new Table<Workspace>(state, (w) => [`${w.organisation_id}/${w.slug}`])
  const users = new Table<User>(state, (u) => [`${u.organisation_id}/${u.email.toLowerCase()}`])
  const members = new Table<WorkspaceMember>(state)
  /** Deleted workspaces: their rows stay, as the SQL store's do, and every read passes them by. */
  const deleted = new Set<string>()

  const organisationStore = OrganisationStore.of({
    insert: (organisation) =>
      Effect.flatMap(
        organisations.insert(organisation.id, organisation),
        (taken) => conflictOn(taken, `An organisation with id '${organisation.id}' already exists.`, "id")
      ),
    get: (id) => Effect.sync(() => organisations.get(id)),
    first: Effect.sync(() => Option.fromUndefinedOr(organisations.page(() => true, { limit: 1, offset: 0 }).items[0]))
  })

  const workspaceStore = WorkspaceStore.of({
    insert: (workspace) =>
      Effect.flatMap(
        workspaces.insert(workspace.id, workspace),
        (taken) =>
          conflictOn(taken, `A workspace with slug '${workspace.slug}' already exists in this organisation.`, "slug")
      ),
    get: (id) => Effect.sync(() => Option.filter(workspaces.get(id), (w) => !deleted.has(w.id))),
    findBySlug: (organisationId, slug) =>
      Effect.sync(() => Option.filter(workspaces.byUnique(`${organisationId}/${slug}`), (w) => !deleted.has(w.id))),
    list: (organisationId, page, filter = {}) =>
      Effect.sync(() =>
        workspaces.page((w) =>
          w.organisation_id === organisationId && !deleted.has(w.id) &&
          (filter.name === undefined || w.name.includes(filter.name)) &&
          (filter.exact_name === undefined || w.name === filter.exact_name), page)
      ),
    update: (workspace) =>
      workspaces.replaceWhen(workspace.id, (w) => !deleted.has(w.id), (w) =>
        new Workspace({
          ...w,
          name: workspace.name,
          description: workspace.description,
          last_updated_at: workspace.last_updated_at
        })),
    remove: (id) =>
      state.write(() => {
        if (deleted.has(id) || Option.isNone(workspaces.get(id))) return [false, () => {}] as const
        deleted.add(id)
        return [true, () => void deleted.delete(id)] as const
      }),
    holdings: (id) => Effect.sync(() => holdingsOf(id))
  })

  const userStore = UserStore.of({
    insert: (user) =>
      Effect.flatMap(
        users.insert(user.id, user),
        (taken) => conflictOn(taken, `A user with email '${user.email}' already exists in this organisation.`, "email")
      ),
    get: (id) => Effect.sync(() => users.get(id)),
    findByEmail: (organisationId, email) =>
      Effect.sync(() => users.byUnique(`${organisationId}/${email.toLowerCase()}`)),
    list: (organisationId, page, filter = {}) =>
      Effect.sync(() =>
        users.page((u) =>
          u.organisation_id === organisationId &&
          (filter.role === undefined || u.role === filter.role) &&
          (filter.email === undefined || u.email === filter.email), page)
      ),
    update: (user) =>
      users.replace(
        user.id,
        (u) => new User({ ...u, name: user.name, role: user.role, last_updated_at: user.last_updated_at })
      ),
    changeEmail: (id, email, at) =>
      Effect.flatMap(
        Effect.sync(() => users.get(id)),
        Option.match({
          onNone: () => Effect.succeed(false),
          onSome: (u) =>
            Effect.flatMap(
              users.rekey(id, new User({ ...u, email: email.toLowerCase(), last_updated_at: at })),
              (result) =>
                typeof result === "string"
                  ? Effect.fail(
                    new Conflict({
                      message: "A user with this email already exists in the organisation.",
                      param: "email"
                    })
                  )
                  : Effect.succeed(result)
            )
        })
      ),
    // Memberships go with the user, as the SQL store's cascade does.
    remove: (id) =>
      Effect.gen(function*() {
        const of = [...members.rows.values()].filter((m) => m.user_id === id)
        for (const m of of) yield* members.delete(memberId(m.workspace_id, m.user_id))
        return yield* users.delete(id)
      })
  })

  const memberId = (workspaceId: string, userId: string) => `${workspaceId}/${userId}`
  /** Does the user's email or name hold `search`, in any case (as the SQL store's `strpos` of `lower`s)? */
  const holds = (search: string) => {
    const part = search.toLowerCase()
    return (user: User) => user.email.toLowerCase().includes(part) || (user.name ?? "").toLowerCase().includes(part)
  }
  const memberStore = WorkspaceMemberStore.of({
    upsert: (member) => {
      const id = memberId(member.workspace_id, member.user_id)
      // A role change keeps the membership's original creation time, as the SQL store does.
      const changeRole = (previous: WorkspaceMember) =>
        new WorkspaceMember({
          ...previous,
          role: member.role,
          last_updated_at: member.last_updated_at
        })
      return Effect.flatMap(
        members.replace(id, changeRole),
        (replaced) => (replaced ? Effect.void : Effect.asVoid(members.insert(id, member)))
      )
    },
    get: (workspaceId, userId) => Effect.sync(() => members.get(memberId(workspaceId, userId))),
    list: (workspaceId, page, filter = {}) =>
      Effect.sync(() =>
        members.page(
          (m) =>
            m.workspace_id === workspaceId &&
            (filter.role === undefined || m.role === filter.role) &&
            (filter.email === undefined ||
              Option.exists(users.get(m.user_id), (u) => u.email === filter.email)) &&
            (filter.search === undefined || Option.exists(users.get(m.user_id), holds(filter.search))) &&
            (filter.userIds === undefined || filter.userIds.includes(m.user_id)) &&
            (filter.exceptUserIds === undefined || !filter.exceptUserIds.includes(m.user_id)),
          page,
          (a, b) => byCreation({ created_at: a.created_at, id: a.user_id }, { created_at: b.created_at, id: b.user_id })
        )
      ),
    remove: (workspaceId, userId) => members.delete(memberId(workspaceId, userId)),
    workspacesOf: (userId) =>
      Effect.sync(() =>
        [...members.rows.values()]
          .filter((m) => m.user_id === userId)
          .sort((a, b) =>
            byCreation({ created_at: a.created_at, id: a.workspace_id }, {
              created_at: b.created_at,
              id: b.workspace_id
            })
          )
          .map((m) => m.workspace_id)
      )
  })

  const apiKeyStore = makeMemoryApiKeyStore(state)

  const prompts = versionedTables(state, {
    what: "prompt",
    resourceOf: (v: PromptVersion) => v.prompt_id,
    make: (fields: Prompt) => new Prompt(fields)
  })
  const partials = versionedTables(state, {
    what: "partial",
    resourceOf: (v: PartialVersion) => v.partial_id,
    make: (fields: Partial) => new Partial(fields)
  })
  const promptLabels = new Table<PromptLabel>(state)
  /** The pointers named `label` of the organisation's prompts, or of one workspace's. */
  const pointersNamed = (organisationId: string, workspaceId: string | null, label: string) =>
    [...promptLabels.rows].filter(([, pointer]) => {
      const prompt = prompts.resources.rows.get(pointer.prompt_id)
      return pointer.label === label && prompt !== undefined && inScope(prompt, organisationId, workspaceId)
    })
  const versionsOf = (promptId: string) =>
    [...prompts.versions.rows.values()].filter((v) => v.prompt_id === promptId).sort((a, b) => a.version - b.version)

  const promptStore = PromptStore.of({
    ...prompts.store,
    // Slugs are unique per workspace, so an organisation may hold several prompts with one slug.
    findBySlug: (organisationId, slug) =>
      Effect.sync(() =>
        [...prompts.resources.rows.values()].filter((p) => p.organisation_id === organisationId && p.slug === slug)
      ),
    latestVersion: (promptId) => Effect.sync(() => Option.fromUndefinedOr(versionsOf(promptId).at(-1))),
    versions: (promptId) => Effect.sync(() => versionsOf(promptId)),
    setLabel: (label) => {
      const id = `${label.prompt_id}/${label.label}`
      return Effect.flatMap(
        promptLabels.replace(id, () => label),
        (replaced) => replaced ? Effect.void : Effect.asVoid(promptLabels.insert(id, label))
      )
    },
    labels: (promptId) =>
      Effect.sync(() =>
        [...promptLabels.rows.values()].filter((l) => l.prompt_id === promptId).sort((a, b) =>
          a.label.localeCompare(b.label)
        )
      ),
    renameLabel: (organisationId, workspaceId, from, to) =>
      Effect.forEach(pointersNamed(organisationId, workspaceId, from), ([key, pointer]) =>
        Effect.andThen(
          promptLabels.delete(key),
          promptLabels.insert(`${pointer.prompt_id}/${to}`, new PromptLabel({ ...pointer, label: to }))
        ), { discard: true }),
    removeLabel: (organisationId, workspaceId, label) =>
      Effect.forEach(pointersNamed(organisationId, workspaceId, label), ([key]) => promptLabels.delete(key), {
        discard: true
      }),
    // The slug and workspace, and so the unique key, stay as they were.
    update: (prompt) => prompts.resources.replace(prompt.id, () => prompt),
    delete: (id) =>
      state.withTransaction(Effect.gen(function*() {
        for (const v of versionsOf(id)) yield* prompts.versions.delete(v.id)
        for (const [key, label] of promptLabels.rows) if (label.prompt_id === id) yield* promptLabels.delete(key)
        return yield* prompts.resources.delete(id)
      }))
  })

  const partialVersionsOf = (partialId: string) =>
    [...partials.versions.rows.values()].filter((v) => v.partial_id === partialId).sort((a, b) => a.version - b.version)
  const partialStore = PartialStore.of({
    ...partials.store,
    findBySlug: (workspaceId, slug) => Effect.sync(() => partials.resources.byUnique(`${workspaceId}/${slug}`)),
    findAllBySlug: (organisationId, slug) =>
      Effect.sync(() =>
        [...partials.resources.rows.values()].filter((p) => p.organisation_id === organisationId && p.slug === slug)
      ),
    // The slug and workspace, and so the unique key, stay as they were.
    update: (partial) => partials.resources.replace(partial.id, () => partial),
    versions: (partialId) => Effect.sync(() => partialVersionsOf(partialId)),
    delete: (id) =>
      state.withTransaction(Effect.gen(function*() {
        for (const v of partialVersionsOf(id)) yield* partials.versions.delete(v.id)
        return yield* partials.resources.delete(id)
      }))
  })

  const integrations = new Table<McpIntegration>(state, (i) => [`${i.organisation_id}/${i.slug}`])
  const servers = new Table<McpServer>(state, (s) => [`${s.workspace_id}/${s.slug}`])
  const accessDefaults = new Table<
    { readonly server_id: string; readonly default_user_access: McpUserAccessDefault; readonly last_updated_at: string }
  >(state)
  const accessOverrides = new Table<McpUserAccess>(state)
  const matches = (search: string | null, ...fields: Array<string>) =>
    search === null || fields.some((f) => f.toLowerCase().includes(search.toLowerCase()))

  /** Status and health, never for an archived integration (so a late health check cannot revive one). */
  const setIntegrationStatus = (id: string, change: StatusChange) =>
    integrations.replaceWhen(
      id,
      (current) => current.status !== "archived",
      (current) => new McpIntegration({ ...current, ...change })
    )
  const integrationStore = McpIntegrationStore.of({
    insert: (integration) =>
      Effect.flatMap(
        integrations.insert(integration.id, integration),
        (taken) =>
          conflictOn(
            taken,
            `An MCP integration with slug '${integration.slug}' already exists in this organisation.`,
            "slug"
          )
      ),
    update: (integration) =>
      Effect.asVoid(integrations.replace(integration.id, (current) =>
        new McpIntegration({
          ...integration,
          status: current.status,
          status_message: current.status_message,
          status_changed_at: current.status_changed_at,
          consecutive_failures: current.consecutive_failures
        }))),
    setStatus: setIntegrationStatus,
    setStatuses: (changes) =>
      Effect.map(
        Effect.filter(changes, ({ change, id }) => setIntegrationStatus(id, change)),
        (written) => new Set(written.map(({ id }) => id))
      ),
    listInUse: (afterId, limit) =>
      Effect.sync(() =>
        [...integrations.rows.values()]
          .filter((i) => i.status !== "archived" && (afterId === null || i.id > afterId))
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, limit)
      ),
    get: (id) => Effect.sync(() => integrations.get(id)),
    findBySlug: (organisationId, slug) => Effect.sync(() => integrations.byUnique(`${organisationId}/${slug}`)),
    list: (query, page) =>
      Effect.sync(() =>
        integrations.page((i) =>
          i.organisation_id === query.organisationId &&
          (i.status === "archived") === (query.status === "archived") &&
          (query.level === "all" || (query.level === "workspace") === (i.workspace_id !== null)) &&
          (query.usableBy === null || usableBy(i, query.usableBy)) &&
          matches(query.search, i.name, i.slug), page)
      )
  })

  const serverStore = McpServerStore.of({
    insert: (server) =>
      Effect.flatMap(
        servers.insert(server.id, server),
        (taken) =>
          conflictOn(taken, `An MCP server with slug '${server.slug}' already exists in this workspace.`, "slug")
      ),
    update: (server) =>
      servers.replace(
        server.id,
        (stored) => new McpServer({ ...stored, name: server.name, description: server.description })
      ),
    delete: (id) => servers.delete(id),
    get: (id) => Effect.sync(() => servers.get(id)),
    findBySlug: (workspaceId, slug) => Effect.sync(() => servers.byUnique(`${workspaceId}/${slug}`)),
    list: (organisationId, workspaceId, search, page, ids) =>
      Effect.sync(() =>
        servers.page(
          (s) =>
            inScope(s, organisationId, workspaceId) && matches(search, s.name, s.slug) &&
            (ids === undefined || ids.includes(s.id)),
          page
        )
      ),
    directory: (query) => Effect.sync(() => directoryOf(servers, integrations, query)),
    userAccess: (serverId) =>
      Effect.sync(() => ({
        default_user_access: Option.match(accessDefaults.get(serverId), {
          onNone: () => "allow" as const,
          onSome: (stored) => stored.default_user_access
        }),
        users: [...accessOverrides.rows.values()].filter((o) => o.server_id === serverId).sort((a, b) =>
          a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0
        )
      })),
    setUserAccess: (serverId, defaultAccess, overrides, at) =>
      state.withTransaction(Effect.gen(function*() {
        if (defaultAccess !== null) {
          const stored = { server_id: serverId, default_user_access: defaultAccess, last_updated_at: at }
          if (!(yield* accessDefaults.replace(serverId, () => stored))) yield* accessDefaults.insert(serverId, stored)
        }
        for (const override of overrides) {
          const id = `${serverId}/${override.user_id}`
          // An override keeps when it was first set, as the SQL store does.
          const replaced = yield* accessOverrides.replace(
            id,
            (stored) => new McpUserAccess({ ...override, created_at: stored.created_at })
          )
          if (!replaced) yield* accessOverrides.insert(id, override)
        }
      }))
  })

  const aiIntegrations = makeIntegrationStore(state)
  const aiProviders = makeProviderStore(state)
  const configs = new Table<StoredSecret<GatewayConfig>>(state, (c) => [`${c.record.workspace_id}/${c.record.slug}`])
  /** What the workspace holds, by kind, counted over every table that names it. */
  const holdingsOf = (id: string): WorkspaceHoldings => {
    const count = <A>(rows: Map<string, A>, holds: (row: A) => boolean) => [...rows.values()].filter(holds).length
    return {
      api_keys: apiKeyStore.activeIn(id),
      prompts: count(prompts.resources.rows, (p) => p.workspace_id === id),
      prompt_partials: count(partials.resources.rows, (p) => p.workspace_id === id),
      providers: aiProviders.inWorkspace(id),
      integrations: aiIntegrations.inWorkspace(id),
      configs: count(configs.rows, (c) => c.record.workspace_id === id),
      mcp_integrations: count(integrations.rows, (i) => i.workspace_id === id && i.status !== "archived"),
      mcp_servers: count(servers.rows, (server) => server.workspace_id === id)
    }
  }
  const secretsIn = <
    A extends {
      readonly organisation_id: string
      readonly workspace_id: string
      readonly created_at: string
      readonly id: string
      readonly slug: string
    }
  >(
    table: Table<StoredSecret<A>>,
    what: string
  ) => ({
    insert: (stored: StoredSecret<A>) =>
      Effect.flatMap(
        table.insert(stored.record.id, stored),
        (taken) => conflictOn(taken, `A ${what} with this slug already exists in the workspace.`, "slug")
      ),
    // The slug and workspace, and so the unique key, stay as they were.
    update: (stored: StoredSecret<A>) => table.replace(stored.record.id, () => stored),
    get: (id: string) => Effect.sync(() => table.get(id)),
    findBySlug: (workspaceId: string, slug: string) => Effect.sync(() => table.byUnique(`${workspaceId}/${slug}`)),
    findAllBySlug: (organisationId: string, slug: string) =>
      Effect.sync(() =>
        [...table.rows.values()].filter((s) => s.record.organisation_id === organisationId && s.record.slug === slug)
      ),
    list: (organisationId: string, workspaceId: string | null, page: { limit: number; offset: number }) =>
      Effect.sync(() => {
        const result = table.page(
          (s) => inScope(s.record, organisationId, workspaceId),
          page,
          (a, b) => byCreation(a.record, b.record)
        )
        return { items: result.items.map((s) => s.record), total: result.total }
      }),
    delete: (id: string) => table.delete(id)
  })
  const configVersions = new Table<ConfigVersion>(state, (v) => [`${v.config_id}@${v.version}`])
  const configStore = ConfigStore.of({
    ...secretsIn(configs, "config"),
    // A config's versions go with it.
    delete: (id) =>
      state.withTransaction(Effect.gen(function*() {
        for (const [key, v] of configVersions.rows) if (v.config_id === id) yield* configVersions.delete(key)
        return yield* configs.delete(id)
      })),
    addVersion: (version) =>
      Effect.flatMap(
        configVersions.insert(version.id, version),
        (taken) => conflictOn(taken, "Another request changed this config at the same time; retry.", null)
      ),
    versions: (configId) =>
      Effect.sync(() =>
        [...configVersions.rows.values()].filter((v) => v.config_id === configId).sort((a, b) => a.version - b.version)
      ),
    clearDefault: (workspaceId) =>
      Effect.forEach(
        [...configs.rows.values()].filter((c) => c.record.workspace_id === workspaceId && c.record.is_default === 1),
        (c) =>
          configs.replace(c.record.id, () => ({ ...c, record: new GatewayConfig({ ...c.record, is_default: 0 }) })),
        { discard: true }
      )
  })

  // Units of work are serialised in memory: nothing waits for a chain's end, so one chain (0) holds it all.
  const audit: Array<AuditRecord> = []
  let keyCheck: string | undefined
  const auditLogStore = AuditLogStore.of({
    append: (build) =>
      state.write(() => {
        const last = audit[audit.length - 1]
        const record = build({ chain: 0, seq: audit.length + 1, previousHash: last?.hash ?? GENESIS_HASH })
        audit.push(record)
        return [record, () => void audit.pop()] as const
      }),
    list: (organisationId, filters, page) =>
      Effect.sync(() => {
        const matching = audit.filter((r) =>
          r.organisation_id === organisationId &&
          (filters.startTime === undefined || r.timestamp >= filters.startTime) &&
          (filters.endTime === undefined || r.timestamp <= filters.endTime) &&
          (filters.workspaceId === undefined || r.workspace_id === filters.workspaceId) &&
          (filters.userId === undefined || r.user_id === filters.userId) &&
          (filters.action === undefined || r.action === filters.action) &&
          (filters.resourceType === undefined || r.resource_type === filters.resourceType) &&
          (filters.workloadSubject === undefined || r.workload_subject === filters.workloadSubject) &&
          (filters.userEmail === undefined || r.user_email?.toLowerCase() === filters.userEmail.toLowerCase()) &&
          (filters.responseStatusCode === undefined || r.response_status_code === filters.responseStatusCode)
        ).sort(newestFirst)
        return { items: matching.slice(page.offset, page.offset + page.limit), total: matching.length }
      }),
    // A memory store starts empty, after the keyed chain: it never holds a plain record to name.
    sealLegacyPrefix: () => Effect.succeed(Option.none()),
    claimKeyCheck: (value) =>
      Effect.sync(() => {
        keyCheck ??= value
        return keyCheck
      }),
    scan: (after, limit) =>
      Effect.sync(() => {
        const start = after.chain > 0 ? audit.length : after.seq
        return audit.slice(start, start + limit)
      })
  })

  const transaction = StoreTransaction.of({
    withTransaction: (effect) => state.withTransaction(effect),
    // Units of work are already serialised in memory.
    lock: () => Effect.void,
    afterCommit: (effect) => state.afterCommit(effect),
    ping: Effect.void
  })

  return Context.make(OrganisationStore, organisationStore).pipe(
    Context.add(WorkspaceStore, workspaceStore),
    Context.add(UserStore, userStore),
    Context.add(WorkspaceMemberStore, memberStore),
    Context.add(ApiKeyStore, apiKeyStore),
    Context.add(AuditLogStore, auditLogStore),
    Context.add(PromptStore, promptStore),
    Context.add(ConfigStore, configStore),
    Context.add(McpIntegrationStore, integrationStore),
    Context.add(McpServerStore, serverStore),
    Context.add(McpCapabilityStore, makeCapabilityStore(state)),
    Context.add(LeaseStore, makeLeaseStore()),
    Context.add(IdempotencyStore, makeIdempotencyStore()),
    Context.add(PartialStore, partialStore),
    Context.add(CollectionStore, makeCollectionStore(state, prompts.resources, partials.resources)),
    Context.add(LabelStore, makeLabelStore(state)),
    Context.add(StoreTransaction, transaction),
    Context.add(TrustPolicyStore, makeTrustPolicyStore(state))
  ).pipe(
    Context.add(SessionStore, makeSessionStore(state, users)),
    Context.add(IdentityProviderStore, makeIdentityProviderStore(state)),
    Context.add(SignInFlowStore, makeSignInFlowStore(state)),
    Context.add(ScimTokenStore, makeScimTokenStore(state)),
    Context.add(ScimStore, makeScimStore(state, users)),
    // Nothing outside this process shares the store: nobody to tell.
    Context.add(ChangeFeed, ChangeFeed.inProcess)
  ).pipe(
    Context.add(SecretReferenceStore, makeSecretReferenceStore(state)),
    Context.add(InviteStore, makeInviteStore(state)),
    Context.add(LocalAccountStore, makeLocalAccountStore(state, users)),
    Context.add(IntegrationStore, aiIntegrations.store),
    Context.add(ProviderStore, aiProviders.store),
    Context.add(CredentialHealthStore, makeCredentialHealthStore(state))
  )
})

/** Every store port, fresh and empty each time the layer is built. */
export const layerMemory: Layer.Layer<StorePorts> = Layer.effectContext(make)
