import { createOrgRouter } from "../../../lib/hono";
import * as addFields from "./add-fields";
import * as create from "./create";
import * as get from "./get";
import * as list from "./list";

export const templatesRouter = createOrgRouter()
  .openapi(list.route, list.handler)
  .openapi(get.route, get.handler)
  .openapi(create.route, create.handler)
  .openapi(addFields.route, addFields.handler);
