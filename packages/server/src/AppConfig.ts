/**
 * Configuration, read from the environment once at start. Invalid values stop the process with a
 * message naming the variable.
 */
import { Config, type LogLevel } from "effect"

export const StoreKind = ["memory"] as const
export type StoreKind = (typeof StoreKind)[number]

const LogLevels = {
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  error: "Error",
  fatal: "Fatal",
  none: "None"
} as const satisfies Record<string, LogLevel.LogLevel>

export interface AppConfig {
  readonly host: string
  readonly port: number
  readonly store: StoreKind
  readonly maxBodyBytes: number
  readonly logLevel: LogLevel.LogLevel
  readonly shutdownTimeoutMs: number
}

export const AppConfig: Config.Config<AppConfig> = Config.all({
  host: Config.String("HOST").pipe(Config.withDefault("127.0.0.1")),
  port: Config.Port("PORT").pipe(Config.withDefault(8787)),
  store: Config.Literals(StoreKind, "GATEWAY_STORE").pipe(Config.withDefault<StoreKind>("memory")),
  maxBodyBytes: Config.Int("MAX_BODY_BYTES").pipe(Config.withDefault(1024 * 1024)),
  logLevel: Config.Literals(Object.keys(LogLevels) as Array<keyof typeof LogLevels>, "LOG_LEVEL").pipe(
    Config.withDefault<keyof typeof LogLevels>("info"),
    Config.map((name) => LogLevels[name])
  ),
  shutdownTimeoutMs: Config.Int("SHUTDOWN_TIMEOUT_MS").pipe(Config.withDefault(20_000))
})
