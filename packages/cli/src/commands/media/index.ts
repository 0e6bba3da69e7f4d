import { command, type CommandFactory } from "../util.js"
import { mediaDelete } from "./delete.js"
import { mediaUpload } from "./upload.js"
import { mediaUrl } from "./url.js"

export const media: CommandFactory = (ctx) =>
  command("media", "Upload media, get short-lived URLs, delete media").addCommand(mediaUpload(ctx)).addCommand(mediaUrl(ctx)).addCommand(mediaDelete(ctx))
