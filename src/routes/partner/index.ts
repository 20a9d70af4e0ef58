import { createOrgRouter } from "../../lib/hono";
import { idempotency } from "../../middleware/idempotency";
import { partnerAuth } from "../../middleware/partner-auth";
import { documentsRouter } from "./documents";
import { embedTokenHandler, embedTokenRoute } from "./embed/token";
import { envelopesRouter } from "./envelopes";
import { templatesRouter } from "./templates";
import { vaultRouter } from "./vault";
import * as legacyWebhook from "./webhook";

export const partnerRouter = createOrgRouter();
partnerRouter.use("/partner/*", partnerAuth, idempotency);
partnerRouter.use("/embed/token", partnerAuth, idempotency);
partnerRouter.route("/", envelopesRouter);
partnerRouter.route("/", templatesRouter);
partnerRouter.route("/", documentsRouter);
partnerRouter.route("/", vaultRouter);
partnerRouter.openapi(embedTokenRoute, embedTokenHandler);
partnerRouter.openapi(legacyWebhook.route, legacyWebhook.handler);
