/**
 * The `gateway-control` command-line program.
 */
import { migrate } from "@gateway-control/adapters-sql"
import { AlreadyBootstrapped, Audit, Bootstrap, InvalidRequest } from "@gateway-control/domain"
import { Console, Effect, Layer, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { layerConfiguredDomain, layerLogging, layerServe, layerSqlClient } from "./App.ts"
import { type AppConfig, InvalidConfiguration, loadConfig } from "./AppConfig.ts"

type UserFacingError = AlreadyBootstrapped | InvalidRequest | InvalidConfiguration

const isUserFacing = (e: unknown): e is UserFacingError =>
  e instanceof AlreadyBootstrapped || e instanceof InvalidRequest || e instanceof InvalidConfiguration

/** Failures a user can fix are printed as one line with a non-zero exit code, not as a stack trace. */
const userFacing = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(effect, isUserFacing, (error) =>
    Effect.andThen(
      Console.error(`gateway-control: ${(error as UserFacingError).message}`),
      Effect.sync(() => {
        process.exitCode = 1
      })
    ))

/** The domain over the configured store, with logging: what every command but `serve` runs in. */
const layerCommand = (config: AppConfig) =>
  layerConfiguredDomain(config).pipe(Layer.provideMerge(layerLogging(config.logLevel)))

const serve = Command.make("serve", {}, () =>
  userFacing(Effect.gen(function*() {
    const config = yield* loadConfig
    return yield* Layer.launch(layerServe(config))
  }))).pipe(Command.withDescription("Serve the API (migrates the store, and bootstraps it when empty)."))

const bootstrap = Command.make(
  "bootstrap",
  {
    organisationName: Flag.String("organisation-name").pipe(Flag.withDescription("Name of the organisation to create")),
    ownerEmail: Flag.String("owner-email").pipe(Flag.withDescription("Email of the organisation's owner"))
  },
  ({ organisationName, ownerEmail }) =>
    userFacing(Effect.gen(function*() {
      const config = yield* loadConfig
      const result = yield* Effect.flatMap(Effect.service(Bootstrap), (b) => b.run({ organisationName, ownerEmail }))
        .pipe(Effect.provide(layerCommand(config)))
      yield* Console.log(JSON.stringify({
        organisation_id: result.organisation_id,
        workspace_id: result.workspace_id,
        user_id: result.user_id,
        api_key: Redacted.value(result.api_key)
      }))
      if (config.store.kind === "memory") {
        yield* Console.error("gateway-control: note: GATEWAY_STORE=memory keeps nothing after this command exits.")
      }
    }))
).pipe(Command.withDescription("Create the first organisation, its owner, a default workspace and an admin key."))

const migrateCommand = Command.make("migrate", {}, () =>
  userFacing(Effect.gen(function*() {
    const config = yield* loadConfig
    if (config.store.kind === "memory") {
      return yield* new InvalidConfiguration({ message: "GATEWAY_STORE=memory has no schema to migrate." })
    }
    const applied = yield* migrate.pipe(
      Effect.provide(layerSqlClient(config.store)),
      // A locked data directory is the user's to resolve; SQL and migration failures are faults.
      Effect.catchIf((error) => !(error instanceof InvalidConfiguration), Effect.die)
    )
    yield* Console.log(
      JSON.stringify({ store: config.store.kind, newly_applied: applied.map(([id, name]) => `${id}_${name}`) })
    )
  }))).pipe(Command.withDescription("Run the store's pending migrations, then exit."))

const auditVerify = Command.make("verify", {}, () =>
  userFacing(Effect.gen(function*() {
    const config = yield* loadConfig
    const verdict = yield* Effect.flatMap(Effect.service(Audit), (audit) => audit.verify).pipe(
      Effect.provide(layerCommand(config))
    )
    if (verdict.ok) {
      yield* Console.log(`ok: ${verdict.count} audit record${verdict.count === 1 ? "" : "s"}, chain intact`)
      return
    }
    yield* Console.log(
      `broken: record ${verdict.seq} (${verdict.id}): ${verdict.reason}; the ${verdict.count} records before it are intact`
    )
    process.exitCode = 1
  }))).pipe(Command.withDescription("Walk the audit log's hash chain and report the first broken link."))

const audit = Command.make("audit").pipe(
  Command.withDescription("Audit log tools."),
  Command.withSubcommands([auditVerify])
)

export const cli = Command.make("gateway-control").pipe(
  Command.withDescription("Control plane of an LLM API gateway."),
  Command.withSubcommands([serve, bootstrap, migrateCommand, audit]),
  Command.run({ version: "0.1.0" })
)
