/**
 * The build function of a group's handlers, given the domain services they call. `HttpApiBuilder.group` types
 * `handlers` from the group it names; the services are looked up once, when the group's layer is built.
 *
 * `HttpApiBuilder.group(GatewayApi, "users", withService(Users, (handlers, users) => handlers.handleAll(…)))`
 */
import { type Context, Effect } from "effect"

export const withServices = <Services, E, R, Handlers, Return>(
  services: Effect.Effect<Services, E, R>,
  build: (handlers: Handlers, services: Services) => Return
) =>
(handlers: Handlers) => Effect.map(services, (found) => build(handlers, found))

/** `withServices` for a group that calls one service. */
export const withService = <I, Service, Handlers, Return>(
  key: Context.Key<I, Service>,
  build: (handlers: Handlers, service: Service) => Return
) => withServices(Effect.service(key), build)
