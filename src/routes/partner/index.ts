import { createOrgRouter } from "../../lib/hono";
import { partnerAuth } from "../../middleware/partner-auth";
import { documentsRouter } from "./documents";
import { embedTokenHandler, embedTokenRoute } from "./embed/token";
import { envelopesRouter } from "./envelopes";
import { templatesRouter } from "./templates";
import { vaultRouter } from "./vault";
import * as legacyWebhook from "./webhook";

export const partnerRouter = createOrgRouter();
// The Idempotency-Key is honoured inside each route object (partnerRoute), after its scope and Content-Type checks
partnerRouter.use("/partner/*", partnerAuth);
partnerRouter.use("/embed/token", partnerAuth);
partnerRouter.route("/", envelopesRouter);
partnerRouter.route("/", templatesRouter);
partnerRouter.route("/", documentsRouter);
partnerRouter.route("/", vaultRouter);
partnerRouter.openapi(embedTokenRoute, embedTokenHandler);
partnerRouter.openapi(legacyWebhook.route, legacyWebhook.handler);
