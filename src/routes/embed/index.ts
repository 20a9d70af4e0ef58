import { createRouter } from "../../lib/hono";
import * as session from "./session";

/** The embed host's API (`/api/v2/embed/*` except the partner's `/embed/token`): the embed token is the credential. */
export const embedRouter = createRouter().openapi(session.route, session.handler);

embedRouter.openAPIRegistry.registerComponent("securitySchemes", "EmbedToken", {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
  description: "The embed token from the `embed_url` fragment (`#token=`), minted by POST /api/v2/embed/token; 15 minutes, one envelope, one widget.",
});
