/**
 * The `gateway-control` command-line program.
 */
import {
  AlreadyBootstrapped,
  Audit,
  AuditChainBroken,
  AuditCheckpoint,
  InvalidRequest,
  MasterKeyMismatch,
  StoreError
} from "@gateway-control/domain"
import { Console, Effect, Layer, Option, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import {
  bootstrapStore,
  layerConfiguredDomain,
  layerLogging,
  layerServe,
  layerSqlClient,
  loadSqlAdapters
} from "./App.ts"
import { type AppConfig, loadConfig } from "./AppConfig.ts"
import { describeServeError, probeListen } from "./internal/ListenErrors.ts"
import { asOperator } from "./internal/Operator.ts"
import { announceServing } from "./internal/Serving.ts"
import { InvalidConfiguration } from "./Settings.ts"

// A store that cannot answer is the operator's to fix (start the database, check DATABASE_URL): one line too.
// So is a master key other than the store's (set the store's GATEWAY_MASTER_KEY).
type UserFacingError =
  | AlreadyBootstrapped
  | InvalidRequest
  | InvalidConfiguration
  | AuditChainBroken
  | StoreError
  | MasterKeyMismatch

const isUserFacing = (e: unknown): e is UserFacingError =>
  e instanceof AlreadyBootstrapped || e instanceof InvalidRequest || e instanceof InvalidConfiguration ||
  e instanceof AuditChainBroken || e instanceof StoreError || e instanceof MasterKeyMismatch

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
    const address = { host: config.host, port: config.port }
    // Before the store opens: a first start would otherwise migrate and bootstrap it, then stop at the port.
    yield* probeListen(address)
    return yield* Effect.scoped(
      Layer.build(layerServe(config)).pipe(Effect.andThen(announceServing(address)), Effect.andThen(Effect.never))
    ).pipe(
      Effect.catchTag("ServeError", (error) => Effect.fail(describeServeError(error, address)))
    )
  }))).pipe(
    Command.withDescription("Serve the API (migrates the store, and bootstraps it when empty).")
  )

const bootstrap = Command.make(
  "bootstrap",
  {
    organisationName: Flag.String("organisation-name").pipe(Flag.withDescription("Name of the organisation to create")),
    ownerEmail: Flag.String("owner-email").pipe(Flag.withDescription("Email of the organisation's owner"))
  },
  ({ organisationName, ownerEmail }) =>
    userFacing(Effect.gen(function*() {
      const config = yield* loadConfig
      const result = yield* bootstrapStore({ organisationName, ownerEmail }).pipe(
        Effect.provide(layerCommand(config)),
        asOperator("bootstrap")
      )
      yield* Console.log(JSON.stringify(result))
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
    const applied = yield* Effect.flatMap(loadSqlAdapters, (sql) => sql.migrate).pipe(
      Effect.provide(layerSqlClient(config.store)),
      // A locked data directory is the user's to resolve; SQL and migration failures are faults.
      Effect.catchIf((error) => !(error instanceof InvalidConfiguration), Effect.die)
    )
    yield* Console.log(
      JSON.stringify({ store: config.store.kind, newly_applied: applied.map(([id, name]) => `${id}_${name}`) })
    )
  }))).pipe(Command.withDescription("Run the store's pending migrations, then exit."))

/** A checkpoint file as `audit checkpoint` wrote it. */
const parseCheckpoint = (text: string) =>
  Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => undefined }).pipe(
    Effect.flatMap(Schema.decodeUnknownEffect(AuditCheckpoint)),
    Effect.mapError(() =>
      InvalidRequest.of(
        "The checkpoint file does not hold a checkpoint: expected the JSON line `audit checkpoint` printed.",
        "checkpoint"
      )
    )
  )

const plural = (n: number) => `${n} audit record${n === 1 ? "" : "s"}`
const chains = (n: number) => `${n} chain${n === 1 ? "" : "s"}`

const auditVerify = Command.make(
  "verify",
  {
    checkpoint: Flag.FileText("checkpoint").pipe(
      Flag.optional,
      Flag.withDescription("A file holding what `audit checkpoint` printed: also check the chain still reaches it")
    )
  },
  ({ checkpoint }) =>
    userFacing(Effect.gen(function*() {
      const config = yield* loadConfig
      const pinned = Option.isSome(checkpoint) ? yield* parseCheckpoint(checkpoint.value) : undefined
      const verdict = yield* Effect.flatMap(Effect.service(Audit), (audit) => audit.verify(pinned)).pipe(
        Effect.provide(layerCommand(config))
      )
      if (verdict.ok) {
        const reached = pinned === undefined
          ? ""
          : `; it reaches the checkpoint of ${pinned.at} (${plural(pinned.count)})`
        yield* Console.log(`ok: ${plural(verdict.count)} in ${chains(verdict.heads.length)}, all intact${reached}`)
        if (verdict.legacy > 0) {
          yield* Console.error(
            `gateway-control: note: the first ${plural(verdict.legacy)} predate the keyed chain (plain SHA-256); ` +
              "the keyed record the upgrade wrote names them, and the keyed records after them pin them."
          )
        }
        return
      }
      yield* Console.log(
        verdict.record === undefined
          ? `broken: ${verdict.reason}`
          : `broken: record ${verdict.record.seq} of chain ${verdict.record.chain} (${verdict.record.id}): ` +
            `${verdict.reason}; the ${verdict.count} records walked before it are intact`
      )
      process.exitCode = 1
    }))
).pipe(
  Command.withDescription(
    "Walk the audit log's hash chains and report the first broken link; with --checkpoint, also records removed since."
  )
)

const auditCheckpoint = Command.make("checkpoint", {}, () =>
  userFacing(Effect.gen(function*() {
    const config = yield* loadConfig
    const checkpoint = yield* Effect.flatMap(Effect.service(Audit), (audit) => audit.checkpoint).pipe(
      Effect.provide(layerCommand(config))
    )
    yield* Console.log(JSON.stringify(checkpoint))
  }))).pipe(
    Command.withDescription(
      "Verify the chains, then print a signed {count, heads, at}: keep it away from the database, and pass it " +
        "to `audit verify --checkpoint` later."
    )
  )

const auditUnauthenticated = Command.make(
  "unauthenticated",
  { limit: Flag.Int("limit").pipe(Flag.withDefault(100), Flag.withDescription("How many records, newest first")) },
  ({ limit }) =>
    userFacing(Effect.gen(function*() {
      const config = yield* loadConfig
      if (limit < 1 || limit > 10_000) return yield* InvalidRequest.of("--limit must be 1 to 10000.", "limit")
      const page = yield* Effect.flatMap(
        Effect.service(Audit),
        (audit) => audit.listUnauthenticated({ limit, offset: 0 })
      ).pipe(Effect.provide(layerCommand(config)))
      for (const record of page.items) yield* Console.log(JSON.stringify(record))
    }))
).pipe(
  Command.withDescription(
    "Print the audit records of calls made with no key this gateway knows (they belong to no organisation)."
  )
)

const audit = Command.make("audit").pipe(
  Command.withDescription("Audit log tools."),
  Command.withSubcommands([auditVerify, auditCheckpoint, auditUnauthenticated])
)

export const cli = Command.make("gateway-control").pipe(
  Command.withDescription("Control plane of an LLM API gateway."),
  Command.withSubcommands([serve, bootstrap, migrateCommand, audit]),
  Command.run({ version: "0.1.0" })
)
