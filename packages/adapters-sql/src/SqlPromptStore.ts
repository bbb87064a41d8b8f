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
import { Context, Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { int, iso, json, text, textOrNull, toJson } from "./internal/rows.ts"
import { first, type Row, toPage, write } from "./internal/statements.ts"

/** Prompts and partials share their columns. */
const versionedFrom = (row: Row) => ({
  id: text(row.id),
  organisation_id: text(row.organisation_id),
  workspace_id: text(row.workspace_id),
  name: text(row.name),
  slug: text(row.slug),
  published_version: int(row.published_version),
  created_at: iso(row.created_at),
  last_updated_at: iso(row.last_updated_at)
})

const promptFrom = (row: Row) => new Prompt(versionedFrom(row))

const versionFrom = (row: Row) =>
  new PromptVersion({
    id: text(row.id),
    prompt_id: text(row.prompt_id),
    version: int(row.version),
    string: text(row.string),
    parameters: json(row.parameters) as Record<string, unknown>,
    model: textOrNull(row.model),
    type: text(row.type) as PromptVersion["type"],
    is_raw_template: row.is_raw_template === true,
    version_description: textOrNull(row.version_description),
    template_metadata: json(row.template_metadata) as Record<string, unknown>,
    created_at: iso(row.created_at)
  })

const labelFrom = (row: Row) =>
  new PromptLabel({
    prompt_id: text(row.prompt_id),
    label: text(row.label),
    version: int(row.version),
    last_updated_at: iso(row.last_updated_at)
  })

const partialFrom = (row: Row) => new Partial(versionedFrom(row))

const partialVersionFrom = (row: Row) =>
  new PartialVersion({
    id: text(row.id),
    partial_id: text(row.partial_id),
    version: int(row.version),
    string: text(row.string),
    version_description: textOrNull(row.version_description),
    created_at: iso(row.created_at)
  })

export const makePromptStores = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const read = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A> => Effect.orDie(effect)
  const inTransaction = <A, E>(effect: Effect.Effect<A, E | SqlError>) =>
    sql.withTransaction(effect) as Effect.Effect<A, E | SqlError>

  const insertVersion = (v: PromptVersion) =>
    sql`INSERT INTO prompt_versions (id, prompt_id, version, string, parameters, model, type, is_raw_template,
                                     version_description, template_metadata, created_at)
        VALUES (${v.id}, ${v.prompt_id}, ${v.version}, ${v.string}, ${toJson(v.parameters)}::jsonb, ${v.model},
                ${v.type}, ${v.is_raw_template}, ${v.version_description}, ${toJson(v.template_metadata)}::jsonb,
                ${v.created_at})`

  const scoped = (organisationId: string, workspaceId: string | null) =>
    workspaceId === null
      ? sql`organisation_id = ${organisationId}`
      : sql`organisation_id = ${organisationId} AND workspace_id = ${workspaceId}`

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
    get: (id) => read(Effect.map(sql<Row>`SELECT * FROM prompts WHERE id = ${id}`, (r) => first(r, promptFrom))),
    findBySlug: (organisationId, slug) =>
      read(Effect.map(
        sql<Row>`SELECT * FROM prompts WHERE organisation_id = ${organisationId} AND slug = ${slug}`,
        (rows) => rows.map(promptFrom)
      )),
    list: (organisationId, workspaceId, page) =>
      read(Effect.gen(function*() {
        const where = scoped(organisationId, workspaceId)
        const rows = yield* sql<Row>`SELECT *, count(*) OVER () AS total_count FROM prompts WHERE ${where}
                                     ORDER BY created_at, id LIMIT ${page.limit} OFFSET ${page.offset}`
        if (rows.length > 0 || page.offset === 0) return toPage(rows, promptFrom)
        const counted = yield* sql<Row>`SELECT count(*) AS n FROM prompts WHERE ${where}`
        return { items: [], total: int(counted[0].n) }
      })),
    getVersion: (promptId, version) =>
      read(Effect.map(
        sql<Row>`SELECT * FROM prompt_versions WHERE prompt_id = ${promptId} AND version = ${version}`,
        (r) => first(r, versionFrom)
      )),
    latestVersion: (promptId) =>
      read(Effect.map(
        sql<Row>`SELECT * FROM prompt_versions WHERE prompt_id = ${promptId} ORDER BY version DESC LIMIT 1`,
        (r) => first(r, versionFrom)
      )),
    versions: (promptId) =>
      read(Effect.map(
        sql<Row>`SELECT * FROM prompt_versions WHERE prompt_id = ${promptId} ORDER BY version`,
        (rows) => rows.map(versionFrom)
      )),
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
    labels: (promptId) =>
      read(Effect.map(
        sql<Row>`SELECT * FROM prompt_labels WHERE prompt_id = ${promptId} ORDER BY label`,
        (rows) => rows.map(labelFrom)
      )),
    delete: (id) =>
      read(Effect.map(sql<Row>`DELETE FROM prompts WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0))
  })

  const insertPartialVersion = (v: PartialVersion) =>
    sql`INSERT INTO prompt_partial_versions (id, partial_id, version, string, version_description, created_at)
        VALUES (${v.id}, ${v.partial_id}, ${v.version}, ${v.string}, ${v.version_description}, ${v.created_at})`

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
    get: (id) =>
      read(Effect.map(sql<Row>`SELECT * FROM prompt_partials WHERE id = ${id}`, (r) => first(r, partialFrom))),
    findBySlug: (workspaceId, slug) =>
      read(Effect.map(
        sql<Row>`SELECT * FROM prompt_partials WHERE workspace_id = ${workspaceId} AND slug = ${slug}`,
        (r) => first(r, partialFrom)
      )),
    list: (organisationId, workspaceId, page) =>
      read(Effect.gen(function*() {
        const where = scoped(organisationId, workspaceId)
        const rows = yield* sql<Row>`SELECT *, count(*) OVER () AS total_count FROM prompt_partials WHERE ${where}
                                     ORDER BY created_at, id LIMIT ${page.limit} OFFSET ${page.offset}`
        if (rows.length > 0 || page.offset === 0) return toPage(rows, partialFrom)
        const counted = yield* sql<Row>`SELECT count(*) AS n FROM prompt_partials WHERE ${where}`
        return { items: [], total: int(counted[0].n) }
      })),
    getVersion: (partialId, version) =>
      read(Effect.map(
        sql<Row>`SELECT * FROM prompt_partial_versions WHERE partial_id = ${partialId} AND version = ${version}`,
        (r) => first(r, partialVersionFrom)
      )),
    setPublished: (partialId, version, at) =>
      read(Effect.asVoid(
        sql`UPDATE prompt_partials SET published_version = ${version}, last_updated_at = ${at} WHERE id = ${partialId}`
      ))
  })

  return Context.make(PromptStore, prompts).pipe(Context.add(PartialStore, partials))
})
