import { createOrgRouter } from "../../../../lib/hono";
import * as create from "./create";
import * as del from "./delete";
import * as list from "./list";

/** The organization's control keys (docs/control.md). Mounted before the record routes (static paths first). */
export const controlKeysRouter = createOrgRouter()
  .openapi(create.route, create.handler)
  .openapi(list.route, list.handler)
  .openapi(del.route, del.handler);
