export * from "./ConsoleAssets.ts"
export * from "./ConsoleRoutes.ts"
