import { createRouter } from "../../lib/hono";
import type { EmbedEnv } from "../../middleware/embed-auth";
import * as paymentIntent from "./payment-intent";
import * as paymentStatus from "./payment-status";
import * as session from "./session";

/**
 * The embed host's API (`/api/v2/embed/*` except the partner's `/embed/token`): the embed token is the
 * credential (embedRoute), verified before the request is read, so its handlers get the token's claims
 * and an OrgContext in the token's organization. Sign + Pay's payment calls take the same credential.
 */
export const embedRouter = createRouter()
  .route(
    "/",
    createRouter<EmbedEnv>()
      .openapi(session.route, session.handler)
      .openapi(paymentIntent.route, paymentIntent.handler)
      .openapi(paymentStatus.route, paymentStatus.handler),
  );

embedRouter.openAPIRegistry.registerComponent("securitySchemes", "EmbedToken", {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
  description: "The embed token from the `embed_url` fragment (`#token=`), minted by POST /api/v2/embed/token; 15 minutes, one envelope, one widget.",
});
