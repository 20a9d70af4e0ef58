import { createRouter } from "../../../lib/hono";
import * as open from "./open";

export const builderRouter = createRouter().openapi(open.route, open.handler);
