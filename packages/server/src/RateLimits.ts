/**
 * Where keys' rate limits are counted: in this process (each process counts alone), or in Redis when
 * `REDIS_URL` is set, so that every process using that Redis enforces one shared limit.
 */
import { Effect, Layer, Option, Redacted } from "effect"
import { RateLimiter } from "effect/persistence"
import { InvalidConfiguration } from "./Settings.ts"

/** Counters in this process's memory. */
export const layerRateLimiterInMemory = RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory))

/**
 * Counters in Redis, under one prefix; the start fails, naming the setting, when Redis cannot be reached.
 * The Redis client is loaded only then: without REDIS_URL its modules are never loaded (~10 MB).
 */
export const layerRateLimiterOnRedis = (url: Redacted.Redacted<string>, setting = "REDIS_URL") =>
  RateLimiter.layer.pipe(
    Layer.provide(RateLimiter.layerStoreRedis({ prefix: "gateway-control:rate-limit:" })),
    Layer.provide(
      // Commands fail at once while the connection is down (the limiter then lets requests through) rather
      // than queueing until it is back.
      Layer.effectContext(
        Effect.promise(() => import("@effect/platform-node/NodeRedis")).pipe(
          Effect.flatMap((NodeRedis) =>
            Layer.build(NodeRedis.layer({ url: Redacted.value(url), disableOfflineQueue: true }))
          ),
          Effect.mapError((error) =>
            new InvalidConfiguration({
              message: `${setting}: Redis could not be reached (${String(error.cause)}).`,
              setting
            })
          )
        )
      )
    )
  )

export const layerRateLimiter = (
  redisUrl: Option.Option<Redacted.Redacted<string>>
): Layer.Layer<RateLimiter.RateLimiter, InvalidConfiguration> =>
  Option.isNone(redisUrl) ? layerRateLimiterInMemory : layerRateLimiterOnRedis(redisUrl.value)
