import { BROADCAST_SEND_CYCLE_SECONDS } from "@platform/shared"
import { Duration, Effect, Layer, Schedule, SubscriptionRef } from "effect"
import { BroadcastSender } from "../domain/broadcast-sender.js"
import { DomainLive } from "../domain/layer.js"

/** SPEC §8: the broadcast send cycle ticks every 30 seconds (a tick that runs longer starts the next at once). */
export const BROADCAST_CYCLE = Schedule.fixed(Duration.seconds(BROADCAST_SEND_CYCLE_SECONDS))

/**
 * The send cycle: a pass at once, then one every 30 s on the Effect clock. A failed
 * pass is logged and the cycle goes on; `ticks` counts finished passes (tests wait
 * on it instead of on time).
 */
export const broadcastSendCycle = (ticks?: SubscriptionRef.SubscriptionRef<number>) =>
  Effect.flatMap(BroadcastSender, (sender) =>
    sender.runOnce().pipe(
      Effect.catchAllCause((cause) => Effect.logError("broadcast send cycle failed", cause)),
      Effect.zipRight(ticks === undefined ? Effect.void : SubscriptionRef.update(ticks, (n) => n + 1)),
      Effect.repeat(BROADCAST_CYCLE),
      Effect.asVoid
    ))

/** The send cycle as a scoped fiber (registered only where workers run). */
export const BroadcastSendCycleLive = Layer.scopedDiscard(Effect.forkScoped(broadcastSendCycle())).pipe(
  Layer.provide(BroadcastSender.Default),
  Layer.provide(DomainLive)
)
