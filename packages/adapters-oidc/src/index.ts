export * from "./OpenIdClient.ts"
