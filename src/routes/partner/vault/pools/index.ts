import { createOrgRouter } from "../../../../lib/hono";
import * as answer from "./answer";
import * as offer from "./offer";
import * as read from "./read";

/** Pools of vaulted records (docs/control.md "Pools"). Mounted before the record routes (static paths first). */
export const poolsRouter = createOrgRouter()
  .openapi(offer.route, offer.handler)
  .openapi(read.getRoute, read.getHandler)
  .openapi(read.manifestRoute, read.manifestHandler)
  .openapi(read.receiptRoute, read.receiptHandler)
  .openapi(answer.acceptRoute, answer.acceptHandler)
  .openapi(answer.rejectRoute, answer.rejectHandler)
  .openapi(answer.cancelRoute, answer.cancelHandler);
