export * from "./Migrations.ts"
export * from "./PgChangeFeed.ts"
export * as PgliteClient from "./PgliteClient.ts"
export * from "./SqlStoreLayer.ts"
