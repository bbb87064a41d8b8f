/**
 * `serve` says, on a Node diagnostics channel, that its listener is open: the end of its start. The bin's heap
 * settings (`bin/heap.mjs`) listen for it, to turn on what they held off while the server started; an embedder
 * or a preloaded module may too. Publishing with no subscriber costs nothing.
 */
import { Effect } from "effect"
import { channel } from "node:diagnostics_channel"

/** The channel's name; `bin/heap.mjs` repeats it (plain JavaScript that cannot import this file when built). */
export const SERVING_CHANNEL = "gateway-control:serving"

const serving = channel(SERVING_CHANNEL)

export const announceServing = (address: { readonly host: string; readonly port: number }) =>
  Effect.sync(() => serving.publish(address))
