import { Schema } from "effect"
import { DecimalIntString } from "../pagination.js"

/**
 * A numeric id in a path (`/webhooks/subscriptions/{sub_id}`): decoded from its text,
 * and described to OpenAPI as the integer it is (NumberFromString alone documents
 * `type: string`, "a string to be decoded into a number").
 */
export const PathId = (description: string) =>
  Schema.compose(DecimalIntString.annotations({ jsonSchema: { type: "integer", description } }), Schema.NumberFromString)
    .pipe(Schema.int())
