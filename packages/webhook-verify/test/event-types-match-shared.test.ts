import * as Shared from "@platform/shared"
import { describe, expect, it } from "vitest"
import { EVENT_TYPES } from "../src/index.js"

// The package is published without dependencies, so it keeps its own copy of the
// list; this is what ties the copy to @platform/shared, the one source.
describe("EVENT_TYPES", () => {
  it("is shared's EVENT_TYPES exactly: the same twelve types in the same order", () => {
    expect(EVENT_TYPES).toEqual(Shared.EVENT_TYPES)
  })
})
