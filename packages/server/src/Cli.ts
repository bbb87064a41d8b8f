/**
 * The `gateway-control` command-line program.
 */
import { AlreadyBootstrapped, Bootstrap, InvalidRequest } from "@gateway-control/domain"
import { Console, Effect, Layer, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { layerDomain, layerLogging, layerServe, layerStore } from "./App.ts"
import { AppConfig } from "./AppConfig.ts"

/** Prints a user-facing failure and sets a non-zero exit code, instead of a stack trace. */
const failWith = (message: string) =>
  Effect.andThen(
    Console.error(`gateway-control: ${message}`),
    Effect.sync(() => {
      process.exitCode = 1
    })
  )

const serve = Command.make("serve", {}, () =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    return yield* Layer.launch(layerServe(config))
  })).pipe(Command.withDescription("Serve the API (bootstraps an empty store first)."))

const bootstrap = Command.make(
  "bootstrap",
  {
    organisationName: Flag.String("organisation-name").pipe(Flag.withDescription("Name of the organisation to create")),
    ownerEmail: Flag.String("owner-email").pipe(Flag.withDescription("Email of the organisation's owner"))
  },
  ({ organisationName, ownerEmail }) =>
    Effect.gen(function*() {
      const config = yield* AppConfig
      const bootstrap = yield* Bootstrap
      const result = yield* bootstrap.run({ organisationName, ownerEmail })
      yield* Console.log(
        JSON.stringify({
          organisation_id: result.organisation_id,
          workspace_id: result.workspace_id,
          user_id: result.user_id,
          api_key: Redacted.value(result.api_key)
        })
      )
      if (config.store === "memory") {
        yield* Console.error("gateway-control: note: GATEWAY_STORE=memory keeps nothing after this command exits.")
      }
    }).pipe(
      Effect.catchIf(
        (e): e is AlreadyBootstrapped | InvalidRequest =>
          e instanceof AlreadyBootstrapped || e instanceof InvalidRequest,
        (e) => failWith(e.message)
      ),
      Effect.provide(
        Layer.unwrap(
          Effect.gen(function*() {
            const config = yield* AppConfig
            return layerDomain(layerStore(config.store)).pipe(Layer.provideMerge(layerLogging(config.logLevel)))
          })
        )
      )
    )
).pipe(Command.withDescription("Create the first organisation, its owner, a default workspace and an admin key."))

export const cli = Command.make("gateway-control").pipe(
  Command.withDescription("Control plane of an LLM API gateway."),
  Command.withSubcommands([serve, bootstrap]),
  Command.run({ version: "0.1.0" })
)
