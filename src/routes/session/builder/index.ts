import { createOrgRouter } from "../../../lib/hono";
import * as open from "./open";

export const builderRouter = createOrgRouter().openapi(open.route, open.handler);
