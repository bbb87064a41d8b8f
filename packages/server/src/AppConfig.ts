/**
 * The configuration, decoded once through the settings table (Settings.ts): from the environment for
 * `gateway-control serve` and the CLI, or from options for an embedded engine. Invalid values fail with an
 * `InvalidConfiguration` naming the variable or the option.
 */
import type { IdentityProviderSettings } from "@gateway-control/domain"
import { Config, Effect, Option, type Redacted, Result } from "effect"
import {
  decodeSettings,
  InvalidConfiguration,
  isOption,
  type SettingName,
  settings,
  type SettingsSource,
  type SettingValues,
  type StoreKind
} from "./Settings.ts"

/** Where and how to store: chosen by `GATEWAY_STORE`, else PostgreSQL when `DATABASE_URL` is set, else PGlite. */
export type StoreConfig =
  | { readonly kind: "memory" }
  | { readonly kind: "pglite"; readonly dataDir: string }
  | {
    readonly kind: "postgres"
    readonly url: Redacted.Redacted<string>
    /** Where the change feed listens (`DATABASE_LISTEN_URL`); `url` when absent. */
    readonly listenUrl?: Redacted.Redacted<string> | undefined
    readonly poolSize: number
    readonly statementTimeoutMs: number
    readonly connectTimeoutMs: number
  }

/** Every setting as decoded, with the store settings resolved into one store. */
export interface AppConfig extends
  Omit<
    SettingValues,
    "store" | "url" | "listenUrl" | "poolSize" | "statementTimeoutMs" | "connectTimeoutMs"
  >
{
  readonly store: StoreConfig
  /** Sign-in: the public URL and the operator's identity provider (`OIDC_*`), checked together. */
  readonly signIn: IdentityProviderSettings["Service"]
}

/** The operator's provider needs its issuer, client id and secret together; any one alone is a mistake. */
const resolveSignIn = (
  values: SettingValues,
  source: ConfigSource
): Result.Result<IdentityProviderSettings["Service"], InvalidConfiguration> => {
  const publicUrl = Option.getOrNull(values.publicUrl)
  if (
    Option.isNone(values.oidcIssuer) && Option.isNone(values.oidcClientId) && Option.isNone(values.oidcClientSecret)
  ) return Result.succeed({ publicUrl, operatorProvider: null })
  if (
    Option.isNone(values.oidcIssuer) || Option.isNone(values.oidcClientId) || Option.isNone(values.oidcClientSecret)
  ) {
    const given = {
      oidcIssuer: values.oidcIssuer,
      oidcClientId: values.oidcClientId,
      oidcClientSecret: values.oidcClientSecret
    }
    const missing = (["oidcIssuer", "oidcClientId", "oidcClientSecret"] as const).filter((name) =>
      given[name]._tag === "None"
    )
    return Result.fail(
      new InvalidConfiguration({
        message: `An identity provider needs ${source.nameOf("oidcIssuer")}, ${source.nameOf("oidcClientId")} and ${
          source.nameOf("oidcClientSecret")
        } together: ${missing.map(source.nameOf).join(", ")} missing.`,
        setting: source.nameOf(missing[0]!)
      })
    )
  }
  return Result.succeed({
    publicUrl,
    operatorProvider: {
      issuer: values.oidcIssuer.value,
      clientId: values.oidcClientId.value,
      clientSecret: values.oidcClientSecret.value,
      groupsClaim: values.oidcGroupsClaim,
      roleMap: values.oidcRoleMap,
      allowedDomains: values.oidcAllowedDomains
    }
  })
}

/** A source of settings, and how its messages write "this setting has this value". */
interface ConfigSource extends SettingsSource {
  readonly assignment: (setting: SettingName, value: StoreKind) => string
}

const resolveStore = (
  values: SettingValues,
  source: ConfigSource
): Result.Result<StoreConfig, InvalidConfiguration> => {
  const kind = Option.getOrElse(values.store, (): StoreKind => (Option.isSome(values.url) ? "postgres" : "pglite"))
  switch (kind) {
    case "memory":
      return Result.succeed({ kind })
    case "pglite":
      return Result.succeed({ kind, dataDir: values.dataDir })
    case "postgres":
      return Option.isSome(values.url)
        ? Result.succeed({
          kind,
          url: values.url.value,
          listenUrl: Option.getOrUndefined(values.listenUrl),
          poolSize: values.poolSize,
          statementTimeoutMs: values.statementTimeoutMs,
          connectTimeoutMs: values.connectTimeoutMs
        })
        : Result.fail(
          new InvalidConfiguration({
            message: `${source.assignment("store", "postgres")} needs ${
              source.nameOf("url")
            } (postgres://user@host:5432/db).`,
            setting: source.nameOf("url")
          })
        )
  }
}

/** An idle timeout longer than the absolute one would never apply: a mistake, refused. */
const checkSessionTimeouts = (
  values: SettingValues,
  source: ConfigSource
): Result.Result<SettingValues, InvalidConfiguration> =>
  values.sessionIdleTimeoutMs <= values.sessionAbsoluteTimeoutMs
    ? Result.succeed(values)
    : Result.fail(
      new InvalidConfiguration({
        message: `${source.nameOf("sessionIdleTimeoutMs")} (${values.sessionIdleTimeoutMs}) must not be longer than ${
          source.nameOf("sessionAbsoluteTimeoutMs")
        } (${values.sessionAbsoluteTimeoutMs}).`,
        setting: source.nameOf("sessionIdleTimeoutMs")
      })
    )

const decodeConfig = (source: ConfigSource): Result.Result<AppConfig, InvalidConfiguration> =>
  Result.flatMap(
    Result.flatMap(decodeSettings(source), (values) => checkSessionTimeouts(values, source)),
    (values) =>
      Result.map(Result.all([resolveStore(values, source), resolveSignIn(values, source)]), ([store, signIn]) => {
        const {
          connectTimeoutMs: _connect,
          poolSize: _poolSize,
          statementTimeoutMs: _statement,
          store: _kind,
          url: _url,
          listenUrl: _listenUrl,
          ...rest
        } = values
        return { ...rest, store, signIn }
      })
  )

const variables = Config.all(
  Object.fromEntries(
    Object.entries(settings).flatMap(([name, setting]) =>
      setting.env === undefined ? [] : [[name, Config.option(Config.String(setting.env))]]
    )
  )
)

/** The configuration from the environment; a bad or contradictory value fails with a message naming it. */
export const loadConfig: Effect.Effect<AppConfig, InvalidConfiguration> = Effect.gen(function*() {
  const texts = yield* Effect.mapError(
    variables,
    (error) => new InvalidConfiguration({ message: `Invalid configuration: ${error.message}` })
  )
  const variableOf = (name: SettingName) => settings[name].env ?? name
  return yield* Effect.fromResult(decodeConfig({
    read: (name) => {
      const text = Option.getOrUndefined(texts[name] ?? Option.none())
      return text === undefined || text.trim().length === 0 ? undefined : settings[name].fromText(text)
    },
    nameOf: variableOf,
    assignment: (name, value) => `${variableOf(name)}=${value}`
  }))
})

/**
 * The configuration from embedding options: the same settings, defaults and rules as the environment's,
 * named as options. An option that is not one fails too, so a misspelt one is not silently ignored.
 */
export const configFromOptions = (options: object): Result.Result<AppConfig, InvalidConfiguration> => {
  const given = new Map<string, unknown>(Object.entries(options))
  for (const name of given.keys()) {
    if (!isOption(name)) {
      return Result.fail(new InvalidConfiguration({ message: `There is no option '${name}'.`, setting: name }))
    }
  }
  return decodeConfig({
    read: (name) => given.get(name),
    nameOf: (name) => name,
    assignment: (name, value) => `${name}: "${value}"`
  })
}
