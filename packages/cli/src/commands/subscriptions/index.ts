import { command, type CommandFactory } from "../util.js"
import { subscriptionsCreate } from "./create.js"
import { subscriptionsDelete } from "./delete.js"
import { subscriptionsGet } from "./get.js"
import { subscriptionsList } from "./list.js"
import { subscriptionsResume } from "./resume.js"
import { subscriptionsRotateSecret } from "./rotate-secret.js"
import { subscriptionsTest } from "./test.js"
import { subscriptionsUpdate } from "./update.js"

export const subscriptions: CommandFactory = (ctx) =>
  command("subscriptions", "Webhook subscriptions for normalized events")
    .addCommand(subscriptionsCreate(ctx))
    .addCommand(subscriptionsList(ctx))
    .addCommand(subscriptionsGet(ctx))
    .addCommand(subscriptionsUpdate(ctx))
    .addCommand(subscriptionsDelete(ctx))
    .addCommand(subscriptionsResume(ctx))
    .addCommand(subscriptionsRotateSecret(ctx))
    .addCommand(subscriptionsTest(ctx))
