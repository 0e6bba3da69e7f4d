import { IntegerParam } from "../param.js"

/** A numeric id in a path (`/webhooks/subscriptions/{sub_id}`), documented as an integer. */
export const PathId = (description: string) => IntegerParam(description)
