import { createOrgRouter } from "../../lib/hono";
import { documentsRouter } from "./documents";
import { embedTokenHandler, embedTokenRoute } from "./embed/token";
import { envelopesRouter } from "./envelopes";
import { templatesRouter } from "./templates";
import { vaultRouter } from "./vault";
import * as legacyWebhook from "./webhook";

/**
 * The partner API: each route declares its scope (partnerRoute), which checks the API key (and its
 * limiter), the scope, the Content-Type and the Idempotency-Key, in that order.
 */
export const partnerRouter = createOrgRouter();
partnerRouter.route("/", envelopesRouter);
partnerRouter.route("/", templatesRouter);
partnerRouter.route("/", documentsRouter);
partnerRouter.route("/", vaultRouter);
partnerRouter.openapi(embedTokenRoute, embedTokenHandler);
partnerRouter.openapi(legacyWebhook.route, legacyWebhook.handler);
