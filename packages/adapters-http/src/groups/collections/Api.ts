import { Collection, CreateCollection, UpdateCollection } from "@gateway-control/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { byRef, createEndpoint, deletedOf, listOf, PagingQuery, v1Group } from "../Common.ts"

export const CollectionDetails = Schema.Struct({ ...Collection.fields, object: Schema.Literal("collection") })

const CollectionRef = { collectionId: Schema.String }

export class CollectionsGroup extends v1Group(
  HttpApiGroup.make("collections")
    .add(
      createEndpoint("create", "/collections", CreateCollection, CollectionDetails).annotate(
        OpenApi.Description,
        "Creates a collection in a workspace (workspace_id, an id or slug; by default the key's), optionally inside a parent collection of that workspace."
      ),
      HttpApiEndpoint.get("list", "/collections", {
        query: {
          workspace_id: Schema.optionalKey(Schema.String),
          search: Schema.optionalKey(Schema.String.annotate({ description: "Part of the name, any case." })),
          ...PagingQuery
        },
        success: listOf(CollectionDetails),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "The workspace's collections (workspace_id, by default the key's; an admin key naming none lists every workspace's)."
      ),
      HttpApiEndpoint.get("get", "/collections/:collectionId", byRef(CollectionRef, CollectionDetails)),
      HttpApiEndpoint.put("update", "/collections/:collectionId", {
        ...byRef(CollectionRef, CollectionDetails),
        payload: UpdateCollection
      }).annotate(OpenApi.Description, "Renames the collection."),
      HttpApiEndpoint.delete("delete", "/collections/:collectionId", byRef(CollectionRef, deletedOf("collection")))
        .annotate(
          OpenApi.Description,
          "Deletes an empty collection: one holding prompts, partials or collections, and a workspace's default collection, answer 409."
        )
    )
) {}
