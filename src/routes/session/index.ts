import { createRouter } from "../../lib/hono";
import { sessionAuth } from "../../middleware/session-auth";
import * as audit from "./envelopes/audit";
import * as autoVaultConsent from "./envelopes/auto-vault-consent";
import * as voidEnvelope from "./envelopes/void";
import { webhooksRouter } from "./webhooks";

export const sessionRouter = createRouter();
sessionRouter.use("/envelopes/*", sessionAuth);
sessionRouter.use("/webhooks/*", sessionAuth);
sessionRouter.openapi(voidEnvelope.route, voidEnvelope.handler).openapi(audit.route, audit.handler);
sessionRouter.route("/", webhooksRouter);
sessionRouter.openapi(autoVaultConsent.route, autoVaultConsent.handler);
