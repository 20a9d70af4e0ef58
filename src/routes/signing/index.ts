import { createRouter } from "../../lib/hono";
import { clientThrottle } from "../../middleware/client-throttle";
import * as decline from "./decline";
import * as document from "./document";
import * as get from "./get";
import * as submit from "./submit";
import * as view from "./view";

/** The signer API under /api/v2/signing/:slug: no API key or session, the slug is the credential. */
const router = createRouter();
router.use("/signing/*", clientThrottle);

export const signingRouter = router
  .openapi(get.route, get.handler)
  .openapi(document.route, document.handler)
  .openapi(view.route, view.handler)
  .openapi(submit.route, submit.handler)
  .openapi(decline.route, decline.handler);
