export * from "./Migrations.ts"
export * as PgliteClient from "./PgliteClient.ts"
export * from "./SqlStore.ts"
export * from "./SqlStores.ts"
