export * from "./MemoryStore.ts"
