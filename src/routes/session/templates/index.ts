import { createOrgRouter } from "../../../lib/hono";
import * as create from "./create";
import * as remove from "./delete";
import * as document from "./document";
import * as get from "./get";
import * as update from "./update";

export const templatesRouter = createOrgRouter()
  .openapi(create.route, create.handler)
  .openapi(get.route, get.handler)
  .openapi(update.route, update.handler)
  .openapi(remove.route, remove.handler)
  .openapi(document.route, document.handler);
