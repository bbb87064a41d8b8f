export * from "./App.ts"
export * from "./AppConfig.ts"
