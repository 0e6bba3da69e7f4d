import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { ListenOptions } from "node:net"
import { FrontRoutes, type NodeRoute } from "./front-route.js"

/**
 * The node server (production and tests build it the same way): every request is
 * offered to the front routes first (`first` before those added later), then to the
 * Effect app that `serve` attaches.
 *
 * The server listens before the app is attached (the app's layers are built after
 * the listener's). A request arriving in between had no one to answer it and hung
 * until its client gave up (a health check or a client retrying during a start
 * waited forever); it is held now and handed to the app once attached.
 */
export const nodeServerLayer = (
  options: ListenOptions,
  make: () => Server = createServer,
  first: ReadonlyArray<NodeRoute> = []
) =>
  Layer.unwrapEffect(Effect.sync(() => {
    const server = make()
    const routes: Array<NodeRoute> = [...first]
    let early: Array<readonly [IncomingMessage, ServerResponse]> | undefined = []
    server.on("newListener", (event: string | symbol) => {
      if (event !== "request" || early === undefined) return
      const held = early
      early = undefined
      // After the listener is added ('newListener' comes before it).
      setImmediate(() => {
        for (const [request, response] of held) if (!response.destroyed) server.emit("request", request, response)
      })
    })
    const emit = server.emit
    server.emit = function(this: Server, event: string | symbol, ...args: Array<unknown>): boolean {
      if (event === "request") {
        for (const route of routes) if (route(args[0] as IncomingMessage, args[1] as ServerResponse)) return true
        if (early !== undefined) {
          early.push([args[0] as IncomingMessage, args[1] as ServerResponse])
          return true
        }
      }
      return Reflect.apply(emit, this, [event, ...args]) as boolean
    } as Server["emit"]
    const add = (route: NodeRoute) =>
      Effect.acquireRelease(
        Effect.sync(() => void routes.push(route)),
        () => Effect.sync(() => void routes.splice(routes.indexOf(route), 1))
      )
    return Layer.merge(NodeHttpServer.layer(() => server, options), Layer.succeed(FrontRoutes, { add }))
  }))
