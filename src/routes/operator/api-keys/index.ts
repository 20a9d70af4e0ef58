import { createRouter } from "../../../lib/hono";
import * as create from "./create";
import * as get from "./get";
import * as rotate from "./rotate";
import * as update from "./update";

/** The operator's partner API keys: provision, rotate, re-scope or (de)activate, read. */
export const apiKeysRouter = createRouter()
  .openapi(create.route, create.handler)
  .openapi(rotate.route, rotate.handler)
  .openapi(update.route, update.handler)
  .openapi(get.route, get.handler);
