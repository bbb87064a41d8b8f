/**
 * Identity providers and sign-ins under way on `effect/sql`. A provider's slug is unique (a `UNIQUE` constraint:
 * racing creates get one row and a `Conflict`); its client secret is stored as the domain encrypted it. A flow is
 * taken by `DELETE … RETURNING`, so of racing callbacks with one state exactly one gets it.
 */
import { IdentityProvider, IdentityProviderStore, SignInFlow, SignInFlowStore } from "@gateway-control/domain"
import { Effect, Option, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as SqlSchema from "effect/sql/SqlSchema"
import { queriesOn } from "./internal/queries.ts"
import { Jsonb, Timestamp, timestamps, toJson } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const ProviderRow = IdentityProvider.mapFields((f) => ({
  ...f,
  ...timestamps,
  role_map: Jsonb(f.role_map),
  allowed_domains: Jsonb(f.allowed_domains)
})).pipe(Schema.decodeTo(IdentityProvider))

const StoredRow = Schema.Struct({ client_secret_encrypted: Schema.String })

const FlowRow = SignInFlow.mapFields((f) => ({ ...f, created_at: Timestamp, expires_at: Timestamp })).pipe(
  Schema.decodeTo(SignInFlow)
)

export const makeIdentityProviderStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { listing } = queriesOn(sql)

  const storedOf = (row: unknown) =>
    Effect.all({
      provider: Schema.decodeUnknownEffect(ProviderRow)(row),
      encryptedSecret: Effect.map(Schema.decodeUnknownEffect(StoredRow)(row), (r) => r.client_secret_encrypted)
    })

  const one = (rows: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
    read(Effect.flatMap(rows, (found) => found.length === 0 ? Effect.succeedNone : Effect.asSome(storedOf(found[0]))))

  const enabled = SqlSchema.findAll({
    Request: Schema.Void,
    Result: ProviderRow,
    execute: () => sql`SELECT * FROM identity_providers WHERE enabled ORDER BY created_at, id`
  })

  return IdentityProviderStore.of({
    insert: ({ encryptedSecret, provider: p }) =>
      write(sql`
        INSERT INTO identity_providers (id, organisation_id, slug, name, issuer, client_id, client_secret_encrypted,
          client_secret_hint, groups_claim, role_map, allowed_domains, enabled, source, created_at, last_updated_at)
        VALUES (${p.id}, ${p.organisation_id}, ${p.slug}, ${p.name}, ${p.issuer}, ${p.client_id}, ${encryptedSecret},
          ${p.client_secret_hint}, ${p.groups_claim}, ${toJson(p.role_map)}::jsonb, ${toJson(p.allowed_domains)}::jsonb,
          ${p.enabled}, ${p.source}, ${p.created_at}, ${p.last_updated_at})`),
    get: (id) => one(sql`SELECT * FROM identity_providers WHERE id = ${id}`),
    findBySlug: (slug) => one(sql`SELECT * FROM identity_providers WHERE slug = ${slug}`),
    list: (organisationId, page) =>
      listing(ProviderRow, "identity_providers", sql`organisation_id = ${organisationId}`, page),
    listEnabled: read(enabled(undefined)),
    update: ({ encryptedSecret, provider: p }) =>
      Effect.map(
        write(sql`
          UPDATE identity_providers
          SET slug = ${p.slug}, name = ${p.name}, issuer = ${p.issuer}, client_id = ${p.client_id},
              client_secret_encrypted = ${encryptedSecret}, client_secret_hint = ${p.client_secret_hint},
              groups_claim = ${p.groups_claim}, role_map = ${toJson(p.role_map)}::jsonb,
              allowed_domains = ${toJson(p.allowed_domains)}::jsonb, enabled = ${p.enabled},
              last_updated_at = ${p.last_updated_at}
          WHERE id = ${p.id}
          RETURNING id`),
        (rows) => rows.length > 0
      ),
    delete: (id) =>
      read(Effect.map(sql`DELETE FROM identity_providers WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0))
  })
})

export const makeSignInFlowStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const taken = SqlSchema.findAll({
    Request: Schema.String,
    Result: FlowRow,
    execute: (digest) => sql`DELETE FROM oidc_sign_in_flows WHERE state_digest = ${digest} RETURNING *`
  })
  return SignInFlowStore.of({
    insert: (flow, now) =>
      read(
        Effect.andThen(
          sql`DELETE FROM oidc_sign_in_flows WHERE expires_at < ${now}`,
          sql`
            INSERT INTO oidc_sign_in_flows
              (state_digest, provider_id, nonce, code_verifier, invite_token_hash, created_at, expires_at)
            VALUES (${flow.state_digest}, ${flow.provider_id}, ${flow.nonce}, ${flow.code_verifier},
              ${flow.invite_token_hash}, ${flow.created_at}, ${flow.expires_at})`
        )
      ),
    take: (digest, now) =>
      read(
        Effect.map(taken(digest), (rows) => {
          const flow = rows[0]
          return flow !== undefined && flow.expires_at > now ? Option.some(flow) : Option.none<SignInFlow>()
        })
      )
  })
})
