import { createOrgRouter } from "../../../lib/hono";
import * as addFields from "./add-fields";
import * as create from "./create";

export const templatesRouter = createOrgRouter().openapi(create.route, create.handler).openapi(addFields.route, addFields.handler);
