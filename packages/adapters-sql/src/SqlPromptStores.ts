/**
 * Prompts, their versions and labels, and partials, on `effect/sql`.
 */
import {
  Partial,
  PartialStore,
  PartialVersion,
  Prompt,
  PromptLabel,
  PromptStore,
  PromptVersion
} from "@gateway-control/domain"
import { Context, Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as SqlSchema from "effect/sql/SqlSchema"
import { queriesOn } from "./internal/queries.ts"
import { Int, Jsonb, Timestamp, timestamps, toJson } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const PromptRow = Prompt.mapFields((f) => ({ ...f, ...timestamps, published_version: Int })).pipe(
  Schema.decodeTo(Prompt)
)
const PartialRow = Partial.mapFields((f) => ({ ...f, ...timestamps, published_version: Int })).pipe(
  Schema.decodeTo(Partial)
)
const VersionRow = PromptVersion.mapFields((f) => ({
  ...f,
  created_at: Timestamp,
  version: Int,
  parameters: Jsonb(f.parameters),
  template_metadata: Jsonb(f.template_metadata)
})).pipe(Schema.decodeTo(PromptVersion))
const LabelRow = PromptLabel.mapFields((f) => ({ ...f, last_updated_at: Timestamp, version: Int })).pipe(
  Schema.decodeTo(PromptLabel)
)
const PartialVersionRow = PartialVersion.mapFields((f) => ({ ...f, created_at: Timestamp, version: Int })).pipe(
  Schema.decodeTo(PartialVersion)
)

const ById = Schema.String
const VersionOf = Schema.Struct({ id: Schema.String, version: Schema.Int })

export const makePromptStores = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const inTransaction = <A, E>(effect: Effect.Effect<A, E | SqlError>) =>
    sql.withTransaction(effect) as Effect.Effect<A, E | SqlError>

  const insertVersion = (v: PromptVersion) =>
    sql`INSERT INTO prompt_versions (id, prompt_id, version, string, parameters, model, type, is_raw_template,
                                     version_description, template_metadata, created_at)
        VALUES (${v.id}, ${v.prompt_id}, ${v.version}, ${v.string}, ${toJson(v.parameters)}::jsonb, ${v.model},
                ${v.type}, ${v.is_raw_template}, ${v.version_description}, ${toJson(v.template_metadata)}::jsonb,
                ${v.created_at})`

  const { byId, bySlug, inScope, listing } = queriesOn(sql)

  // Slugs are unique per workspace, so an organisation may hold several prompts with one slug.
  const promptsBySlug = SqlSchema.findAll({
    Request: Schema.Struct({ organisationId: Schema.String, slug: Schema.String }),
    Result: PromptRow,
    execute: ({ organisationId, slug }) =>
      sql`SELECT * FROM prompts WHERE organisation_id = ${organisationId} AND slug = ${slug}`
  })
  const promptVersion = SqlSchema.findOneOption({
    Request: VersionOf,
    Result: VersionRow,
    execute: ({ id, version }) => sql`SELECT * FROM prompt_versions WHERE prompt_id = ${id} AND version = ${version}`
  })
  const latestVersion = SqlSchema.findOneOption({
    Request: ById,
    Result: VersionRow,
    execute: (id) => sql`SELECT * FROM prompt_versions WHERE prompt_id = ${id} ORDER BY version DESC LIMIT 1`
  })
  const versions = SqlSchema.findAll({
    Request: ById,
    Result: VersionRow,
    execute: (id) => sql`SELECT * FROM prompt_versions WHERE prompt_id = ${id} ORDER BY version`
  })
  const labels = SqlSchema.findAll({
    Request: ById,
    Result: LabelRow,
    execute: (id) => sql`SELECT * FROM prompt_labels WHERE prompt_id = ${id} ORDER BY label`
  })

  const prompts = PromptStore.of({
    insert: (p, firstVersion) =>
      write(inTransaction(Effect.andThen(
        sql`INSERT INTO prompts (id, organisation_id, workspace_id, name, slug, published_version, created_at,
                                 last_updated_at)
            VALUES (${p.id}, ${p.organisation_id}, ${p.workspace_id}, ${p.name}, ${p.slug}, ${p.published_version},
                    ${p.created_at}, ${p.last_updated_at})`,
        insertVersion(firstVersion)
      ))),
    addVersion: (v) => write(Effect.asVoid(insertVersion(v))),
    get: byId("prompts", PromptRow),
    findBySlug: (organisationId, slug) => read(promptsBySlug({ organisationId, slug })),
    list: (organisationId, workspaceId, page) =>
      listing(PromptRow, "prompts", inScope(organisationId, workspaceId), page),
    getVersion: (promptId, version) => read(promptVersion({ id: promptId, version })),
    latestVersion: (promptId) => read(latestVersion(promptId)),
    versions: (promptId) => read(versions(promptId)),
    setPublished: (promptId, version, at) =>
      read(Effect.asVoid(
        sql`UPDATE prompts SET published_version = ${version}, last_updated_at = ${at} WHERE id = ${promptId}`
      )),
    setLabel: (l) =>
      read(Effect.asVoid(
        sql`INSERT INTO prompt_labels (prompt_id, label, version, last_updated_at)
            VALUES (${l.prompt_id}, ${l.label}, ${l.version}, ${l.last_updated_at})
            ON CONFLICT (prompt_id, label) DO UPDATE SET version = EXCLUDED.version,
              last_updated_at = EXCLUDED.last_updated_at`
      )),
    labels: (promptId) => read(labels(promptId)),
    delete: (id) => read(Effect.map(sql`DELETE FROM prompts WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0))
  })

  const insertPartialVersion = (v: PartialVersion) =>
    sql`INSERT INTO prompt_partial_versions (id, partial_id, version, string, version_description, created_at)
        VALUES (${v.id}, ${v.partial_id}, ${v.version}, ${v.string}, ${v.version_description}, ${v.created_at})`

  const partialVersion = SqlSchema.findOneOption({
    Request: VersionOf,
    Result: PartialVersionRow,
    execute: ({ id, version }) =>
      sql`SELECT * FROM prompt_partial_versions WHERE partial_id = ${id} AND version = ${version}`
  })

  const partials = PartialStore.of({
    insert: (p, firstVersion) =>
      write(inTransaction(Effect.andThen(
        sql`INSERT INTO prompt_partials (id, organisation_id, workspace_id, name, slug, published_version, created_at,
                                         last_updated_at)
            VALUES (${p.id}, ${p.organisation_id}, ${p.workspace_id}, ${p.name}, ${p.slug}, ${p.published_version},
                    ${p.created_at}, ${p.last_updated_at})`,
        insertPartialVersion(firstVersion)
      ))),
    addVersion: (v) => write(Effect.asVoid(insertPartialVersion(v))),
    get: byId("prompt_partials", PartialRow),
    findBySlug: bySlug("prompt_partials", "workspace_id", PartialRow),
    list: (organisationId, workspaceId, page) =>
      listing(PartialRow, "prompt_partials", inScope(organisationId, workspaceId), page),
    getVersion: (partialId, version) => read(partialVersion({ id: partialId, version })),
    setPublished: (partialId, version, at) =>
      read(Effect.asVoid(
        sql`UPDATE prompt_partials SET published_version = ${version}, last_updated_at = ${at} WHERE id = ${partialId}`
      ))
  })

  return Context.make(PromptStore, prompts).pipe(Context.add(PartialStore, partials))
})
