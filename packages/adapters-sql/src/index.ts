export * from "./Migrations.ts"
export * as PgliteClient from "./PgliteClient.ts"
export * from "./SqlStoreLayer.ts"
