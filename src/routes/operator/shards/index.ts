import { createRouter } from "../../../lib/hono";
import * as list from "./list";
import * as update from "./update";

/** The shard registry: where organizations are placed (docs/decisions/shards.md). */
export const shardsRouter = createRouter().openapi(list.route, list.handler).openapi(update.route, update.handler);
