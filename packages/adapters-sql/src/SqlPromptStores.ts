/**
 * Prompts, their versions and labels, and partials, on `effect/sql`.
 */
import {
  type PageRequest,
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

/** The fields a prompt and a partial share: one row shape, in two tables. */
interface TemplateResource {
  readonly id: string
  readonly organisation_id: string
  readonly workspace_id: string
  readonly collection_id: string
  readonly name: string
  readonly slug: string
  readonly published_version: number
  readonly created_at: string
  readonly last_updated_at: string
}

export const makePromptStores = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const inTransaction = <A, E>(effect: Effect.Effect<A, E | SqlError>) =>
    sql.withTransaction(effect) as Effect.Effect<A, E | SqlError>
  const { allBySlug, byId, bySlug, inScope, listing } = queriesOn(sql)

  /**
   * What the prompt and partial stores do alike (the domain's versioned-resource port): `resources` holds the
   * rows, `versions` their numbered versions, each naming its resource in `resourceColumn`.
   */
  const versionedResource = <R extends TemplateResource, V>(tables: {
    readonly resources: string
    readonly Row: Schema.Decoder<R>
    readonly versions: string
    readonly resourceColumn: string
    readonly VersionRow: Schema.Decoder<V>
    readonly insertResource: (resource: R) => Effect.Effect<unknown, SqlError>
    readonly insertVersion: (version: V) => Effect.Effect<unknown, SqlError>
  }) => {
    const { insertResource, insertVersion, resourceColumn, resources, Row, versions } = tables
    const version = SqlSchema.findOneOption({
      Request: VersionOf,
      Result: tables.VersionRow,
      execute: ({ id, version }) =>
        sql`SELECT * FROM ${sql(versions)} WHERE ${sql(resourceColumn)} = ${id} AND version = ${version}`
    })
    return {
      insert: (r: R, firstVersion: V) =>
        write(inTransaction(Effect.andThen(insertResource(r), insertVersion(firstVersion)))),
      addVersion: (v: V) => write(Effect.asVoid(insertVersion(v))),
      get: byId(resources, Row),
      list: (
        organisationId: string,
        workspaceId: string | null,
        page: PageRequest,
        collectionId?: string,
        search?: string
      ) =>
        listing(
          Row,
          resources,
          sql.and([
            inScope(organisationId, workspaceId),
            ...(collectionId === undefined ? [] : [sql`collection_id = ${collectionId}`]),
            ...(search === undefined ? [] : [sql`(strpos(lower(name), ${search}) > 0 OR strpos(slug, ${search}) > 0)`])
          ]),
          page
        ),
      getVersion: (id: string, number: number) => read(version({ id, version: number })),
      setPublished: (id: string, number: number, at: string) =>
        read(Effect.asVoid(
          sql`UPDATE ${sql(resources)} SET published_version = ${number}, last_updated_at = ${at} WHERE id = ${id}`
        ))
    }
  }

  // Slugs are unique per workspace, so an organisation may hold several prompts with one slug.
  const promptsBySlug = SqlSchema.findAll({
    Request: Schema.Struct({ organisationId: Schema.String, slug: Schema.String }),
    Result: PromptRow,
    execute: ({ organisationId, slug }) =>
      sql`SELECT * FROM prompts WHERE organisation_id = ${organisationId} AND slug = ${slug}`
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
  const partialVersions = SqlSchema.findAll({
    Request: ById,
    Result: PartialVersionRow,
    execute: (id) => sql`SELECT * FROM prompt_partial_versions WHERE partial_id = ${id} ORDER BY version`
  })
  const labels = SqlSchema.findAll({
    Request: ById,
    Result: LabelRow,
    execute: (id) => sql`SELECT * FROM prompt_labels WHERE prompt_id = ${id} ORDER BY label`
  })

  const prompts = PromptStore.of({
    ...versionedResource({
      resources: "prompts",
      Row: PromptRow,
      versions: "prompt_versions",
      resourceColumn: "prompt_id",
      VersionRow,
      insertResource: (r: Prompt) =>
        sql`INSERT INTO prompts (id, organisation_id, workspace_id, collection_id, name, slug, published_version,
                                 created_at, last_updated_at)
            VALUES (${r.id}, ${r.organisation_id}, ${r.workspace_id}, ${r.collection_id}, ${r.name}, ${r.slug},
                    ${r.published_version}, ${r.created_at}, ${r.last_updated_at})`,
      insertVersion: (v: PromptVersion) =>
        sql`INSERT INTO prompt_versions (id, prompt_id, version, string, parameters, model, type, is_raw_template,
                                         version_description, template_metadata, virtual_key, created_at)
            VALUES (${v.id}, ${v.prompt_id}, ${v.version}, ${v.string}, ${toJson(v.parameters)}::jsonb, ${v.model},
                    ${v.type}, ${v.is_raw_template}, ${v.version_description}, ${toJson(v.template_metadata)}::jsonb,
                    ${v.virtual_key}, ${v.created_at})`
    }),
    findBySlug: (organisationId, slug) => read(promptsBySlug({ organisationId, slug })),
    latestVersion: (promptId) => read(latestVersion(promptId)),
    versions: (promptId) => read(versions(promptId)),
    setLabel: (l) =>
      read(Effect.asVoid(
        sql`INSERT INTO prompt_labels (prompt_id, label, version, last_updated_at)
            VALUES (${l.prompt_id}, ${l.label}, ${l.version}, ${l.last_updated_at})
            ON CONFLICT (prompt_id, label) DO UPDATE SET version = EXCLUDED.version,
              last_updated_at = EXCLUDED.last_updated_at`
      )),
    labels: (promptId) => read(labels(promptId)),
    renameLabel: (organisationId, workspaceId, from, to) =>
      read(Effect.asVoid(
        sql`UPDATE prompt_labels SET label = ${to}
            WHERE label = ${from} AND prompt_id IN (SELECT id FROM prompts WHERE ${
          inScope(organisationId, workspaceId)
        })`
      )),
    removeLabel: (organisationId, workspaceId, label) =>
      read(Effect.asVoid(
        sql`DELETE FROM prompt_labels
            WHERE label = ${label} AND prompt_id IN (SELECT id FROM prompts WHERE ${
          inScope(organisationId, workspaceId)
        })`
      )),
    update: (p) =>
      read(Effect.map(
        sql`UPDATE prompts SET name = ${p.name}, collection_id = ${p.collection_id},
              last_updated_at = ${p.last_updated_at}
            WHERE id = ${p.id} RETURNING id`,
        (rows) => rows.length > 0
      )),
    delete: (id) => read(Effect.map(sql`DELETE FROM prompts WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0))
  })

  const partials = PartialStore.of({
    ...versionedResource({
      resources: "prompt_partials",
      Row: PartialRow,
      versions: "prompt_partial_versions",
      resourceColumn: "partial_id",
      VersionRow: PartialVersionRow,
      insertResource: (r: Partial) =>
        sql`INSERT INTO prompt_partials (id, organisation_id, workspace_id, collection_id, name, slug,
                                         published_version, description, status, created_at, last_updated_at)
            VALUES (${r.id}, ${r.organisation_id}, ${r.workspace_id}, ${r.collection_id}, ${r.name}, ${r.slug},
                    ${r.published_version}, ${r.description}, ${r.status}, ${r.created_at}, ${r.last_updated_at})`,
      insertVersion: (v: PartialVersion) =>
        sql`INSERT INTO prompt_partial_versions (id, partial_id, version, string, version_description, created_at)
            VALUES (${v.id}, ${v.partial_id}, ${v.version}, ${v.string}, ${v.version_description}, ${v.created_at})`
    }),
    findBySlug: bySlug("prompt_partials", "workspace_id", PartialRow),
    findAllBySlug: allBySlug("prompt_partials", PartialRow),
    update: (p) =>
      read(Effect.map(
        sql`UPDATE prompt_partials SET name = ${p.name}, collection_id = ${p.collection_id},
              description = ${p.description}, status = ${p.status},
              published_version = ${p.published_version}, last_updated_at = ${p.last_updated_at}
            WHERE id = ${p.id} RETURNING id`,
        (rows) => rows.length > 0
      )),
    versions: (partialId) => read(partialVersions(partialId)),
    delete: (id) =>
      read(Effect.map(sql`DELETE FROM prompt_partials WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0))
  })

  return Context.make(PromptStore, prompts).pipe(Context.add(PartialStore, partials))
})
