import { createRouter } from "../../lib/hono";
import { clientThrottle } from "../../middleware/client-throttle";
import { embedAuth, type EmbedEnv } from "../../middleware/embed-auth";
import * as paymentIntent from "./payment-intent";
import * as paymentStatus from "./payment-status";
import * as session from "./session";

/** The embed host's API (`/api/v2/embed/*` except the partner's `/embed/token`): the embed token is the credential. */
// The embed token is verified before the request is read (embedAuth), so its handlers get the
// token's claims and an OrgContext in the token's organization.
const sessionRouter = createRouter<EmbedEnv>();
sessionRouter.use("/embed/session", clientThrottle, embedAuth);
sessionRouter.openapi(session.route, session.handler);
// Sign + Pay: the signing host's payment calls, with the same credential
sessionRouter.use("/embed/payment-intent", clientThrottle, embedAuth);
sessionRouter.use("/embed/payment-status", clientThrottle, embedAuth);
sessionRouter.openapi(paymentIntent.route, paymentIntent.handler);
sessionRouter.openapi(paymentStatus.route, paymentStatus.handler);

const router = createRouter();

export const embedRouter = router.route("/", sessionRouter);

embedRouter.openAPIRegistry.registerComponent("securitySchemes", "EmbedToken", {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
  description: "The embed token from the `embed_url` fragment (`#token=`), minted by POST /api/v2/embed/token; 15 minutes, one envelope, one widget.",
});
