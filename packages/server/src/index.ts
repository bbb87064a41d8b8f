/**
 * `@gateway-control/server`: the engine to embed in another service.
 *
 * - From Effect: `GatewayControl.layer(options)` provides the domain services on the chosen store.
 * - From plain TypeScript: `createGatewayControl(options)` gives an engine with `fetch`, `nodeHandler`,
 *   `bootstrap`, `run` and `close`.
 *
 * The domain services (`ApiKeys`, `Prompts`, …), their inputs and their errors are imported from
 * `@gateway-control/domain`, not re-exported here: each name then has one import path, and with the same
 * version as this package's (they are released together) npm installs one copy, which both use.
 *
 * The command line is `gateway-control` (`@gateway-control/server/cli`).
 */
export type { BootstrapOutput } from "./App.ts"
export {
  createGatewayControl,
  type FetchInfo,
  type GatewayControlEngine,
  type GatewayControlOptions,
  type HttpOptions
} from "./Engine.ts"
export * as GatewayControl from "./GatewayControl.ts"
export { InvalidConfiguration, type TrustProxyInput } from "./Settings.ts"
