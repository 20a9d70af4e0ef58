import { createOrgRouter } from "../../lib/hono";
import { partnerAuth } from "../../middleware/partner-auth";
import { speculativeRead } from "../../middleware/speculative-read";
import { readEnvelopeStatusUnscoped } from "../../services/envelopes/read-envelope-status";
import { documentsRouter } from "./documents";
import { embedTokenHandler, embedTokenRoute } from "./embed/token";
import { envelopesRouter } from "./envelopes";
import { templatesRouter } from "./templates";
import { vaultRouter } from "./vault";
import * as legacyWebhook from "./webhook";

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export const partnerRouter = createOrgRouter();
// The Idempotency-Key is honoured inside each route object (partnerRoute), after its scope and Content-Type checks
// The status poll's D1 read runs beside the key's limiter round trip (issue 17): registered before partnerAuth, which starts it
partnerRouter.use(
  "/partner/envelopes/:envelope_id/status",
  // a middleware's path parameters are not parsed: the id is the path's next-to-last segment (the handler checks it is the same)
  speculativeRead((c) => readEnvelopeStatusUnscoped(c.var.ctx.db, decodedSegment(c.req.path.split("/").at(-2) ?? ""))),
);
partnerRouter.use("/partner/*", partnerAuth);
partnerRouter.use("/embed/token", partnerAuth);
partnerRouter.route("/", envelopesRouter);
partnerRouter.route("/", templatesRouter);
partnerRouter.route("/", documentsRouter);
partnerRouter.route("/", vaultRouter);
partnerRouter.openapi(embedTokenRoute, embedTokenHandler);
partnerRouter.openapi(legacyWebhook.route, legacyWebhook.handler);
