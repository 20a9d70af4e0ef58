import { createOrgRouter } from "../../../../lib/hono";
import * as answer from "./answer";
import * as list from "./list";
import * as offer from "./offer";
import * as paidOff from "./paid-off";
import * as paperOut from "./paper-out";
import * as releasePledge from "./release-pledge";

/** Transfers of control (docs/control.md): offers, answers, the caller's transfers. Mounted before the record routes (static paths first). */
export const transfersRouter = createOrgRouter()
  .openapi(list.route, list.handler)
  .openapi(answer.acceptRoute, answer.acceptHandler)
  .openapi(answer.rejectRoute, answer.rejectHandler)
  .openapi(answer.cancelRoute, answer.cancelHandler)
  .openapi(offer.route, offer.handler)
  .openapi(releasePledge.route, releasePledge.handler)
  .openapi(paidOff.route, paidOff.handler)
  .openapi(paperOut.route, paperOut.handler);
