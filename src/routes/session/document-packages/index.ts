import { createOrgRouter } from "../../../lib/hono";
import * as create from "./create";
import * as get from "./get";
import * as update from "./update";

export const documentPackagesRouter = createOrgRouter().openapi(create.route, create.handler).openapi(get.route, get.handler).openapi(update.route, update.handler);
