/**
 * Embedding options are the configuration table's settings under option names: decoded through the same
 * table as the environment, so the same defaults and the same rules, and an invalid one is refused with
 * `InvalidConfiguration` naming the option.
 */
import { ConfigProvider, Effect, Layer, Redacted, Result } from "effect"
import { describe, expect, it } from "vitest"
import { type AppConfig, configFromOptions, loadConfig } from "../src/AppConfig.ts"
import { createGatewayControl, GatewayControl, type GatewayControlOptions, InvalidConfiguration } from "../src/index.ts"

const fromEnv = (env: Record<string, string>) =>
  Effect.runPromise(
    loadConfig.pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env })))
  )

const fromOptions = (options: object): AppConfig => Result.getOrThrow(configFromOptions(options))

/** The secrets as their values, so that two configurations can be compared. */
const comparable = (config: AppConfig) => ({
  ...config,
  masterKey: config.masterKey.pipe((key) => key._tag === "Some" ? [...Redacted.value(key.value)] : null),
  redisUrl: config.redisUrl.pipe((url) => url._tag === "Some" ? Redacted.value(url.value) : null),
  store: config.store.kind === "postgres" ? { ...config.store, url: Redacted.value(config.store.url) } : config.store
})

describe("embedding options and the environment", () => {
  it("have the same defaults", async () => {
    expect(comparable(fromOptions({}))).toEqual(comparable(await fromEnv({})))
    expect(fromOptions({}).store).toEqual({ kind: "pglite", dataDir: "./.gateway-data" })
  })

  it("decode the same values alike, each in its own form", async () => {
    const key = Buffer.alloc(32, 7).toString("base64")
    const env = await fromEnv({
      GATEWAY_STORE: "postgres",
      DATABASE_URL: "postgres://u@db:5432/x",
      DATABASE_POOL_SIZE: "3",
      MAX_BODY_BYTES: "2048",
      MAX_RENDER_BYTES: "4096",
      MAX_RENDER_STEPS: "5000",
      LOG_LEVEL: "warn",
      TRUST_PROXY: "loopback, 10.0.0.0/8",
      GATEWAY_MASTER_KEY: key,
      UPSTREAM_TIMEOUT_MS: "1500",
      TRUSTED_CUSTOM_HOSTS: "Models.Internal, gpu:8443",
      PROVIDER_BASE_URLS: "openai=https://proxy.internal/v1",
      REDIS_URL: "redis://cache:6379",
      SESSION_IDLE_TIMEOUT_MS: "900000",
      SESSION_ABSOLUTE_TIMEOUT_MS: "28800000"
    })
    const options = fromOptions(
      {
        store: "postgres",
        url: Redacted.make("postgres://u@db:5432/x"),
        poolSize: 3,
        maxBodyBytes: 2048,
        maxRenderBytes: 4096,
        maxRenderSteps: 5000,
        logLevel: "warn",
        trustProxy: ["loopback", "10.0.0.0/8"],
        masterKey: key,
        upstreamTimeoutMs: 1500,
        trustedCustomHosts: ["Models.Internal", " gpu:8443"],
        providerBaseUrls: { openai: "https://proxy.internal/v1" },
        redisUrl: "redis://cache:6379",
        sessionIdleTimeoutMs: 900_000,
        sessionAbsoluteTimeoutMs: 28_800_000
      } satisfies GatewayControlOptions
    )
    expect(comparable(options)).toEqual(comparable(env))
    expect(options.trustedCustomHosts).toEqual(["models.internal", "gpu:8443"])
    expect(options.logLevel).toBe("Warn")
    expect([options.sessionIdleTimeoutMs, options.sessionAbsoluteTimeoutMs]).toEqual([900_000, 28_800_000])
  })

  it("choose PostgreSQL when a url is given with no store, as DATABASE_URL does", () => {
    expect(fromOptions({ url: "postgres://u@db/x" }).store).toMatchObject({ kind: "postgres", poolSize: 10 })
  })
})

const refusal = (options: object) => {
  const decoded = configFromOptions(options)
  if (Result.isSuccess(decoded)) throw new Error(`accepted ${JSON.stringify(options)}`)
  return decoded.failure
}

describe("an invalid option", () => {
  it.each([
    [{ maxBodyBytes: 0 }, "maxBodyBytes", "maxBodyBytes must be at least 1."],
    [{ maxRenderBytes: 1.5 }, "maxRenderBytes", "maxRenderBytes must be a whole number."],
    [{ maxRenderSteps: 0 }, "maxRenderSteps", "maxRenderSteps must be at least 1."],
    [{ maxRenderSteps: "1000" }, "maxRenderSteps", "maxRenderSteps must be a whole number."],
    [{ upstreamTimeoutMs: "30" }, "upstreamTimeoutMs", "upstreamTimeoutMs must be a whole number."],
    [{ poolSize: 0, url: "postgres://db/x" }, "poolSize", "poolSize must be at least 1."],
    [{ store: "sqlite" }, "store", "store must be one of memory, pglite, postgres."],
    [{ store: "postgres" }, "url", "store: \"postgres\" needs url (postgres://user@host:5432/db)."],
    [{ masterKey: "c2hvcnQ=" }, "masterKey", "masterKey must hold 32 bytes in base64 (openssl rand -base64 32)."],
    [{ logLevel: "Info" }, "logLevel", "logLevel must be one of trace, debug, info, warn, error, fatal, none."],
    [{ basePath: "gateway" }, "basePath", undefined],
    [{ basePath: "/gate?x" }, "basePath", undefined],
    [{ trustedCustomHosts: "a.example" }, "trustedCustomHosts", undefined],
    [{ providerBaseUrls: { openai: "https://user:pw@proxy/v1" } }, "providerBaseUrls", undefined],
    [{ redisUrl: "cache:6379" }, "redisUrl", "redisUrl must be a Redis URL (redis://host:6379 or rediss://...)."],
    [{ sessionIdleTimeoutMs: 999 }, "sessionIdleTimeoutMs", "sessionIdleTimeoutMs must be at least 1000."],
    [
      { sessionAbsoluteTimeoutMs: "1h" },
      "sessionAbsoluteTimeoutMs",
      "sessionAbsoluteTimeoutMs must be a whole number."
    ],
    [
      { sessionIdleTimeoutMs: 7_200_000, sessionAbsoluteTimeoutMs: 3_600_000 },
      "sessionIdleTimeoutMs",
      "sessionIdleTimeoutMs (7200000) must not be longer than sessionAbsoluteTimeoutMs (3600000)."
    ],
    [{ maxBodyByte: 10 }, "maxBodyByte", "There is no option 'maxBodyByte'."],
    [{ port: 8080 }, "port", "There is no option 'port'."]
  ])("%j is refused, naming %s", (options, setting, message) => {
    const error = refusal(options)
    expect(error).toBeInstanceOf(InvalidConfiguration)
    expect(error.setting).toBe(setting)
    if (message !== undefined) expect(error.message).toBe(message)
    else expect(error.message.startsWith(`${setting} `)).toBe(true)
  })

  it("names the option in TRUST_PROXY's message", () => {
    for (const trustProxy of ["10.0.0.300", -1, 1.5, ["loopback", "nope"]]) {
      expect(refusal({ trustProxy })).toMatchObject({
        setting: "trustProxy",
        message: expect.stringMatching(/^trustProxy takes false, true .* got '/)
      })
    }
  })

  it("never shows the master key it refuses", () => {
    expect(refusal({ masterKey: "not-a-key-at-all" }).message).not.toContain("not-a-key-at-all")
  })

  it("rejects createGatewayControl with the typed error, and fails GatewayControl.layer with it", async () => {
    const rejected = await createGatewayControl({ store: "memory", maxBodyBytes: -1 }).then(
      () => undefined,
      (error: unknown) => error
    )
    expect(rejected).toBeInstanceOf(InvalidConfiguration)
    expect(rejected).toMatchObject({ setting: "maxBodyBytes" })
    const failed = await Effect.runPromise(
      Effect.flip(Layer.build(GatewayControl.layer({ store: "memory", maxRenderBytes: 0 })).pipe(Effect.scoped))
    )
    expect(failed).toBeInstanceOf(InvalidConfiguration)
    expect(failed).toMatchObject({ setting: "maxRenderBytes" })
  })
})
