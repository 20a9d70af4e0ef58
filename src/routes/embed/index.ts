import { createRouter } from "../../lib/hono";
import { clientThrottle } from "../../middleware/client-throttle";
import * as session from "./session";

/** The embed host's API (`/api/v2/embed/*` except the partner's `/embed/token`): the embed token is the credential. */
const router = createRouter();
router.use("/embed/session", clientThrottle);

export const embedRouter = router.openapi(session.route, session.handler);

embedRouter.openAPIRegistry.registerComponent("securitySchemes", "EmbedToken", {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
  description: "The embed token from the `embed_url` fragment (`#token=`), minted by POST /api/v2/embed/token; 15 minutes, one envelope, one widget.",
});
