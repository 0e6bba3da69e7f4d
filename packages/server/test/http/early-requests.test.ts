import { HttpServer, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Layer } from "effect"
import { FrontRoutes } from "../../src/http/front-route.js"
import { nodeServerLayer } from "../../src/http/node-server.js"

describe("the node listener", () => {
  it.scoped("a request that arrives after the listener opens but before the app is attached is answered once it is", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(nodeServerLayer({ port: 0, host: "127.0.0.1" }))
      const server = Context.get(context, HttpServer.HttpServer)
      const address = server.address
      if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("not a TCP listener")
      // A front route that takes nothing tells when the request has reached the server.
      const arrived = yield* Deferred.make<void>()
      yield* Context.get(context, FrontRoutes).add(() => {
        Deferred.unsafeDone(arrived, Exit.void)
        return false
      })
      const answer = fetch(`http://127.0.0.1:${address.port}/early`).then(async (r) => [r.status, await r.text()])
      yield* Deferred.await(arrived)
      yield* server.serve(Effect.succeed(HttpServerResponse.text("served", { status: 200 })))
      expect(yield* Effect.promise(() => answer)).toEqual([200, "served"])
      // And later requests go straight to the app.
      const later = yield* Effect.promise(() => fetch(`http://127.0.0.1:${address.port}/later`).then((r) => r.text()))
      expect(later).toBe("served")
    }))
})
