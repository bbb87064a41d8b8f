/** Identity providers and sign-ins under way, in memory: a provider's slug is unique; a flow is taken once. */
import {
  IdentityProviderStore,
  type SignInFlow,
  SignInFlowStore,
  type StoredIdentityProvider
} from "@gateway-control/domain"
import { Effect, Option } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { byCreation, conflictOn, Table } from "./Table.ts"

const taken = (stored: StoredIdentityProvider) =>
  `An identity provider with the slug '${stored.provider.slug}' already exists.`

interface Row extends StoredIdentityProvider {
  readonly id: string
  readonly created_at: string
}

const rowOf = (stored: StoredIdentityProvider): Row => ({
  ...stored,
  id: stored.provider.id,
  created_at: stored.provider.created_at
})

const storedOf = (row: Row): StoredIdentityProvider => ({
  provider: row.provider,
  encryptedSecret: row.encryptedSecret
})

export const makeIdentityProviderStore = (state: MemoryState) => {
  const providers = new Table<Row>(state, (row) => [`slug/${row.provider.slug}`])
  return IdentityProviderStore.of({
    insert: (stored) =>
      Effect.flatMap(
        providers.insert(stored.provider.id, rowOf(stored)),
        (key) => conflictOn(key, taken(stored), "slug")
      ),
    get: (id) => Effect.sync(() => Option.map(providers.get(id), storedOf)),
    findBySlug: (slug) => Effect.sync(() => Option.map(providers.byUnique(`slug/${slug}`), storedOf)),
    list: (organisationId, page) =>
      Effect.sync(() => {
        const listed = providers.page((row) => row.provider.organisation_id === organisationId, page)
        return { items: listed.items.map((row) => row.provider), total: listed.total }
      }),
    listEnabled: Effect.sync(() =>
      [...providers.rows.values()].filter((row) => row.provider.enabled).sort(byCreation).map((row) => row.provider)
    ),
    update: (stored) =>
      Effect.flatMap(
        providers.rekey(stored.provider.id, rowOf(stored)),
        (result) =>
          typeof result === "string"
            ? Effect.as(conflictOn(result, taken(stored), "slug"), false)
            : Effect.succeed(result)
      ),
    delete: (id) => providers.delete(id)
  })
}

export const makeSignInFlowStore = (state: MemoryState) => {
  const flows = new Table<SignInFlow>(state)
  return SignInFlowStore.of({
    insert: (flow, now) =>
      Effect.gen(function*() {
        for (const [digest, row] of flows.rows) if (row.expires_at < now) yield* flows.delete(digest)
        yield* flows.insert(flow.state_digest, flow)
      }),
    take: (stateDigest, now) =>
      Effect.gen(function*() {
        const found = flows.get(stateDigest)
        if (Option.isNone(found) || !(yield* flows.delete(stateDigest))) return Option.none<SignInFlow>()
        return found.value.expires_at > now ? found : Option.none<SignInFlow>()
      })
  })
}
