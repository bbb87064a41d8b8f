/**
 * Collections on `effect/sql`: unique by slug in their workspace, one default per workspace (a partial unique
 * index); what one holds is counted in the prompt, partial and collection tables.
 */
import { Collection, CollectionStore } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { likePattern, queriesOn } from "./internal/queries.ts"
import { Int, timestamps } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const CollectionRow = Collection.mapFields((f) => ({ ...f, ...timestamps })).pipe(Schema.decodeTo(Collection))
const Counts = Schema.Struct({ prompts: Int, partials: Int, collections: Int })

export const makeCollectionStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { allBySlug, byId, bySlug, inScope, listing } = queriesOn(sql)
  const defaultOf = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: CollectionRow,
    execute: (workspaceId) => sql`SELECT * FROM collections WHERE workspace_id = ${workspaceId} AND is_default`
  })
  const contents = SqlSchema.findAll({
    Request: Schema.String,
    Result: Counts,
    execute: (id) =>
      sql`SELECT (SELECT count(*) FROM prompts WHERE collection_id = ${id}) AS prompts,
                 (SELECT count(*) FROM prompt_partials WHERE collection_id = ${id}) AS partials,
                 (SELECT count(*) FROM collections WHERE parent_collection_id = ${id}) AS collections`
  })
  return CollectionStore.of({
    insert: (c) =>
      write(sql`INSERT INTO collections (id, organisation_id, workspace_id, name, slug, parent_collection_id,
                  is_default, created_at, last_updated_at)
                VALUES (${c.id}, ${c.organisation_id}, ${c.workspace_id}, ${c.name}, ${c.slug},
                  ${c.parent_collection_id}, ${c.is_default}, ${c.created_at}, ${c.last_updated_at})`),
    update: (c) =>
      read(Effect.map(
        sql`UPDATE collections SET name = ${c.name}, last_updated_at = ${c.last_updated_at}
            WHERE id = ${c.id} RETURNING id`,
        (rows) => rows.length > 0
      )),
    get: byId("collections", CollectionRow),
    findBySlug: bySlug("collections", "workspace_id", CollectionRow),
    findAllBySlug: allBySlug("collections", CollectionRow),
    defaultOf: (workspaceId) => read(defaultOf(workspaceId)),
    list: (organisationId, workspaceId, search, page) =>
      listing(
        CollectionRow,
        "collections",
        search === null
          ? inScope(organisationId, workspaceId)
          : sql`${inScope(organisationId, workspaceId)} AND name ILIKE ${likePattern(search)}`,
        page
      ),
    // One row always: three counts.
    contents: (id) => read(Effect.map(contents(id), (rows) => rows[0]!)),
    delete: (id) =>
      read(Effect.map(sql`DELETE FROM collections WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0))
  })
})
